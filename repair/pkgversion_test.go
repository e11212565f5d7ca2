package repair

import (
	"context"
	"fmt"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
)

// versionReport is CMake's report of a find_package() whose configuration files all
// have versions it does not accept, in CMake 3.31's words and layout (as in
// cmake-version-libbgcode.log); entries are "path, version: v" lines.
func versionReport(file string, line int, pkg, how, requested string, entries ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CMake Error at %s:%d (find_package):\n  Could not find a configuration file for package %q that %s requested version %q.\n\n",
		file, line, pkg, how, requested)
	b.WriteString("  The following configuration files were considered but not accepted:\n\n")
	for _, e := range entries {
		b.WriteString("    " + e + "\n")
	}
	b.WriteString("\n\n\n-- Configuring incomplete, errors occurred!\n")
	return b.String()
}

// The words between "that" and "requested version", wrapped as CMake wraps them.
const compatible, exactly = "is compatible\n  with", "exactly\n  matches"

func TestDependencyVersionLowered(t *testing.T) {
	tests := []struct {
		name string
		log  string
		// message only: the run's one-line error record without the command's output.
		messageOnly bool
		tree        memTree
		diff        []string
		about       []string
		none        string
	}{
		{name: "libbgcode: its tests ask for Catch2 3.8, trixie has 3.7.1 (two files considered)",
			log:  "cmake-version-libbgcode.log",
			tree: memTree{"CMakeLists.txt": "project(LibBGCode)\nadd_subdirectory(tests)\n", "tests/CMakeLists.txt": readLog(t, "cmake/libbgcode-tests.txt")},
			diff: []string{"--- a/tests/CMakeLists.txt\n+++ b/tests/CMakeLists.txt\n@@ -1 +1 @@\n-find_package(Catch2 3.8 REQUIRED)\n+find_package(Catch2 3.7.1 REQUIRED)\n"},
			about: []string{"tests/CMakeLists.txt:1 asks find_package() for Catch2 3.8", "the installed Catch2 is 3.7.1 (/usr/lib/cmake/Catch2/Catch2Config.cmake)",
				"same major version", "lowered to 3.7.1"}},
		{name: "libbgcode's one-line error record alone: the call named after the list",
			log: "cmake-version-libbgcode.log", messageOnly: true,
			tree: memTree{"CMakeLists.txt": "project(LibBGCode)\nadd_subdirectory(tests)\n", "tests/CMakeLists.txt": readLog(t, "cmake/libbgcode-tests.txt")},
			diff: []string{"+find_package(Catch2 3.7.1 REQUIRED)\n"}},
		{name: "several files considered: the newest older release of the same major version",
			log: versionReport("src/CMakeLists.txt", 2, "Foo", compatible, "1.8",
				"/usr/lib/riscv64-linux-gnu/cmake/Foo/FooConfig.cmake, version: 1.6.0",
				"/usr/lib/cmake/Foo/FooConfig.cmake, version: 1.7.1",
				"/opt/foo2/lib/cmake/Foo/FooConfig.cmake, version: 2.0.0",
				"/usr/local/lib/cmake/Foo/FooConfig.cmake, version: unknown"),
			tree:  memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(src)\n", "src/CMakeLists.txt": "add_library(p p.c)\n  find_package( \"Foo\" \"1.8\" CONFIG REQUIRED) # the new API\n"},
			diff:  []string{"@@ -2 +2 @@\n-  find_package( \"Foo\" \"1.8\" CONFIG REQUIRED) # the new API\n+  find_package( \"Foo\" \"1.7.1\" CONFIG REQUIRED) # the new API\n"},
			about: []string{"src/CMakeLists.txt:2", "is 1.7.1 (/usr/lib/cmake/Foo/FooConfig.cmake)"}},
		{name: "an EXACT request is not lowered",
			log:  versionReport("CMakeLists.txt", 2, "Catch2", exactly, "3.8.0", "/usr/lib/cmake/Catch2/Catch2Config.cmake, version: 3.7.1"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Catch2 3.8.0 EXACT REQUIRED)\n"},
			none: "asks for Catch2 3.8.0 EXACT, that release and no other"},
		{name: "EXACT in the call even when the words say compatible",
			log:  versionReport("CMakeLists.txt", 2, "Catch2", compatible, "3.8", "/usr/lib/cmake/Catch2/Catch2Config.cmake, version: 3.7.1"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Catch2 3.8 REQUIRED EXACT)\n"},
			none: "EXACT"},
		{name: "another major version is not lowered to",
			log:  versionReport("CMakeLists.txt", 2, "Catch2", compatible, "3.8", "/usr/lib/cmake/Catch2/Catch2Config.cmake, version: 2.13.10"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Catch2 3.8 REQUIRED)\n"},
			none: "the installed Catch2 is 2.13.10, another major version than the 3.8 asked for"},
		{name: "a version from a variable is not the call's to change",
			log:  versionReport("CMakeLists.txt", 3, "Catch2", compatible, "3.8", "/usr/lib/cmake/Catch2/Catch2Config.cmake, version: 3.7.1"),
			tree: memTree{"CMakeLists.txt": "project(p)\nset(CATCH_VER 3.8)\nfind_package(Catch2 ${CATCH_VER} REQUIRED)\n"},
			none: "takes Catch2's version from ${CATCH_VER}"},
		{name: "a version range is not lowered",
			log: strings.Replace(versionReport("CMakeLists.txt", 2, "Catch2", compatible, "3.8...<4", "/usr/lib/cmake/Catch2/Catch2Config.cmake, version: 3.7.1"),
				"requested version", "requested version range", 1),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Catch2 3.8...<4 REQUIRED)\n"},
			none: "the version range 3.8...<4"},
		{name: "a file unsuitable for another reason (its version file's 32bit note)",
			log:  versionReport("CMakeLists.txt", 2, "Foo", compatible, "1.8", "/usr/lib/cmake/Foo/FooConfig.cmake, version: 1.7.1 (32bit)"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Foo 1.8 REQUIRED)\n"},
			none: "unsuitable for another reason than its version"},
		{name: "a newer release refused by its version file's compatibility is not a lowering",
			log:  versionReport("CMakeLists.txt", 2, "Foo", compatible, "1.8", "/usr/lib/cmake/Foo/FooConfig.cmake, version: 1.9.0"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Foo 1.8 REQUIRED)\n"},
			none: "no installed Foo is an older release of major version 1 than 1.8"},
		{name: "a call in a configuration file outside the tree",
			log: versionReport("/usr/share/cmake-3.31/Modules/CMakeFindDependencyMacro.cmake", 76, "Foo", compatible, "1.8",
				"/usr/lib/cmake/Foo/FooConfig.cmake, version: 1.7.1"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Bar REQUIRED)\n"},
			none: "is not a find_package() call in the package's tree"},
		{name: "a version on the call's second line is not patched",
			log:  versionReport("CMakeLists.txt", 2, "Foo", compatible, "1.8", "/usr/lib/cmake/Foo/FooConfig.cmake, version: 1.7.1"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Foo\n  1.8 REQUIRED)\n"},
			none: "not on the call's first line"},
		{name: "an optional package CMake warned about did not stop the build",
			log: strings.Replace(versionReport("CMakeLists.txt", 2, "Foo", compatible, "1.8", "/usr/lib/cmake/Foo/FooConfig.cmake, version: 1.7.1"),
				"CMake Error at", "CMake Warning at", 1) + "make: *** [Makefile:91: all] Error 2\n",
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Foo 1.8)\n"},
			none: "is optional (a CMake warning), not what stopped the build"},
		{name: "the version CMake reports is not the call's",
			log:  versionReport("CMakeLists.txt", 2, "Foo", compatible, "1.8", "/usr/lib/cmake/Foo/FooConfig.cmake, version: 1.7.1"),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(Foo 1.8.2 REQUIRED)\n"},
			none: `asks for Foo "1.8.2", not the 1.8 CMake reports`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, cmakeBuild)
			if tt.messageOnly {
				f.Output = ""
			}
			env := Env{Platform: debian(t), Plan: cmakePlan(), Files: tt.tree.files(), ReadFile: tt.tree.read}
			if !dependencyVersionRule().claims(f) {
				t.Fatalf("the rule does not claim %q", f.Message)
			}
			fix, why := makeDependencyVersion(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if fix.Plan != nil {
				t.Errorf("the plan changed: %+v", fix.Plan)
			}
			if len(fix.Actions) != 1 || fix.Actions[0].Type != atesor.ActionPatch {
				t.Fatalf("actions %+v, want one patch", fix.Actions)
			}
			for _, w := range tt.diff {
				if !strings.Contains(fix.Actions[0].Diff, w) {
					t.Errorf("diff\n%s\ndoes not say\n%s", fix.Actions[0].Diff, w)
				}
			}
			for _, w := range tt.about {
				if !strings.Contains(fix.Analysis, w) {
					t.Errorf("analysis %q\ndoes not say %q", fix.Analysis, w)
				}
			}
			if !strings.HasPrefix(fix.Strategy, "lower ") {
				t.Errorf("strategy %q", fix.Strategy)
			}
		})
	}
}

