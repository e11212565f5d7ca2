package gotool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

func TestWithGoArtifacts(t *testing.T) {
	goDet := &atesor.Detection{BuildSystem: atesor.BuildGo, GoArtifacts: []string{"bin/tool", "bin/toolctl", "bin/srv"}}
	many := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	tests := []struct {
		name     string
		expected []string
		det      *atesor.Detection
		want     []string
	}{
		{"fallback", []string{}, goDet, []string{"bin/tool", "bin/toolctl", "bin/srv"}},
		{"model named one", []string{"tool"}, goDet, []string{"tool", "bin/toolctl", "bin/srv"}},
		{"cap", many, goDet, append(append([]string{}, many...), "bin/tool")},
		{"not go", []string{"x"}, &atesor.Detection{BuildSystem: atesor.BuildCMake, GoArtifacts: []string{"bin/y"}}, []string{"x"}},
		{"no detection", []string{"x"}, nil, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, WithArtifacts(tt.expected, tt.det)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestWithPlanGoTags(t *testing.T) {
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"go build -tags=purego,noasm -o bin/ ."}}}}
	got := WithPlanTags([]string{"GOTOOLCHAIN=auto go test ./...", "make check"}, plan)
	if d := cmp.Diff([]string{"GOTOOLCHAIN=auto go test -tags=purego,noasm ./...", "make check"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := WithPlanTags([]string{"go test ./..."}, &atesor.BuildPlan{}); got[0] != "go test ./..." {
		t.Errorf("no tags: %q", got)
	}
	if got := WithPlanTags([]string{"go test ./..."}, nil); got[0] != "go test ./..." {
		t.Errorf("no plan: %q", got)
	}
}

// TestWithPlanVetOff: a plan whose go test turns vet off (Go packages with no go.mod)
// runs the package's tests that way too; go build's lines and other commands stay.
func TestWithPlanVetOff(t *testing.T) {
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "go-mod", Commands: []string{"test -f go.mod || GOTOOLCHAIN=auto go mod init github.com/pmezard/go-difflib"}},
		{Name: "build", Commands: []string{"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./..."}},
	}}
	got := WithPlanTags([]string{"GOTOOLCHAIN=auto go test ./...", "go test -vet=all ./x", "make check"}, plan)
	if d := cmp.Diff([]string{"GOTOOLCHAIN=auto go test -vet=off ./...", "go test -vet=all ./x", "make check"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	plan.Phases[1].Commands = []string{"go build ./... && echo -vet=off"}
	if got := WithPlanTags([]string{"go test ./..."}, plan); got[0] != "go test ./..." {
		t.Errorf("vet is on in the plan's go test: %q", got)
	}
}

// TestWithPlanPackages: a plan that names its packages in place of ./... gives the
// tests and the install step the same lists.
func TestWithPlanPackages(t *testing.T) {
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{
		"GOTOOLCHAIN=auto go build -buildvcs=false . ./lib && GOTOOLCHAIN=auto go test -c -o bin/ . ./lib ./onlytests"}}}}
	got := WithPlanTags([]string{"GOTOOLCHAIN=auto go test ./...", "GOBIN=/s go install -buildvcs=false ./...", "make check"}, plan)
	want := []string{"GOTOOLCHAIN=auto go test . ./lib ./onlytests", "GOBIN=/s go install -buildvcs=false . ./lib", "make check"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
