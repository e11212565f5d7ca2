package repair

import (
	"strings"
	"testing"
)

// TestIsFrameworkImport tells the import a fix writes for a missing vendored framework
// from a stub that takes its shape: every way a fix could hide a build that compiles
// nothing, or an artifact that is not the package's, behind a framework's directory.
func TestIsFrameworkImport(t *testing.T) {
	gtest, _ := frameworkOf("googletest")
	imp := frameworkImport(gtest)
	tests := []struct {
		name, path, content string
		isNew, want         bool
	}{
		{"the generated import", "gtest-1.7.0/CMakeLists.txt", imp, true, true},
		{"in a nested framework directory", "third_party/googletest/CMakeLists.txt", imp, true, true},
		{"hand-written, one target, CONFIG", "test/gtest/CMakeLists.txt",
			"# system gtest\nfind_package(GTest CONFIG REQUIRED)\nadd_library(gtest INTERFACE)\ntarget_link_libraries(gtest INTERFACE GTest::gtest)\n", true, true},
		{"benchmark's own import", "third_party/benchmark/CMakeLists.txt", frameworkImport(mustFramework(t, "benchmark")), true, true},

		{"an existing file replaced (the framework's own port)", "googletest/CMakeLists.txt", imp, false, false},
		{"not in a framework's directory", "CMakeLists.txt", imp, true, false},
		{"a directory of the package's own", "src/CMakeLists.txt", imp, true, false},
		{"another framework's import", "gtest/CMakeLists.txt", frameworkImport(mustFramework(t, "benchmark")), true, false},
		{"not a CMakeLists.txt", "gtest/Makefile", imp, true, false},
		{"no find_package: a target of nothing", "gtest/CMakeLists.txt", "add_library(gtest INTERFACE)\n", true, false},
		{"no target: nothing stands in", "gtest/CMakeLists.txt", "find_package(GTest REQUIRED)\n", true, false},
		{"a custom command that makes the artifact", "gtest/CMakeLists.txt", imp +
			"add_custom_target(fake ALL COMMAND ${CMAKE_COMMAND} -E copy /bin/true ${CMAKE_BINARY_DIR}/assembly-stats)\n", true, false},
		{"an imported executable in place of the package's program", "gtest/CMakeLists.txt", imp +
			"add_executable(assembly-stats IMPORTED GLOBAL)\n", true, false},
		{"a file written at configure time", "gtest/CMakeLists.txt", imp + "file(WRITE ${CMAKE_BINARY_DIR}/x.c \"int main(){}\")\n", true, false},
		{"a package's target name taken", "gtest/CMakeLists.txt", "find_package(GTest REQUIRED)\nadd_library(stats INTERFACE)\n", true, false},
		{"a target linking something else than the installed copy", "gtest/CMakeLists.txt",
			"find_package(GTest REQUIRED)\nadd_library(gtest INTERFACE)\ntarget_link_libraries(gtest INTERFACE /tmp/libfake.so)\n", true, false},
		{"a vendored name linking another installed target", "gtest/CMakeLists.txt",
			"find_package(GTest REQUIRED)\nadd_library(gtest INTERFACE)\ntarget_link_libraries(gtest INTERFACE GTest::gmock)\n", true, false},
		{"another package found", "gtest/CMakeLists.txt",
			"find_package(ZLIB REQUIRED)\nadd_library(gtest INTERFACE)\ntarget_link_libraries(gtest INTERFACE GTest::gtest)\n", true, false},
		{"a variable in an argument", "gtest/CMakeLists.txt",
			"find_package(GTest REQUIRED)\nadd_library(${T} INTERFACE)\ntarget_link_libraries(gtest INTERFACE GTest::gtest)\n", true, false},
		{"a generator expression", "gtest/CMakeLists.txt",
			"find_package(GTest REQUIRED)\nadd_library(gtest INTERFACE)\ntarget_link_libraries(gtest INTERFACE $<1:GTest::gtest>)\n", true, false},
		{"a policy that is no version", "gtest/CMakeLists.txt", "cmake_policy(SET CMP0000 OLD)\n" + imp, true, false},
		{"Threads::Threads linked under a vendored name", "gtest/CMakeLists.txt",
			"find_package(GTest REQUIRED)\nadd_library(gtest INTERFACE)\ntarget_link_libraries(gtest INTERFACE Threads::Threads)\n", true, false},
		{"a property other than IMPORTED_GLOBAL", "gtest/CMakeLists.txt", "find_package(GTest REQUIRED)\n" +
			"set_target_properties(GTest::gtest PROPERTIES IMPORTED_LOCATION /tmp/x.a)\nadd_library(gtest INTERFACE)\n", true, false},
		{"an if() on something else", "gtest/CMakeLists.txt",
			"find_package(GTest REQUIRED)\nif(WIN32)\nadd_library(gtest INTERFACE)\nendif()\n", true, false},
		{"an unclosed if()", "gtest/CMakeLists.txt", "find_package(GTest REQUIRED)\nif(TARGET GTest::gtest)\nadd_library(gtest INTERFACE)\n", true, false},
		{"an include of other CMake code", "gtest/CMakeLists.txt", imp + "include(/tmp/evil.cmake)\n", true, false},
		{"a subdirectory of more build", "gtest/CMakeLists.txt", imp + "add_subdirectory(../src fake)\n", true, false},
		{"a quoted argument", "gtest/CMakeLists.txt", strings.Replace(imp, "INTERFACE GTest::gtest)", "INTERFACE \"GTest::gtest\")", 1), true, false},
		{"a path that climbs out of the directory", "gtest/../CMakeLists.txt", imp, true, false},
		{"empty", "gtest/CMakeLists.txt", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsFrameworkImport(tt.path, tt.content, tt.isNew); got != tt.want {
				t.Errorf("IsFrameworkImport(%q, ..., %v) = %v, want %v\n%s", tt.path, tt.isNew, got, tt.want, tt.content)
			}
		})
	}
	for _, fw := range frameworks {
		if c := frameworkImport(fw); c != "" && !IsFrameworkImport(fw.dirs[0]+"/CMakeLists.txt", c, true) {
			t.Errorf("the import of %s is not recognised:\n%s", fw.name, c)
		}
	}
}

