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

// coreosBuild is the GOPATH plan's build line of the real golang-github-coreos-pkg run.
const coreosBuild = `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/coreos/pkg && ` +
	`GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./...`

// coreosDist is Debian's golang-github-coreos-pkg 4-5 as trixie's Sources index has it.
func coreosDist() *Distribution {
	return &Distribution{Package: "golang-github-coreos-pkg", Version: "4-5", GoImportPath: "github.com/coreos/pkg",
		BuildDepends: []string{"debhelper-compat", "dh-golang", "golang-any", "golang-github-coreos-go-systemd-dev",
			"golang-golang-x-crypto-dev", "golang-gopkg-yaml.v2-dev"}}
}

func coreosEnv(t *testing.T, dist *Distribution, goPkg GoPackageFunc) Env {
	t.Helper()
	det := &atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: ".", GoNoModFile: true, GoModulePath: "github.com/coreos/pkg"}
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go build-essential pkgconf golang-github-coreos-go-systemd-dev " +
			"golang-golang-x-crypto-dev golang-gopkg-yaml.v2-dev"}},
		{Name: knowledge.GoPathPhase, Commands: []string{"mkdir -p .gopath/src/github.com/coreos && ln -sfn ../../../.. .gopath/src/github.com/coreos/pkg"}},
		{Name: "build", Commands: []string{coreosBuild}},
	}}
	return goDistEnv(t, plan, realGoTree(t, "../goimportmajor/coreos-pkg"), det, dist, goPkg)
}

