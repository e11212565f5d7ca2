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

// ghodssBuild is the default module plan's build line of the real ghodss/yaml run.
const ghodssBuild = "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..."

// TestGoVetOffReal runs the rule on the real golang-github-ghodss-yaml build output
// (go test -c stopped by the tests analyzer's report on yaml_go110_test.go), through
// Claims as the graph does: the plan's go test gets -vet=off, and the go build before it
// is left as it was. It declines for a plan whose go test already sets -vet, and for a
// failing command that is no go test.
func TestGoVetOffReal(t *testing.T) {
	out := readLog(t, "go-vet-ghodss-yaml.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: strings.TrimSpace(out), Output: out, Phase: "build", Command: ghodssBuild, Packaged: true}
	want := []string{"./yaml_go110_test.go:91:1: ExampleUnknown refers to unknown identifier: Unknown"}
	if got := goVetDiagnostics(out); !slices.Equal(got, want) {
		t.Fatalf("diagnostics %q, want %q", got, want)
	}
	if claims := Claims(f, nil); len(claims) == 0 || claims[0] != goVetOffRuleName {
		t.Fatalf("claims %v, want %s first", claims, goVetOffRuleName)
	}
	plan := func(build string) *atesor.BuildPlan {
		return &atesor.BuildPlan{Phases: []atesor.Phase{
			{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go golang-any golang-gopkg-yaml.v2-dev"}},
			{Name: "build", Commands: []string{build}},
		}}
	}
	tests := []struct {
		name    string
		plan    *atesor.BuildPlan
		command string
		none    string
		build   string
	}{
		{name: "ghodss/yaml", plan: plan(ghodssBuild), command: ghodssBuild,
			build: "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./..."},
		{name: "vet already set", plan: plan(strings.Replace(ghodssBuild, "go test", "go test -vet=atomic", 1)), command: ghodssBuild,
			none: "already set -vet"},
		{name: "make runs the tests", plan: plan("make check"), command: "make check", none: "runs no go test of the plan"},
		{name: "no plan", command: ghodssBuild, none: "no build plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := f
			f.Command = tt.command
			fix, why := makeGoVetOff(context.Background(), f, Env{Plan: tt.plan})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if d := cmp.Diff(plan(tt.build).Phases, fix.Plan.Phases); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			for _, c := range fix.Plan.Commands() {
				if err := validate.PlanLine(c); err != nil {
					t.Errorf("%q does not validate: %v", c, err)
				}
			}
			if !GoVetsOff(*fix.Plan) {
				t.Errorf("the fixed plan does not turn vet off for the tests to follow")
			}
			if !strings.Contains(fix.Analysis, want[0]) || !strings.Contains(fix.Analysis, "dh-golang") {
				t.Errorf("analysis %q", fix.Analysis)
			}
		})
	}
}

// TestGoVetDiagnostics reads vet's reports and no other tool's: a compile error of the
// test variant ("# P [P.test]"), a cgo run's C compiler error under the same two-line
// header, headers naming two packages.
func TestGoVetDiagnostics(t *testing.T) {
	tests := []struct {
		out  string
		want []string
	}{
		{"# example.com/m\n# [example.com/m]\n./a_test.go:10:2: fmt.Sprintf format %d has arg x of wrong type string\n./b_test.go:3:1: more",
			[]string{"./a_test.go:10:2: fmt.Sprintf format %d has arg x of wrong type string"}},
		{"# example.com/m\n# [example.com/m]\nvet: ./a_test.go:4:2: undefined: y", []string{"vet: ./a_test.go:4:2: undefined: y"}},
		{"# example.com/a\n# [example.com/a]\n./a.go:1:1: x\n# example.com/b\n# [example.com/b]\n./b.go:2:2: y", []string{"./a.go:1:1: x", "./b.go:2:2: y"}},
		{"# example.com/m [example.com/m.test]\n./a_test.go:4:2: undefined: y", nil},
		{"# example.com/m\n# [example.com/m]\n./a.go:4:2: error: unknown type name 'foo'", nil},
		{"# example.com/m\n# [example.com/other]\n./a.go:4:2: x", nil},
		{"main.go:3:2: undefined: x", nil},
	}
	for _, tt := range tests {
		if got := goVetDiagnostics(tt.out); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.out, got, tt.want)
		}
	}
}