// TestDependencyVersionPropose runs the table as the graph does on libbgcode's real
// configure output: this rule, not a later one, answers it, and the patch applies.
func TestDependencyVersionPropose(t *testing.T) {
	log := readLog(t, "cmake-version-libbgcode.log")
	ev := buildlog.Extract(log)
	f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: log, Phase: "build", Command: cmakeBuild}
	tests := readLog(t, "cmake/libbgcode-tests.txt")
	tree := memTree{"CMakeLists.txt": "project(LibBGCode)\nadd_subdirectory(tests)\n", "tests/CMakeLists.txt": tests}
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: cmakePlan(), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "dependency-version-lowered" {
		t.Fatalf("Propose = %+v (notes %q)", fix, notes)
	}
	got := applyLineDiff(t, tests, fix.Actions[0].Diff)
	want := strings.Replace(tests, "find_package(Catch2 3.8 REQUIRED)", "find_package(Catch2 3.7.1 REQUIRED)", 1)
	if got != want {
		t.Errorf("patched tests/CMakeLists.txt:\n%s\nwant\n%s", got, want)
	}
}

func TestVersionRejections(t *testing.T) {
	got := versionRejections(readLog(t, "cmake-version-libbgcode.log"))
	if len(got) != 1 {
		t.Fatalf("%d reports, want 1: %+v", len(got), got)
	}
	r := got[0]
	if r.pkg != "Catch2" || r.requested != "3.8" || r.exact || r.isRange || r.file != "tests/CMakeLists.txt" || r.line != 1 {
		t.Errorf("report %+v", r)
	}
	want := []consideredConfig{{file: "/usr/lib/cmake/Catch2/Catch2Config.cmake", version: "3.7.1"}, {file: "/lib/cmake/Catch2/Catch2Config.cmake", version: "3.7.1"}}
	if fmt.Sprint(r.considered) != fmt.Sprint(want) {
		t.Errorf("considered %+v, want %+v", r.considered, want)
	}
}

func FuzzVersionRejections(f *testing.F) {
	f.Add(readLog(f, "cmake-version-libbgcode.log"))
	f.Add(versionReport("CMakeLists.txt", 2, "Foo", exactly, "1.8", "/a, version: 1.7.1 (32bit)", "/b, version: unknown"))
	f.Add(`Could not find a configuration file for package "x" that is compatible with requested version range "1...<2". The following configuration files were considered but not accepted: /p, version: 1.0 CMake Error at a:1 (find_package):`)
	f.Fuzz(func(t *testing.T, text string) {
		reps := versionRejections(text)
		if len(reps) > maxVersionReports {
			t.Fatalf("%d reports", len(reps))
		}
		for _, r := range reps {
			if r.pkg == "" || r.requested == "" || len(r.considered) > maxVersionConsidered || (r.file == "") != (r.line == 0) || r.line < 0 || (r.optional && r.file == "") {
				t.Fatalf("report %+v", r)
			}
			if c, why := r.lowerTo(); why == "" && c.version == "" {
				t.Fatalf("lowered to nothing: %+v", r)
			}
		}
	})
}
