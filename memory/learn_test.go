package memory_test

import (
	"context"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// recorder is a MemoryStore that keeps what is saved.
type recorder struct {
	saved   []atesor.Agent
	recipes []atesor.CachedRecipe
}

var _ atesor.MemoryStore = (*recorder)(nil)

func (r *recorder) Relevant(context.Context, atesor.Agent, atesor.Query, int) ([]atesor.Example, error) {
	return nil, nil
}

func (r *recorder) Save(_ context.Context, a atesor.Agent, _ atesor.Example) (bool, error) {
	r.saved = append(r.saved, a)
	return true, nil
}

func (r *recorder) Recipe(context.Context, string, string) (*atesor.CachedRecipe, error) {
	return nil, nil
}

func (r *recorder) SaveRecipe(_ context.Context, c atesor.CachedRecipe) error {
	r.recipes = append(r.recipes, c)
	return nil
}

func verifiedPort() *atesor.State {
	return &atesor.State{
		RunPart:       atesor.RunPart{RepoName: "zlib"},
		RoutePart:     atesor.RoutePart{Status: atesor.StatusVerified},
		DetectionPart: atesor.DetectionPart{Detection: &atesor.Detection{BuildSystem: atesor.BuildMake}},
		PlanPart:      atesor.PlanPart{Plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "a"}, {Name: "b"}, {Name: "c"}}}, PlanSource: "scout"},
		FixPart: atesor.FixPart{
			FixAttempts: []atesor.FixAttempt{
				{Attempt: 1, Error: "a.c: error: x (y)", Success: false, Commands: []string{"make clean"}},
				{Attempt: 2, Error: "a.c: error: x (y)", Success: true, Actions: []atesor.Action{{Type: atesor.ActionPatch, File: "a.c"}}},
			},
			Patches: []atesor.Patch{{File: "a.c", Diff: "--- a/a.c\n"}},
		},
		VerifyPart: atesor.VerifyPart{Verified: true, Artifacts: []atesor.Artifact{{Path: "/w/libz.so", Role: atesor.ArtifactPrimary}, {Path: "/w/x.o"}}},
	}
}

// A verified port teaches the scout its plan, the fixer each proven fix and the
// builder its phases; its cache entry holds the plan, patches and primary artifacts.
func TestExamplesAndRecipeFrom(t *testing.T) {
	s := verifiedPort()
	ls := memory.ExamplesFrom(s)
	if len(ls) != 3 || ls[0].Agent != atesor.AgentScout || ls[1].Agent != atesor.AgentFixer || ls[2].Agent != atesor.AgentBuilder {
		t.Fatalf("lessons %+v", ls)
	}
	fix := ls[1].Example
	if fix.Name != "Auto: zlib fix 2" || fix.ErrorPattern != `a\.c: error: x \(y\)` || len(fix.Fix.Actions) != 1 || fix.Fix.Actions[0].Type != atesor.ActionPatch {
		t.Errorf("fixer example %+v", fix)
	}
	if ls[2].Example.TimeoutRecommendation != "600s" || ls[0].Example.Trigger.BuildSystem != atesor.BuildMake {
		t.Errorf("builder %+v, scout %+v", ls[2].Example, ls[0].Example)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	e := memory.RecipeFrom(s, "/src/zlib", at)
	if e.Source != "/src/zlib" || !e.Verified || len(e.Artifacts) != 1 || len(e.Patches) != 1 || len(e.Plan.Phases) != 3 ||
		e.LastBuilt.Location() != time.UTC || !e.LastBuilt.Equal(at) || e.TestsFailing {
		t.Errorf("entry %+v", e)
	}
}

// A port whose tests fail after source fixes teaches no example; its entry is marked.
func TestLearnTestsFailing(t *testing.T) {
	s := verifiedPort()
	var rec recorder
	memory.Learn(context.Background(), &rec, s, "src", time.Now(), nil)
	if len(rec.saved) != 3 || len(rec.recipes) != 1 {
		t.Fatalf("saved %v, recipes %d", rec.saved, len(rec.recipes))
	}
	s.Status = atesor.StatusTestsFailing
	rec = recorder{}
	memory.Learn(context.Background(), &rec, s, "src", time.Now(), nil)
	if len(rec.saved) != 0 || len(rec.recipes) != 1 || !rec.recipes[0].TestsFailing {
		t.Errorf("tests failing: saved %v, recipes %+v", rec.saved, rec.recipes)
	}
	s.Verified = false
	rec = recorder{}
	memory.Learn(context.Background(), &rec, s, "src", time.Now(), nil)
	if len(rec.saved) != 0 || len(rec.recipes) != 0 {
		t.Errorf("an unverified port taught %v", rec)
	}
}
