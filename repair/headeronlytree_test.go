package repair

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCMakeHeaderOnly: hera's real top-level CMakeLists.txt declares one INTERFACE
// library, whose include directories are include/ and extern/; a library that
// compiles sources, one whose kind BUILD_SHARED_LIBS decides, one named through a
// variable and a file with no library at all do not read as header-only.
func TestCMakeHeaderOnly(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []InterfaceLibrary
		why  string
	}{
		{name: "hera 2.0.0: add_library(hera INTERFACE), no install()", src: readLog(t, "cmake/hera-2.0.0.txt"),
			want: []InterfaceLibrary{{Name: "hera", IncludeDirs: []string{"include", "extern"}, Line: 24}}},
		{name: "build-interface generator expressions, an alias and an imported target",
			src: "add_library(lib INTERFACE)\nadd_library(ns::lib ALIAS lib)\nadd_library(dep INTERFACE IMPORTED)\n" +
				"target_include_directories(lib INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include> ${OTHER}/x /usr/include ../up)\n",
			want: []InterfaceLibrary{{Name: "lib", IncludeDirs: []string{"include"}, Line: 1}}},
		{name: "a static library besides", src: "add_library(h INTERFACE)\nadd_library(core STATIC a.c)\n", why: "declares the library core, which compiles sources"},
		{name: "a library of BUILD_SHARED_LIBS's kind", src: "add_library(core a.c b.c)\n", why: "declares the library core"},
		{name: "an object library", src: "add_library(h INTERFACE)\nadd_library(objs OBJECT a.c)\n", why: "declares the library objs"},
		{name: "a name through a variable", src: "add_library(${PROJECT_NAME} INTERFACE)\n", why: "names a library through a variable"},
		{name: "a program only", src: "project(p)\nadd_executable(p main.c)\n", why: "declares no INTERFACE library"},
		{name: "a quoted INTERFACE is a source file's name", src: "add_library(h \"INTERFACE\")\n", why: "which compiles sources"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := CMakeHeaderOnly(tt.src)
			if tt.why != "" {
				if got != nil || !strings.Contains(why, tt.why) {
					t.Fatalf("got %+v, %q; want none saying %q", got, why, tt.why)
				}
				return
			}
			if why != "" {
				t.Fatalf("not header-only: %s", why)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("libraries (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzCMakeHeaderOnly: whatever a CMakeLists.txt says, the include directories
// returned are clean and relative, inside the tree.
func FuzzCMakeHeaderOnly(f *testing.F) {
	f.Add(readLog(f, "cmake/hera-2.0.0.txt"))
	f.Add("add_library(a INTERFACE)\ntarget_include_directories(a INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/../x> ./in//c/ .)\n")
	f.Fuzz(func(t *testing.T, src string) {
		libs, why := CMakeHeaderOnly(src)
		if (len(libs) == 0) == (why == "") {
			t.Fatalf("libraries %+v with reason %q", libs, why)
		}
		for _, l := range libs {
			for _, d := range l.IncludeDirs {
				if d == "" || strings.HasPrefix(d, "/") || d == ".." || strings.HasPrefix(d, "../") || strings.ContainsAny(d, "$<>;") {
					t.Fatalf("include directory %q", d)
				}
			}
		}
	})
}
