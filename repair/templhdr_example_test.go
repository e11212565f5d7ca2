package repair

import (
	"context"
	"os"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestTemplateHeaderExample runs the rule table on lwip 2.2.1's real log: its example
// application includes "lwipcfg.h", which the tree ships only as lwipcfg.h.example for
// the user to copy (its CMake build says so). template-header copies the example,
// unchanged, beside the file that includes it with quotes (also from the tree's one
// example of that name elsewhere); a tree with no example, or with the header already
// in it, gets no fix.
func TestTemplateHeaderExample(t *testing.T) {
	log, err := os.ReadFile("testdata/template-header-example-lwip.log")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("testdata/templhdr/lwip/contrib/examples/example_app/lwipcfg.h.example")
	if err != nil {
		t.Fatal(err)
	}
	const dir = "contrib/examples/example_app/"
	tests := []struct {
		name string
		tree memTree
		none string
	}{
		{"the example beside the includer", memTree{"CMakeLists.txt": "project(lwIP)\n", dir + "test.c": "#include \"lwipcfg.h\"\n", dir + "lwipcfg.h.example": string(example)}, ""},
		{"the tree's one example elsewhere", memTree{"CMakeLists.txt": "project(lwIP)\n", dir + "test.c": "#include \"lwipcfg.h\"\n", "doc/lwipcfg.h.example": string(example)}, ""},
		{"no example", memTree{"CMakeLists.txt": "project(lwIP)\n", dir + "test.c": "#include \"lwipcfg.h\"\n", dir + "lwipcfg.h.txt": string(example)}, "no template of lwipcfg.h"},
		{"the header already there", memTree{"CMakeLists.txt": "project(lwIP)\n", dir + "test.c": "#include \"lwipcfg.h\"\n", dir + "lwipcfg.h.example": string(example), dir + "lwipcfg.h": "x"}, "lwipcfg.h is in the tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.ClassifyError(string(log)), Message: string(log), Phase: "build"}
			env := Env{Platform: debian(t), Files: tt.tree.files(), ReadFile: tt.tree.read, Plan: defaultPlan("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)")}
			fix, why := makeTemplateHeader(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if len(fix.Actions) != 1 || fix.Actions[0].Type != atesor.ActionCreateFile || fix.Actions[0].Path != dir+"lwipcfg.h" || fix.Actions[0].Content != string(example) {
				t.Fatalf("actions %+v, want %slwipcfg.h created as the example's copy", fix.Actions, dir)
			}
			wantSays(t, fix.Analysis, []string{"example configuration", "lwipcfg.h.example"})
			if p, notes := Propose(context.Background(), f, env, nil); p == nil || p.Rule != templateHeaderRuleName {
				t.Fatalf("Propose = %+v, notes %q; want %s", p, notes, templateHeaderRuleName)
			}
			if err := check(fix, "/workspace/lwip"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
		})
	}
}
