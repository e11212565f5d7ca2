package repair

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestGoModInit runs the rules on real output of the go command in Go packages with no
// go.mod, through Propose as the graph does: the go-mod phase goes in after setup with
// the module path from the distribution, the detection or the package the go command
// named, in that order.
func TestGoModInit(t *testing.T) {
	makePlan := defaultPlan("make -j$(nproc)")
	goPlan := defaultPlan("GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./...")
	errorsTree := []string{"Makefile", "errors.go", "stack.go", "errors_test.go", "go113.go"}
	difflibTree := []string{"README.md", "difflib/difflib.go", "difflib/difflib_test.go"}
	dist := func(p string) DistributionFunc {
		return func(context.Context) (*Distribution, error) {
			return &Distribution{Package: "golang-github-pmezard-go-difflib", Version: "1.0.0-3", GoImportPath: p}, nil
		}
	}
	tests := []struct {
		name  string
		log   string
		plan  *atesor.BuildPlan
		files []string
		det   *atesor.Detection
		dist  DistributionFunc
		mod   string // "" when the rule makes no fix
		from  string
	}{
		{"make runs go test: the package it named is the top level", "go-mod-missing-make.log", makePlan, errorsTree, nil, nil,
			"github.com/pkg/errors", "the package github.com/pkg/errors the go command was asked to build"},
		{"the distribution's path wins", "go-mod-missing-build.log", goPlan, difflibTree,
			&atesor.Detection{GoModulePath: "github.com/other/difflib", GoModulePathFrom: "the import comment of difflib/difflib.go"},
			dist("github.com/pmezard/go-difflib"), "github.com/pmezard/go-difflib", "the Go-Import-Path of the distribution's golang-github-pmezard-go-difflib 1.0.0-3"},
		{"the detection's path without a distribution", "go-mod-missing-build.log", goPlan, difflibTree,
			&atesor.Detection{GoModulePath: "github.com/pmezard/go-difflib", GoModulePathFrom: "the import comment of difflib/difflib.go"},
			nil, "github.com/pmezard/go-difflib", "the import comment of difflib/difflib.go"},
		{"a hostile distribution path falls through to the detection", "go-mod-missing-build.log", goPlan, difflibTree,
			&atesor.Detection{GoModulePath: "github.com/pmezard/go-difflib", GoModulePathFrom: "the request"},
			dist("example.org/x; reboot"), "github.com/pmezard/go-difflib", "the request"},
		{"a pattern names no package: no path", "go-mod-missing-build.log", goPlan, difflibTree, nil, nil, "", ""},
		{"the named package is not in the tree", "go-mod-missing-make.log", makePlan, difflibTree, nil, nil, "", ""},
		{"a go.mod in a subdirectory: the build ran outside it", "go-mod-missing-build.log", goPlan,
			append([]string{"sub/go.mod"}, difflibTree...), &atesor.Detection{GoModulePath: "github.com/pmezard/go-difflib"}, nil, "", ""},
		{"the plan already makes one", "go-mod-missing-build.log", &atesor.BuildPlan{Phases: []atesor.Phase{
			{Name: knowledge.GoModPhase, Commands: []string{knowledge.GoModInitLine("example.org/x")}}, goPlan.Phases[1]}},
			difflibTree, &atesor.Detection{GoModulePath: "example.org/x"}, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := readLog(t, tt.log)
			f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: tt.plan.Phases[len(tt.plan.Phases)-1].Commands[0]}
			if !strings.Contains(strings.Join(Claims(f, nil), " "), "go-mod-init") {
				t.Fatalf("go-mod-init does not claim it (category %s): claims %v", f.Category, Claims(f, nil))
			}
			env := Env{Platform: debian(t), Plan: tt.plan, Files: tt.files, Detection: tt.det, Distribution: tt.dist}
			fix, why := makeGoModInit(t.Context(), f, env)
			if tt.mod == "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix)
				}
				if why == "" {
					t.Error("no reason for making no fix")
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if !strings.Contains(fix.Analysis, tt.from) || !strings.Contains(fix.Strategy, tt.mod) {
				t.Errorf("analysis %q, strategy %q: want %s from %s", fix.Analysis, fix.Strategy, tt.mod, tt.from)
			}
			build := tt.plan.Phases[1]
			if build.Commands[0] == goPlan.Phases[1].Commands[0] {
				build.Commands = []string{"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./..."}
			}
			want := []atesor.Phase{tt.plan.Phases[0], {Name: knowledge.GoModPhase, Commands: []string{knowledge.GoModInitLine(tt.mod)}}, build}
			if d := cmp.Diff(want, fix.Plan.Phases); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the fixed plan fails validation: %v", err)
			}
			if len(tt.plan.Phases) != 2 {
				t.Error("the rule changed the plan it was given")
			}
		})
	}
}

// TestGoModInitNoPathSaysWhatToGive: with no path anywhere the reason is the error that
// names what to pass.
func TestGoModInitNoPathSaysWhatToGive(t *testing.T) {
	out := readLog(t, "go-mod-missing-build.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: out}
	_, why := makeGoModInit(t.Context(), f, Env{Plan: defaultPlan("go build ./..."), Files: []string{"x/x.go"},
		Distribution: func(context.Context) (*Distribution, error) { return nil, errors.New("mirror unreachable") }})
	if why != knowledge.ErrNoGoModulePath.Error() {
		t.Errorf("reason %q", why)
	}
}

func TestWithGoVetOff(t *testing.T) {
	for in, want := range map[string]string{
		"go test ./...": "go test -vet=off ./...",
		"cd x && GOTOOLCHAIN=auto go test -c ./...":  "cd x && GOTOOLCHAIN=auto go test -vet=off -c ./...",
		"go test -vet=all ./...":                     "go test -vet=all ./...",
		"go build ./... && go test ./a; go test ./b": "go build ./... && go test -vet=off ./a; go test -vet=off ./b",
		"make test":    "make test",
		"gotest ./...": "gotest ./...",
	} {
		if got := WithGoVetOff(in); got != want {
			t.Errorf("WithGoVetOff(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestModuleOfPackage(t *testing.T) {
	files := []string{"errors.go", "errors_test.go", "sub/a.go", "deep/er/b.go", "onlytests/x_test.go"}
	for pkg, want := range map[string]string{
		"github.com/pkg/errors":           "github.com/pkg/errors",
		"github.com/pkg/errors/sub":       "github.com/pkg/errors",
		"github.com/pkg/errors/deep/er":   "github.com/pkg/errors",
		"github.com/pkg/errors/onlytests": "github.com/pkg/errors",
		"../etc":                          "",
		"-modfile=x":                      "",
	} {
		if got := moduleOfPackage(pkg, files); got != want {
			t.Errorf("moduleOfPackage(%q) = %q, want %q", pkg, got, want)
		}
	}
	if got := moduleOfPackage("github.com/a/b/sub", []string{"sub/a.go"}); got != "github.com/a/b" {
		t.Errorf("subdirectory only: %q", got)
	}
	if got := moduleOfPackage("github.com/a/b", []string{"sub/a.go"}); got != "" {
		t.Errorf("no package at the top: %q", got)
	}
}
