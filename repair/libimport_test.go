package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// libsdslDeps are the Build-Depends of Debian's libsdsl 2.1.1+dfsg that its install line shows.
const libsdslDeps = `debhelper-compat (= 13), architecture-is-64-bit, cmake, d-shlibs, libdivsufsort-dev, libjs-d3`

// libsdslTree is Debian's libsdsl 2.1.1+dfsg tarball's CMake files (unchanged) and a few
// of its sources: external/googletest is there but empty, external/libdivsufsort is not.
func libsdslTree(t *testing.T) memTree {
	t.Helper()
	return memTree{
		"CMakeLists.txt":                readLog(t, "cmake/libsdsl-2.1.1.txt"),
		"external/CMakeLists.txt":       readLog(t, "cmake/libsdsl-2.1.1-external.txt"),
		"lib/CMakeLists.txt":            readLog(t, "cmake/libsdsl-2.1.1-lib.txt"),
		"test/CMakeLists.txt":           readLog(t, "cmake/libsdsl-2.1.1-test.txt"),
		"include/sdsl/construct_sa.hpp": "#include <divsufsort.h>\n",
		"lib/bits.cpp":                  "",
	}
}

// fakeFinder answers the Contents lookups of one library.
type fakeFinder map[string][]string

func (f fakeFinder) Providers(kind FileKind, name string) []string { return f[string(kind)+":"+name] }

