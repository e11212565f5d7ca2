package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestDefaultPlansPassValidation runs every default plan through the scout's plan rules:
// a plan the pipeline makes by itself must be one it would accept from a model, with no
// test command to strip.
func TestDefaultPlansPassValidation(t *testing.T) {
	trees, err := os.ReadDir("../testdata/trees")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"debian", "alpine"} {
		p, _ := knowledge.Profile(name)
		for _, tr := range trees {
			if !tr.IsDir() {
				continue // README.md
			}
			det, err := knowledge.Detect(context.Background(), filepath.Join("../testdata/trees", tr.Name()))
			if err != nil {
				t.Fatal(err)
			}
			plan, tests, err := knowledge.DefaultPlan(det, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate.BuildPlan(&plan); err != nil {
				t.Errorf("%s/%s: default plan rejected: %v\n%q", name, tr.Name(), err, plan.Commands())
			}
			if _, removed := validate.StripTestCommands(plan); len(removed) > 0 {
				t.Errorf("%s/%s: default plan holds test commands %q", name, tr.Name(), removed)
			}
			for _, c := range tests {
				if err := validate.PlanLine(c); err != nil {
					t.Errorf("%s/%s: test command %q rejected: %v", name, tr.Name(), c, err)
				}
			}
		}
		if err := validate.BuildPlan(ptr(knowledge.DiscoveryPlan(p))); err != nil {
			t.Errorf("%s: discovery plan rejected: %v", name, err)
		}
	}
}

func ptr(p atesor.BuildPlan) *atesor.BuildPlan { return &p }
