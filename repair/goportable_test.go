package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestGoRules runs the rules on real go build output, through Propose as the graph does:
// an assembly-only implementation gets the portable tags; a cgo package's missing C
// dependency is the distro package the Contents index names.
func TestGoRules(t *testing.T) {
	p := debian(t)
	idx := excerptIndex(t)
	goPlan := defaultPlan("GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ .")
	tests := []struct {
		name     string
		log      string
		det      *atesor.Detection
		plan     *atesor.BuildPlan
		rule     string
		actions  []string
		planLine string
	}{
		{name: "missing function body", log: "go-missing-body.log", det: &atesor.Detection{BuildSystem: atesor.BuildGo, GoPortableTags: []string{"purego"}},
			plan: goPlan, rule: "go-portable-tags", planLine: "GOTOOLCHAIN=auto go build -tags=purego,noasm -buildvcs=false -o bin/ ."},
		{name: "undefined behind tags, module switch", log: "go-undefined.log", det: &atesor.Detection{BuildSystem: atesor.BuildGo, GoPortableTags: []string{"appengine"}},
			plan: defaultPlan("go build ./... && go test -c -o bin/ ./..."), rule: "go-portable-tags",
			planLine: "go build -tags=appengine,purego,noasm ./... && go test -tags=appengine,purego,noasm -c -o bin/ ./..."},
		{name: "existing tags merged", log: "go-undefined.log", plan: defaultPlan("go build -tags 'netgo' -o bin/ ."), rule: "go-portable-tags",
			planLine: "go build -tags=netgo,purego,noasm -o bin/ ."},
		{name: "cgo header", log: "cgo-missing-header.log", plan: goPlan, rule: "missing-package", actions: []string{"apt-get install -y libpopt-dev"}},
		{name: "cgo pkg-config", log: "cgo-missing-pc.log", plan: goPlan, rule: "missing-package", actions: []string{"apt-get install -y libcurl4-gnutls-dev"}},
		{name: "cgo without gcc", log: "cgo-no-gcc.log", plan: goPlan, rule: "missing-package", actions: []string{"apt-get install -y gcc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := readLog(t, tt.log)
			f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: tt.plan.Phases[1].Commands[0]}
			env := Env{Platform: p, Plan: tt.plan, Packages: idx, Detection: tt.det}
			fix, notes := Propose(context.Background(), f, env, nil)
			if fix == nil {
				t.Fatalf("no fix; claims %v, notes %v", Claims(f, nil), notes)
			}
			if fix.Rule != tt.rule {
				t.Fatalf("rule %s, want %s (notes %v)", fix.Rule, tt.rule, notes)
			}
			var got []string
			for _, a := range fix.Actions {
				got = append(got, a.Command)
				if err := validate.FixCommand(a.Command); err != nil {
					t.Errorf("action %q fails the fix validation: %v", a.Command, err)
				}
			}
			if d := cmp.Diff(tt.actions, got); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
			if tt.planLine == "" {
				return
			}
			if fix.Plan == nil {
				t.Fatal("no new plan")
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build phase = %q, want %q", got, tt.planLine)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			if tt.plan.Phases[1].Commands[0] == tt.planLine {
				t.Error("the rule changed the caller's plan in place")
			}
			if !strings.Contains(fix.Strategy, "-tags=") {
				t.Errorf("strategy %q does not name the tags (the recipe records it)", fix.Strategy)
			}
			// Once the plan has the tags, the rule has nothing left to try.
			env.Plan = fix.Plan
			if again, _ := Propose(context.Background(), f, env, nil); again != nil && again.Rule == tt.rule {
				t.Errorf("the rule fired again on a plan that has its tags: %+v", again.Plan)
			}
		})
	}
}

func TestWithGoTags(t *testing.T) {
	tags := []string{"purego", "noasm"}
	for in, want := range map[string]string{
		"go build ./...":                         "go build -tags=purego,noasm ./...",
		"cd m && GOTOOLCHAIN=auto go test ./...": "cd m && GOTOOLCHAIN=auto go test -tags=purego,noasm ./...",
		"go build -tags=x,purego .":              "go build -tags=x,purego,noasm .",
		`go vet -tags "a b" ./...`:               `go vet -tags=a,b,purego,noasm ./...`,
		"go mod download":                        "go mod download",
		"make -j4":                               "make -j4",
		"cargo build":                            "cargo build",
		"echo go builder":                        "echo go builder",
	} {
		if got := WithGoTags(in, tags); got != want {
			t.Errorf("WithGoTags(%q) = %q, want %q", in, got, want)
		}
	}
	plan := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "b", Commands: []string{"go build -tags=a,b .", "go test -tags c ./..."}}}}
	if d := cmp.Diff([]string{"a", "b", "c"}, GoTags(plan)); d != "" {
		t.Errorf("GoTags (-want +got):\n%s", d)
	}
}

func FuzzWithGoTags(f *testing.F) {
	f.Add("go build -tags=x ./... && go test ./...")
	f.Add(`go vet -tags "a b" ./...`)
	f.Fuzz(func(t *testing.T, line string) {
		tags := []string{"purego"}
		out := WithGoTags(line, tags)
		if again := WithGoTags(out, tags); again != out {
			t.Errorf("not idempotent: %q -> %q -> %q", line, out, again)
		}
		if out != line {
			plan := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "b", Commands: []string{out}}}}
			if !slices.Contains(GoTags(plan), "purego") {
				t.Errorf("changed %q to %q without adding the tag", line, out)
			}
		}
	})
}
