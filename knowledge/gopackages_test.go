package knowledge_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestWithGoPackages: only the ./... of go build, install, vet, list and test become the
// lists; flag values, other patterns, other programs and quoted words stay.
func TestWithGoPackages(t *testing.T) {
	build, test := []string{".", "./a b"}, []string{".", "./a b", "./t"}
	tests := []struct{ in, want string }{
		{"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./...",
			"GOTOOLCHAIN=auto go build -buildvcs=false . './a b' && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ . './a b' ./t"},
		{"cd sub && go install ./...", "cd sub && go install . './a b'"},
		{"go test -run ./... ./...", "go test -run ./... . './a b' ./t"},
		{"go vet ./pkg/... && echo ./...", "go vet ./pkg/... && echo ./..."},
		{"go test './...'", "go test './...'"},
		{"go test ./... -args ./...", "go test . './a b' ./t -args ./..."},
		{"go mod tidy ./...", "go mod tidy ./..."},
		{"make test", "make test"},
	}
	for _, tt := range tests {
		if got := knowledge.WithGoPackages(tt.in, build, test); got != tt.want {
			t.Errorf("WithGoPackages(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := knowledge.WithGoPackages("go build ./...", nil, test); got != "go build ./..." {
		t.Errorf("no build list: %q", got)
	}
}

// TestGoPlanPackages: a plan's lists are read back only when no go command builds a
// ... pattern and a go test names a list.
func TestGoPlanPackages(t *testing.T) {
	plan := func(lines ...string) *atesor.BuildPlan {
		return &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: lines}}}
	}
	tests := []struct {
		name        string
		plan        *atesor.BuildPlan
		build, test []string
		ok          bool
	}{
		{"lists", plan("go build -o bin/ . './a b' && go test -c -o bin/ . ./t"), []string{".", "./a b"}, []string{".", "./t"}, true},
		{"a pattern", plan("go build . && go test ./..."), nil, nil, false},
		{"a sub pattern", plan("go build ./x/... && go test ./y"), nil, nil, false},
		{"commands only", plan("go build -o bin/ ./cmd/tool"), []string{"./cmd/tool"}, nil, false},
		{"import paths are no directories", plan("go test example.org/x ./y"), nil, []string{"./y"}, true},
		{"no plan", nil, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, te, ok := knowledge.GoPlanPackages(tt.plan)
			if ok != tt.ok || (ok && (!cmp.Equal(b, tt.build) || !cmp.Equal(te, tt.test))) {
				t.Errorf("got %q %q %t, want %q %q %t", b, te, ok, tt.build, tt.test, tt.ok)
			}
		})
	}
}

// TestGoPathInstallLineLists: the install step of a GOPATH plan that names its packages
// builds that list, into the stage only when one of the module's commands is in it.
func TestGoPathInstallLineLists(t *testing.T) {
	det := &atesor.Detection{BuildSystem: atesor.BuildGo, GoNoModFile: true, GoModulePath: "github.com/o/p", HasMain: true,
		MainPath: "examples", GoCommands: []string{"cmd/p"}}
	plan := func(build string) *atesor.BuildPlan {
		return &atesor.BuildPlan{Phases: []atesor.Phase{{Name: knowledge.GoPathPhase, Commands: []string{"mkdir -p .gopath/src/example.org"}},
			{Name: "build", Commands: []string{"go build " + build + " && go test -c -o bin/ " + build}}}}
	}
	got, ok := knowledge.GoPathInstallLine(det, plan(". ./cmd/p"), "/s/bin")
	if !ok || !strings.HasSuffix(got, " go build -buildvcs=false -o /s/bin/ . ./cmd/p") {
		t.Errorf("with a command: %q %t", got, ok)
	}
	if err := validate.PlanLine(got); err != nil {
		t.Errorf("the install line does not validate: %v", err)
	}
	got, ok = knowledge.GoPathInstallLine(det, plan(". ./internal/x"), "/s/bin")
	if !ok || !strings.HasSuffix(got, " go build -buildvcs=false . ./internal/x") {
		t.Errorf("without a command: %q %t", got, ok)
	}
	got, _ = knowledge.GoPathInstallLine(det, plan("./..."), "/s/bin")
	if !strings.HasSuffix(got, " go build -buildvcs=false -o /s/bin/ ./...") {
		t.Errorf("the whole tree: %q", got)
	}
}
