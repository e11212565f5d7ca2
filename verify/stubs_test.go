package verify

import "testing"

// gtestImport is what the cmake-missing-subdir rule writes for a missing vendored
// googletest, as a fix would.
const gtestImport = "# The distribution's googletest stands in for the vendored copy.\nfind_package(GTest REQUIRED)\n" +
	"if(TARGET GTest::gtest)\n  set_target_properties(GTest::gtest PROPERTIES IMPORTED_GLOBAL TRUE)\n" +
	"  add_library(gtest INTERFACE)\n  target_link_libraries(gtest INTERFACE GTest::gtest)\nendif()\n" +
	"add_library(gtest_main INTERFACE)\ntarget_link_libraries(gtest_main INTERFACE GTest::gtest_main)\n"

// libImport is what the cmake-missing-subdir rule writes for a vendored library a
// repacked tarball stripped (libsdsl's external/libdivsufsort), as a fix would.
const libImport = "# The distribution's libdivsufsort-dev stands in for the vendored libdivsufsort this source lacks:\n" +
	"# each target the build links is the installed library of that name.\n" +
	"cmake_policy(VERSION 3.10...3.31)\n" +
	"find_package(PkgConfig QUIET)\n" +
	"find_library(divsufsort_SYSTEM_LIBRARY NAMES divsufsort)\n" +
	"if(NOT divsufsort_SYSTEM_LIBRARY)\n" +
	"  message(FATAL_ERROR \"The system library divsufsort was not found: install libdivsufsort-dev, which replaces the vendored libdivsufsort this source lacks.\")\n" +
	"endif()\n" +
	"add_library(divsufsort INTERFACE)\n" +
	"target_link_libraries(divsufsort INTERFACE ${divsufsort_SYSTEM_LIBRARY})\n" +
	"if(PKG_CONFIG_FOUND)\n" +
	"  pkg_search_module(divsufsort_SYSTEM_PC QUIET libdivsufsort divsufsort)\n" +
	"  if(divsufsort_SYSTEM_PC_FOUND)\n" +
	"    target_include_directories(divsufsort INTERFACE ${divsufsort_SYSTEM_PC_INCLUDE_DIRS})\n" +
	"  endif()\n" +
	"endif()\n"

func TestIsStub(t *testing.T) {
	for _, tt := range []struct {
		path, content string
		isNew, want   bool
	}{
		{"src/main.c", "int main(void) { return 0; }\n", true, true},
		{"src/main.c", "int main(void) { return 0; }\n", false, false}, // an edit of the real program
		{"cmd/x/main.go", "package main\n\nfunc main() {}\n", true, true},
		{"src/util.c", "int add(int a, int b) { return a + b; }\n", true, false},
		{"Makefile", "all:\n\ttrue\n", false, true},
		{"Makefile", "all:\n\t$(CC) -o x x.c\n", false, false},
		{"CMakeLists.txt", "add_library(z z.c)\n", false, false},
		{"README.md", "int main(void) {}\n", true, false},
		// Targets that compile nothing.
		{"CMakeLists.txt", "project(p)\nadd_library(p INTERFACE)\n", false, true},
		{"CMakeLists.txt", "add_executable(p IMPORTED GLOBAL)\nset_target_properties(p PROPERTIES IMPORTED_LOCATION /bin/true)\n", true, true},
		{"CMakeLists.txt", "add_library(p STATIC IMPORTED)\nadd_library(q ALIAS p)\n", true, true},
		{"CMakeLists.txt", "add_library(h INTERFACE)\nadd_library(p p.c)\n", true, false},
		// The distribution's googletest for a vendored directory the tarball lacks.
		{"gtest-1.7.0/CMakeLists.txt", gtestImport, true, false},
		{"third_party/googletest/CMakeLists.txt", gtestImport, true, false},
		// The same shape is a stub anywhere else, over an existing file, or with more in it.
		{"CMakeLists.txt", gtestImport, true, true},
		{"src/CMakeLists.txt", gtestImport, true, true},
		{"googletest/CMakeLists.txt", gtestImport, false, true},
		{"gtest-1.7.0/CMakeLists.txt", gtestImport + "add_executable(assembly-stats IMPORTED)\n", true, true},
		{"gtest-1.7.0/CMakeLists.txt", gtestImport + "add_custom_target(a ALL COMMAND cp /bin/true assembly-stats)\n", true, true},
		{"gtest-1.7.0/CMakeLists.txt", "find_package(GTest REQUIRED)\nadd_library(gtest INTERFACE)\ntarget_link_libraries(gtest INTERFACE /tmp/x.so)\n", true, true},
		// The distribution's copy of a library for a vendored directory the tarball lacks.
		{"external/libdivsufsort/CMakeLists.txt", libImport, true, false},
		// The same shape is a stub anywhere else, over an existing file, or dressed up:
		// a hollow build of interface targets stays one.
		{"CMakeLists.txt", libImport, true, true},
		{"src/CMakeLists.txt", libImport, true, true},
		{"external/libdivsufsort/CMakeLists.txt", libImport, false, true},
		{"external/libdivsufsort/CMakeLists.txt", libImport + "add_executable(sdsl IMPORTED GLOBAL)\n", true, true},
		{"external/libdivsufsort/CMakeLists.txt", libImport + "add_custom_target(a ALL COMMAND cp /bin/true libsdsl.so)\n", true, true},
		{"CMakeLists.txt", "project(sdsl)\nadd_library(sdsl INTERFACE)\ntarget_link_libraries(sdsl INTERFACE divsufsort)\n", false, true},
		{"CMakeLists.txt", "find_library(Z NAMES z)\nadd_library(p INTERFACE)\ntarget_link_libraries(p INTERFACE ${Z})\n", false, true},
		{"meson.build", "project('p', 'c')\nlibrary('p', 'p.c')\n", false, false},
	} {
		if got := IsStub(tt.path, tt.content, tt.isNew); got != tt.want {
			t.Errorf("IsStub(%q, %q, %v) = %v, want %v", tt.path, tt.content, tt.isNew, got, tt.want)
		}
	}
}