// TestGoImportMajorReal runs the rule on the real GOPATH build output of
// golang-github-coreos-pkg 4 (yamlutil imports gopkg.in/yaml.v1, which no trixie package
// installs) and that tarball's yamlutil and health sources: yamlutil/yaml.go's import
// becomes gopkg.in/yaml.v2, which its Build-Depends install, through a patch; the plan
// already installs it. It declines when no other major is installed, when the
// distribution packages the major itself, and without the source index.
func TestGoImportMajorReal(t *testing.T) {
	out := readLog(t, "go-import-major-coreos-pkg.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: strings.TrimSpace(out), Output: out, Phase: "build", Command: coreosBuild, Packaged: true}
	// missing-package (the major is not packaged) and distribution-configure answered
	// this error first in the real run.
	claims := Claims(f, nil)
	if i := indexOf(claims, goImportMajorRuleName); i < 0 || indexOf(claims, "missing-package") > i || indexOf(claims, distRuleName) < i {
		t.Fatalf("claims %v: want %s after missing-package and before %s", claims, goImportMajorRuleName, distRuleName)
	}
	noV2 := coreosDist()
	noV2.BuildDepends = []string{"golang-any", "golang-golang-x-crypto-dev"}
	withV1 := func(ctx context.Context, imp string) (string, string, error) {
		if strings.HasPrefix(imp, "gopkg.in/yaml.v1") {
			return "golang-gopkg-yaml.v1-dev", "", nil
		}
		return trixieGoPackage(ctx, imp)
	}
	tests := []struct {
		name string
		env  Env
		none string
	}{
		{name: "coreos-pkg", env: coreosEnv(t, coreosDist(), trixieGoPackage)},
		{name: "no other major installed", env: func() Env {
			e := coreosEnv(t, noV2, trixieGoPackage)
			e.Plan.Phases[0].Commands = []string{"apt-get update && apt-get install -y golang-go"}
			return e
		}(), none: "no other major of gopkg.in/yaml.v1 is among the Build-Depends"},
		{name: "the major is packaged", env: coreosEnv(t, coreosDist(), withV1), none: "the distribution packages it (golang-gopkg-yaml.v1-dev)"},
		{name: "no source index", env: coreosEnv(t, coreosDist(), nil), none: "source index is not available"},
		{name: "index error", env: coreosEnv(t, coreosDist(), func(context.Context, string) (string, string, error) { return "", "", errors.New("offline") }),
			none: "could not be read: offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix, why := makeGoImportMajor(context.Background(), f, tt.env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			want := []atesor.Action{{Type: atesor.ActionPatch, File: "yamlutil/yaml.go",
				Diff: "--- a/yamlutil/yaml.go\n+++ b/yamlutil/yaml.go\n@@ -8 +8 @@\n-\t\"gopkg.in/yaml.v1\"\n+\t\"gopkg.in/yaml.v2\"\n"}}
			if d := cmp.Diff(want, fix.Actions); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
			if fix.Plan != nil {
				t.Errorf("the plan already installs golang-gopkg-yaml.v2-dev, got a new plan %+v", fix.Plan)
			}
			for _, s := range []string{"gopkg.in/yaml.v1", "golang-github-coreos-pkg 4-5", "yamlutil/yaml.go"} {
				if !strings.Contains(fix.Analysis, s) {
					t.Errorf("analysis %q lacks %q", fix.Analysis, s)
				}
			}
			if !strings.Contains(fix.Strategy, "to gopkg.in/yaml.v2 (golang-gopkg-yaml.v2-dev)") {
				t.Errorf("strategy %q", fix.Strategy)
			}
			if err := check(fix, "/workspace/pkg"); err != nil {
				t.Errorf("the fix does not validate: %v", err)
			}
		})
	}
	// A plan that does not install the other major's package gets it installed.
	env := coreosEnv(t, coreosDist(), trixieGoPackage)
	env.Plan.Phases[0].Commands = []string{"apt-get update && apt-get install -y golang-go"}
	fix, why := makeGoImportMajor(context.Background(), f, env)
	if fix == nil || fix.Plan == nil || fix.Plan.Phases[0].Commands[0] != "apt-get update && apt-get install -y golang-go golang-gopkg-yaml.v2-dev" {
		t.Errorf("fix %+v (%s): want golang-gopkg-yaml.v2-dev installed", fix, why)
	}
	if err := validate.PlanLine(fix.Plan.Phases[0].Commands[0]); err != nil {
		t.Error(err)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestSplitGoMajor: the majors of gopkg.in paths, of PATH/vN paths and of a code host's
// v1 paths, and the same package at another major.
func TestSplitGoMajor(t *testing.T) {
	tests := []struct {
		imp      string
		ok       bool
		major    int
		at2, at1 string
	}{
		{"gopkg.in/yaml.v1", true, 1, "gopkg.in/yaml.v2", "gopkg.in/yaml.v1"},
		{"gopkg.in/inconshreveable/log15.v2/term", true, 2, "gopkg.in/inconshreveable/log15.v2/term", "gopkg.in/inconshreveable/log15.v1/term"},
		{"github.com/a/b/v3/sub", true, 3, "github.com/a/b/v2/sub", "github.com/a/b/sub"},
		{"github.com/a/b/sub", true, 1, "github.com/a/b/v2/sub", "github.com/a/b/sub"},
		{"example.org/x", false, 0, "", ""},
	}
	for _, tt := range tests {
		g, ok := splitGoMajor(tt.imp)
		if ok != tt.ok || ok && (g.major != tt.major || g.at(2) != tt.at2 || g.at(1) != tt.at1) {
			t.Errorf("%s: %+v %t, want major %d, %s, %s", tt.imp, g, ok, tt.major, tt.at2, tt.at1)
		}
	}
}

// FuzzSplitGoMajor: any import path splits into a module root, a major and a rest that
// give the path back at its own major.
func FuzzSplitGoMajor(f *testing.F) {
	for _, s := range []string{"gopkg.in/yaml.v1", "github.com/a/b/v3/sub", "github.com/a/b", "example.org/x/v2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, imp string) {
		if g, ok := splitGoMajor(imp); ok && g.at(g.major) != imp {
			t.Fatalf("%q: %+v gives %q back", imp, g, g.at(g.major))
		}
	})
}
