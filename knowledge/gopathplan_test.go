package knowledge_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// cznicB detects the real GOPATH-era tree under testdata/gopath/cznic-b with the
// Go-Import-Path of its Debian source, and reads that source's real Build-Depends.
func cznicB(t *testing.T) (*atesor.Detection, []string) {
	t.Helper()
	dir := filepath.Join("testdata", "gopath", "cznic-b")
	det, err := knowledge.DetectWith(t.Context(), dir, knowledge.DetectOptions{
		GoModulePath: "github.com/cznic/b", GoModulePathFrom: "the Go-Import-Path of debian golang-github-cznic-b"})
	if err != nil {
		t.Fatal(err)
	}
	field, err := os.ReadFile(filepath.Join(dir, "build-depends.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return det, debsrc.BuildDepends(string(field), "riscv64")
}

// TestGoPathPlanCznicB: the GOPATH plan of a real tree whose tests import the
// distribution's Go packages, line by line, and each line passes the plan validator.
func TestGoPathPlanCznicB(t *testing.T) {
	det, deps := cznicB(t)
	deb, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := knowledge.DefaultPlan(det, deb); !errors.Is(err, knowledge.ErrGoImportsWithoutModule) {
		t.Fatalf("the default plan: %v, want the imports no go.mod requires", err)
	}
	devs := knowledge.GoDevPackages(deps)
	if d := cmp.Diff([]string{"golang-github-cznic-fileutil-dev", "golang-github-cznic-mathutil-dev", "golang-github-cznic-strutil-dev"}, devs); d != "" {
		t.Fatalf("golang-*-dev packages of %v (-want +got):\n%s", deps, d)
	}
	plan, tests, err := knowledge.GoPathPlan(det, deb, devs)
	if err != nil {
		t.Fatal(err)
	}
	env := `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/cznic/b && `
	want := []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go golang-github-cznic-fileutil-dev golang-github-cznic-mathutil-dev golang-github-cznic-strutil-dev"}},
		{Name: knowledge.GoPathPhase, Commands: []string{"mkdir -p .gopath/src/github.com/cznic && ln -sfn ../../../.. .gopath/src/github.com/cznic/b"}},
		{Name: "build", Commands: []string{env + "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./..."}},
	}
	if d := cmp.Diff(want, plan.Phases); d != "" {
		t.Errorf("phases (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{env + "GOTOOLCHAIN=auto go test -vet=off ./..."}, tests); d != "" {
		t.Errorf("tests (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"bin/b.test", "bin/example.test"}, det.GoArtifacts); d != "" {
		t.Errorf("artifacts (-want +got):\n%s", d)
	}
	for _, s := range []string{"github.com/cznic/mathutil (all_test.go)", "github.com/cznic/fileutil (example/all_test.go)", "GO111MODULE=off", "Go-Import-Path of debian golang-github-cznic-b"} {
		if !strings.Contains(plan.Reasoning, s) {
			t.Errorf("the reasoning does not say %q: %s", s, plan.Reasoning)
		}
	}
	if err := validate.BuildPlan(&plan); err != nil {
		t.Errorf("the plan does not validate: %v", err)
	}
	for _, c := range tests {
		if err := validate.PlanLine(c); err != nil {
			t.Errorf("the test line %q does not validate: %v", c, err)
		}
	}

	// The link climbs back to the repository from its own directory, whatever the depth.
	det.GoModulePath = "example.org/x"
	plan, _, err = knowledge.GoPathPlan(det, deb, devs)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Phases[1].Commands[0]; got != "mkdir -p .gopath/src/example.org && ln -sfn ../../.. .gopath/src/example.org/x" {
		t.Errorf("layout of a two-element import path: %q", got)
	}
}

// TestGoPathPlanRefuses: no GOPATH plan without the distribution's Go packages, for a
// tree with a go.mod, or for an import path a shell would read as more than a path.
func TestGoPathPlanRefuses(t *testing.T) {
	deb, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	devs := []string{"golang-github-cznic-mathutil-dev"}
	tests := []struct {
		name string
		edit func(*atesor.Detection)
		devs []string
		want string
	}{
		{"no golang-*-dev Build-Depends", func(*atesor.Detection) {}, []string{"dh-golang", "golang-go", "libgolang-dev-x"}, "no golang-*-dev package"},
		{"no Build-Depends", func(*atesor.Detection) {}, nil, "no golang-*-dev package"},
		{"a module tree", func(d *atesor.Detection) { d.GoNoModFile = false }, devs, "no go.mod"},
		{"not Go", func(d *atesor.Detection) { d.BuildSystem = atesor.BuildMake }, devs, "no go.mod"},
		{"no import path", func(d *atesor.Detection) { d.GoModulePath = "" }, devs, "no module path is known"},
		{"shell in the import path", func(d *atesor.Detection) { d.GoModulePath = "example.org/x;reboot" }, devs, "import path"},
		{"climbing import path", func(d *atesor.Detection) { d.GoModulePath = "example.org/../../etc" }, devs, "import path"},
		{"packages in a subdirectory", func(d *atesor.Detection) { d.ModuleDir = "src" }, devs, "not at the top"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			det, _ := cznicB(t)
			tt.edit(det)
			_, _, err := knowledge.GoPathPlan(det, deb, tt.devs)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestGoDevPackages keeps only Debian's Go source packages, each once, in order.
func TestGoDevPackages(t *testing.T) {
	in := []string{"debhelper", "dh-golang", "golang-go", "golang-github-x-y-dev", "golang-any", "golang-gopkg-yaml.v2-dev",
		"golang-github-x-y-dev", "libgolang-z-dev", "golang--dev", "golang-github-x-y-dev;rm"}
	want := []string{"golang-github-x-y-dev", "golang-gopkg-yaml.v2-dev"}
	if got := knowledge.GoDevPackages(in); !slices.Equal(got, want) {
		t.Errorf("GoDevPackages(%v) = %v, want %v", in, got, want)
	}
}

// TestGoPathInstallLine: the install step builds the programs in GOPATH mode only for a
// plan with the GOPATH phase.
func TestGoPathInstallLine(t *testing.T) {
	det, deps := cznicB(t)
	deb, _ := knowledge.Profile("debian")
	plan, _, err := knowledge.GoPathPlan(det, deb, knowledge.GoDevPackages(deps))
	if err != nil {
		t.Fatal(err)
	}
	det.HasMain, det.MainPath = true, "cmd/b" // a tree with a program
	want := `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/cznic/b && ` +
		"GOTOOLCHAIN=auto go build -buildvcs=false -o '/w/.stage dir/bin'/ ./..."
	if got, ok := knowledge.GoPathInstallLine(det, &plan, "/w/.stage dir/bin"); !ok || got != want {
		t.Errorf("GOPATH plan: %q %t, want %q", got, ok, want)
	}
	if err := validate.PlanLine(want); err != nil {
		t.Errorf("the install line does not validate: %v", err)
	}
	det.HasMain = false // a library: nothing to stage, and go build -o refuses no main package
	lib := `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/cznic/b && GOTOOLCHAIN=auto go build -buildvcs=false ./...`
	if got, ok := knowledge.GoPathInstallLine(det, &plan, "/w/.stage dir/bin"); !ok || got != lib {
		t.Errorf("GOPATH plan of a library: %q %t, want %q", got, ok, lib)
	}
	other := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"go build ./..."}}}}
	if got, ok := knowledge.GoPathInstallLine(det, &other, "/bin"); ok {
		t.Errorf("plan without the GOPATH phase: %q", got)
	}
	if got, ok := knowledge.GoPathInstallLine(nil, &plan, "/bin"); ok {
		t.Errorf("no detection: %q", got)
	}
}
