package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestCMakeSubdirLeftOut(t *testing.T) {
	arpon := readLog(t, "cmake/arpon-3.0-ng.txt")
	tests := []struct {
		name  string
		log   string
		tree  memTree
		diff  []string // what the patch says, when there is one
		about []string // what the analysis says
		none  string   // the reason when no fix is made
	}{
		{name: "arpon: the repack has no doc/, added on line 118 with nothing that gates it",
			log:  "cmake-subdir-arpon.log",
			tree: memTree{"CMakeLists.txt": arpon, "src/CMakeLists.txt": "add_executable(arpon arpon.c)\n", "src/arpon.c": "", "man8/CMakeLists.txt": ""},
			diff: []string{"--- a/CMakeLists.txt\n+++ b/CMakeLists.txt\n@@ -118 +118 @@\n-add_subdirectory(doc)\n+# add_subdirectory(doc) # left out: doc/ is not in this source\n"},
			about: []string{"CMakeLists.txt:118 adds doc, which the tarball lacks", "no option of the build leaves it out",
				"only adds the package's docs"}},
		{name: "an examples directory in a subdirectory's CMakeLists.txt, under a platform check",
			log: cmakeError("lib/CMakeLists.txt", 3, "/workspace/p/lib/examples", false),
			tree: memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(lib)\n",
				"lib/CMakeLists.txt": "add_library(p p.c)\nif(UNIX)\n  add_subdirectory(\"examples\")   # samples\nendif()\n", "lib/p.c": ""},
			diff: []string{"@@ -3 +3 @@\n-  add_subdirectory(\"examples\")   # samples\n+#   add_subdirectory(\"examples\")   # samples # left out: lib/examples/ is not in this source\n"}},
		{name: "a source directory is never left out",
			log:  cmakeError("CMakeLists.txt", 2, "/workspace/p/src", false),
			tree: memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(src)\n"},
			none: "calls add_subdirectory(src) unconditionally"},
		{name: "a docs directory the tarball has (without its CMakeLists.txt) is not left out",
			log:  cmakeError("CMakeLists.txt", 2, "/workspace/p/doc", true),
			tree: memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(doc)\n", "doc/manual.txt": ""},
			none: "unconditionally"},
		{name: "a call that shares its line with another command is not commented out",
			log:  cmakeError("CMakeLists.txt", 2, "/workspace/p/doc", false),
			tree: memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(doc) add_subdirectory(src)\n"},
			none: "unconditionally"},
		{name: "a libtest/ directory may be a library the build links: not left out",
			log:  cmakeError("CMakeLists.txt", 2, "/workspace/p/libtest", false),
			tree: memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(libtest)\n"},
			none: "unconditionally"},
		{name: "a call through a variable is not commented out",
			log:  cmakeError("CMakeLists.txt", 3, "/workspace/p/doc", false),
			tree: memTree{"CMakeLists.txt": "project(p)\nset(D doc)\nadd_subdirectory(${D})\n"},
			none: "unconditionally"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, cmakeBuild)
			env := Env{Platform: debian(t), Plan: cmakePlan(), Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeCMakeSubdir(context.Background(), f, env)
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
			if !strings.Contains(fix.Strategy, "comment out") {
				t.Errorf("strategy %q", fix.Strategy)
			}
		})
	}
}