// TestLibraryImport runs cmake-missing-subdir on libsdsl's real configure output and
// CMake files: its external/CMakeLists.txt adds the libdivsufsort the +dfsg tarball
// stripped and the googletest it emptied, both unconditionally; the distro's copies
// stand in for both. Then on smaller trees for when the import does not fit.
func TestLibraryImport(t *testing.T) {
	dist := distOf(&Distribution{Package: "libsdsl", Version: "2.1.1+dfsg", BuildDepends: debsrc.BuildDepends(libsdslDeps, "riscv64")})
	lib := func(tree memTree) memTree {
		out := memTree{"lib/x.c": ""}
		for k, v := range tree {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name     string
		log      string
		tree     memTree
		dist     DistributionFunc
		packages PackageFinder
		platform string
		setup    string // the packages the setup line gains
		create   map[string][]string
		analysis []string
		none     string
	}{
		{name: "libsdsl: the distro's libdivsufsort and googletest imported",
			log: "cmake-subdir-libsdsl.log", tree: libsdslTree(t), dist: dist,
			setup: "libdivsufsort-dev libgtest-dev libgmock-dev",
			create: map[string][]string{
				"external/libdivsufsort/CMakeLists.txt": {"find_library(divsufsort_SYSTEM_LIBRARY NAMES divsufsort)",
					"find_library(divsufsort64_SYSTEM_LIBRARY NAMES divsufsort64)", "add_library(divsufsort INTERFACE)",
					"add_library(divsufsort64 INTERFACE)", "message(FATAL_ERROR", "pkg_search_module(divsufsort_SYSTEM_PC QUIET libdivsufsort divsufsort)"},
				"external/googletest/CMakeLists.txt": {"find_package(GTest REQUIRED)"}},
			analysis: []string{"external/CMakeLists.txt:14 adds external/libdivsufsort, which the tarball lacks: the repacked source stripped its bundled copy of the library libdivsufsort, " +
				"which the distribution packages as libdivsufsort-dev", "under the target names the build links (divsufsort, divsufsort64)",
				"external/CMakeLists.txt:26 adds external/googletest (a vendored googletest)"}},
		{name: "libsdsl without the distribution's Build-Depends: the Contents index finds the library",
			log: "cmake-subdir-libsdsl.log", tree: libsdslTree(t),
			packages: fakeFinder{"library:divsufsort": {"libdivsufsort-dev"}, "library:divsufsort64": {"libdivsufsort-dev"}},
			setup:    "libdivsufsort-dev libgtest-dev libgmock-dev",
			create:   map[string][]string{"external/libdivsufsort/CMakeLists.txt": {"add_library(divsufsort64 INTERFACE)"}, "external/googletest/CMakeLists.txt": nil}},
		{name: "libsdsl where nothing says the distribution packages the library: googletest only",
			log: "cmake-subdir-libsdsl.log", tree: libsdslTree(t),
			setup:    "libgtest-dev libgmock-dev",
			create:   map[string][]string{"external/googletest/CMakeLists.txt": nil},
			analysis: []string{"Not handled: external/CMakeLists.txt:14 calls add_subdirectory(external/libdivsufsort) unconditionally"}},
		{name: "a runtime package, not a -dev one, in the index: no import",
			log: cmakeError("CMakeLists.txt", 2, "/workspace/p/third_party/libfoo", false), packages: fakeFinder{"library:foo": {"libfoo1"}},
			tree: lib(memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(third_party/libfoo)\nadd_library(p x.c)\ntarget_link_libraries(p foo)\n"}),
			none: "calls add_subdirectory(third_party/libfoo) unconditionally"},
		{name: "another platform: no import of Debian's package",
			log: cmakeError("CMakeLists.txt", 2, "/workspace/p/libfoo", false), platform: "alpine",
			dist: distOf(&Distribution{BuildDepends: []string{"libfoo-dev"}}),
			tree: lib(memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(libfoo)\nadd_library(p x.c)\ntarget_link_libraries(p foo)\n"}),
			none: "unconditionally"},
		{name: "an option gates the library off: not an import's to stand in for",
			log: cmakeError("CMakeLists.txt", 3, "/workspace/p/libfoo", false), dist: distOf(&Distribution{BuildDepends: []string{"libfoo-dev"}}),
			tree: lib(memTree{"CMakeLists.txt": "project(p)\noption(P_WITH_FOO \"foo support\" ON)\nif(P_WITH_FOO) add_subdirectory(libfoo) endif()\n" +
				"add_library(p x.c)\ntarget_link_libraries(p foo)\n"}),
			none: "no option of CMakeLists.txt gates"},
		{name: "a guard that is no option (a file's existence): the import",
			log: cmakeError("CMakeLists.txt", 3, "/workspace/p/foo-1.2", false), dist: distOf(&Distribution{BuildDepends: []string{"foo-dev"}}),
			tree: lib(memTree{"CMakeLists.txt": "project(p)\nif(NOT EXISTS ${CMAKE_SOURCE_DIR}/nothing)\n add_subdirectory(foo-1.2)\nendif()\n" +
				"add_library(p x.c)\ntarget_link_libraries(p PRIVATE foo::foo foo)\n"}),
			setup: "foo-dev", create: map[string][]string{"foo-1.2/CMakeLists.txt": {"add_library(foo INTERFACE)"}}},
		{name: "the project links no target of the library: no import",
			log: cmakeError("CMakeLists.txt", 2, "/workspace/p/libfoo", false), dist: distOf(&Distribution{BuildDepends: []string{"libfoo-dev"}}),
			tree: lib(memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(libfoo)\nadd_library(p x.c)\ntarget_link_libraries(p ${FOO_LIBS} m)\n"}),
			none: "unconditionally"},
		{name: "the linked target is the tree's own: no import",
			log: cmakeError("CMakeLists.txt", 2, "/workspace/p/libfoo", false), dist: distOf(&Distribution{BuildDepends: []string{"libfoo-dev"}}),
			tree: lib(memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(libfoo)\nadd_library(foo x.c)\nadd_executable(p x.c)\ntarget_link_libraries(p foo)\n"}),
			none: "unconditionally"},
		{name: "the directory has a CMakeLists.txt already: no import",
			log: cmakeError("CMakeLists.txt", 2, "/workspace/p/libfoo", true), dist: distOf(&Distribution{BuildDepends: []string{"libfoo-dev"}}),
			tree: lib(memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(libfoo)\nadd_library(p x.c)\ntarget_link_libraries(p foo)\n",
				"libfoo/CMakeLists.txt": "project(foo)\n"}),
			none: "unconditionally"},
		{name: "a directory of tests: not a library",
			log: cmakeError("CMakeLists.txt", 2, "/workspace/p/libtest", false), dist: distOf(&Distribution{BuildDepends: []string{"libtest-dev"}}),
			tree: lib(memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(libtest)\nadd_library(p x.c)\ntarget_link_libraries(p test)\n"}),
			none: "unconditionally"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := debian(t)
			if tt.platform != "" {
				var err error
				if p, err = knowledge.Profile(tt.platform); err != nil {
					t.Fatal(err)
				}
			}
			f := buildFailure(t, tt.log, cmakeBuild)
			plan := cmakePlan()
			env := Env{Platform: p, Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Distribution: tt.dist, Packages: tt.packages}
			fix, why := makeCMakeSubdir(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix)
				}
				if !strings.Contains(why, tt.none) {
					t.Errorf("reason %q, want it to say %q", why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got, want := fix.Plan.Phases[0].Commands[0], plan.Phases[0].Commands[0]+" "+tt.setup; got != want {
				t.Errorf("setup phase\n got %q\nwant %q", got, want)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != cmakeBuild {
				t.Errorf("build phase changed: %q", got)
			}
			var paths []string
			for _, a := range fix.Actions {
				paths = append(paths, a.Path)
				want, ok := tt.create[a.Path]
				if !ok || a.Type != atesor.ActionCreateFile {
					t.Errorf("unexpected action %s %s", a.Type, a.Path)
					continue
				}
				if !IsLibraryImport(a.Path, a.Content, true) && !IsFrameworkImport(a.Path, a.Content, true) {
					t.Errorf("%s is neither a library nor a framework import:\n%s", a.Path, a.Content)
				}
				for _, w := range want {
					if !strings.Contains(a.Content, w) {
						t.Errorf("%s does not say %q:\n%s", a.Path, w, a.Content)
					}
				}
				if !strings.Contains(fix.Strategy, "write "+a.Path) {
					t.Errorf("strategy %q does not say it writes %s", fix.Strategy, a.Path)
				}
			}
			if len(paths) != len(tt.create) {
				t.Errorf("created %v, want %d files", paths, len(tt.create))
			}
			for _, w := range tt.analysis {
				if !strings.Contains(fix.Analysis, w) {
					t.Errorf("analysis %q\ndoes not say %q", fix.Analysis, w)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			if err := check(fix, "/workspace/p"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
			// With the files written and the plan applied, the same output gets no fix again.
			tree := memTree{}
			for k, v := range tt.tree {
				tree[k] = v
			}
			for _, a := range fix.Actions {
				tree[a.Path] = a.Content
			}
			env.Plan, env.Files, env.ReadFile = fix.Plan, tree.files(), tree.read
			if again, _ := makeCMakeSubdir(context.Background(), f, env); again != nil {
				t.Errorf("the fixed tree gets another fix: %s", again.Strategy)
			}
		})
	}
}

// TestIsLibraryImport tells the import a fix writes for a stripped vendored library
// from a stub that takes its shape: every way a fix could hide a build that compiles
// nothing, or an artifact that is not the package's, behind a library's directory.
func TestIsLibraryImport(t *testing.T) {
	imp := libraryImport{dir: "libdivsufsort", pkg: "libdivsufsort-dev", targets: []string{"divsufsort", "divsufsort64"}}.render()
	tests := []struct {
		name, path, content string
		isNew, want         bool
	}{
		{"the generated import", "external/libdivsufsort/CMakeLists.txt", imp, true, true},
		{"at the top of a nested tree", "libdivsufsort/CMakeLists.txt", imp, true, true},
		{"a versioned directory", "third_party/divsufsort-2.0.1/CMakeLists.txt",
			libraryImport{dir: "divsufsort-2.0.1", pkg: "libdivsufsort-dev", targets: []string{"divsufsort"}}.render(), true, true},

		{"an existing file replaced (the library's own build)", "external/libdivsufsort/CMakeLists.txt", imp, false, false},
		{"the top-level build", "CMakeLists.txt", imp, true, false},
		{"a directory of the package's own", "src/CMakeLists.txt", imp, true, false},
		{"another library's directory", "external/libfoo/CMakeLists.txt", imp, true, false},
		{"not a CMakeLists.txt", "external/libdivsufsort/Makefile", imp, true, false},
		{"a custom command that makes the artifact", "external/libdivsufsort/CMakeLists.txt", imp +
			"add_custom_target(fake ALL COMMAND ${CMAKE_COMMAND} -E copy /bin/true ${CMAKE_BINARY_DIR}/sdsl)\n", true, false},
		{"an imported executable in place of the package's program", "external/libdivsufsort/CMakeLists.txt", imp +
			"add_executable(divsufsort_tool IMPORTED GLOBAL)\n", true, false},
		{"a file written at configure time", "external/libdivsufsort/CMakeLists.txt", imp + "file(WRITE ${CMAKE_BINARY_DIR}/x.c \"int main(){}\")\n", true, false},
		{"a package's own target name taken", "external/libdivsufsort/CMakeLists.txt",
			libraryImport{dir: "libdivsufsort", pkg: "libdivsufsort-dev", targets: []string{"sdsl"}}.render(), true, false},
		{"a target linking a file of the fix's", "external/libdivsufsort/CMakeLists.txt",
			strings.Replace(imp, "${divsufsort_SYSTEM_LIBRARY})", "/tmp/libfake.so)", 1), true, false},
		{"the library looked for under another name", "external/libdivsufsort/CMakeLists.txt",
			strings.Replace(imp, "NAMES divsufsort)", "NAMES fake PATHS /tmp)", 1), true, false},
		{"the configure error dropped", "external/libdivsufsort/CMakeLists.txt",
			strings.Replace(imp, "message(FATAL_ERROR", "message(STATUS", 1), true, false},
		{"an include of other CMake code", "external/libdivsufsort/CMakeLists.txt", imp + "include(/tmp/evil.cmake)\n", true, false},
		{"a subdirectory of more build", "external/libdivsufsort/CMakeLists.txt", imp + "add_subdirectory(../../src fake)\n", true, false},
		{"a command hidden in a comment's place", "external/libdivsufsort/CMakeLists.txt",
			strings.Replace(imp, "# each target", "execute_process(COMMAND touch /tmp/x)\n# each target", 1), true, false},
		{"a package that is no -dev one", "external/libdivsufsort/CMakeLists.txt",
			libraryImport{dir: "libdivsufsort", pkg: "libdivsufsort3", targets: []string{"divsufsort"}}.render(), true, false},
		{"no target", "external/libdivsufsort/CMakeLists.txt",
			libraryImport{dir: "libdivsufsort", pkg: "libdivsufsort-dev"}.render(), true, false},
		{"a path that climbs out of the directory", "libdivsufsort/../CMakeLists.txt", imp, true, false},
		{"empty", "external/libdivsufsort/CMakeLists.txt", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsLibraryImport(tt.path, tt.content, tt.isNew); got != tt.want {
				t.Errorf("IsLibraryImport(%s) = %v, want %v\n%s", tt.path, got, tt.want, tt.content)
			}
		})
	}
}

// TestLibraryStem reads the library a vendored directory's name holds.
func TestLibraryStem(t *testing.T) {
	for _, tt := range []struct{ dir, want string }{
		{"external/libdivsufsort", "divsufsort"}, {"divsufsort-2.0.1", "divsufsort"}, {"libfoo_v2", "foo"},
		{"third_party/libz", "libz"}, {"lib", "lib"}, {"LibXml2", "xml2"}, {"a", ""}, {"foo bar", ""}, {"../lib$(x)", ""},
	} {
		got, ok := libraryStem(tt.dir)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("libraryStem(%q) = %q, %v, want %q", tt.dir, got, ok, tt.want)
		}
	}
}

// FuzzIsLibraryImport: whatever a fix writes, an accepted file is exactly an import of
// targets carrying the directory's library name, with no command that builds or runs.
func FuzzIsLibraryImport(f *testing.F) {
	f.Add("external/libdivsufsort/CMakeLists.txt", libraryImport{dir: "libdivsufsort", pkg: "libdivsufsort-dev", targets: []string{"divsufsort"}}.render())
	f.Add("libfoo/CMakeLists.txt", "add_library(foo INTERFACE)\nmessage(FATAL_ERROR \"install libfoo-dev, which replaces\")\n")
	f.Fuzz(func(t *testing.T, p, content string) {
		if !IsLibraryImport(p, content, true) {
			return
		}
		cmds, err := parseCMake(content)
		if err != nil {
			t.Fatalf("accepted an unparsable file: %v", err)
		}
		allowed := []string{"cmake_policy", "find_package", "find_library", "if", "endif", "message", "add_library",
			"target_link_libraries", "pkg_search_module", "target_include_directories"}
		for _, c := range cmds {
			if !slices.Contains(allowed, c.Name) {
				t.Fatalf("accepted a file with %s():\n%s", c.Name, content)
			}
		}
	})
}