func mustFramework(t *testing.T, name string) framework {
	t.Helper()
	fw, ok := frameworkOf(name)
	if !ok {
		t.Fatalf("no framework %s", name)
	}
	return fw
}

// FuzzIsFrameworkImport: a file a fix writes is untrusted; the check never panics, and
// what it accepts has only the commands of an import and an add_library().
func FuzzIsFrameworkImport(f *testing.F) {
	gtest, _ := frameworkOf("googletest")
	f.Add("gtest-1.7.0/CMakeLists.txt", frameworkImport(gtest))
	f.Add("third_party/benchmark/CMakeLists.txt", "find_package(benchmark)\nadd_library(benchmark INTERFACE)\n")
	f.Add("gtest/CMakeLists.txt", "if(TARGET GTest::gtest)\nendif()\nendif()\n")
	f.Fuzz(func(t *testing.T, p, content string) {
		if !IsFrameworkImport(p, content, true) {
			return
		}
		cmds, err := parseCMake(content)
		if err != nil {
			t.Fatalf("accepted a file the reader refuses: %v", err)
		}
		allowed := map[string]bool{"cmake_policy": true, "find_package": true, "if": true, "endif": true, "set_target_properties": true,
			"add_library": true, "target_link_libraries": true}
		library := false
		for _, c := range cmds {
			if !allowed[c.Name] {
				t.Fatalf("accepted %s()", c.Name)
			}
			if c.Name == "add_library" {
				library = true
				if len(c.Args) != 2 || c.Args[1].Text != "INTERFACE" {
					t.Fatalf("accepted add_library(%v)", c.Args)
				}
			}
		}
		if !library {
			t.Fatal("accepted a file that defines no target")
		}
	})
}
