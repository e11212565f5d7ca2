package repair

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/module"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// obsCLIBuild is the default module plan's build line of the real obs-cli run.
const obsCLIBuild = "GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ ."

// obsCLIDist is Debian's obs-cli 0.4.0-1 as trixie's Sources index has it (the
// Build-Depends as valid package names, what distribution-configure installed).
func obsCLIDist() *Distribution {
	return &Distribution{Package: "obs-cli", Version: "0.4.0-1", GoImportPath: "github.com/muesli/obs-cli",
		BuildDepends: []string{"debhelper-compat", "dh-golang", "golang-any", "golang-github-andreykaipov-goobs-dev",
			"golang-github-dustin-go-humanize-dev", "golang-github-spf13-cobra-dev"},
		Unread: "debarchive: download pool/main/o/obs-cli/obs-cli_0.4.0-1.debian.tar.xz: HTTP 404 Not Found"}
}

// trixieGoPackages is the Go-Import-Path to golang-*-dev mapping of trixie's Sources
// index for the import paths the tests ask about.
var trixieGoPackages = map[string]string{
	"github.com/andreykaipov/goobs": "golang-github-andreykaipov-goobs-dev",
	"github.com/dustin/go-humanize": "golang-github-dustin-go-humanize-dev",
	"github.com/spf13/cobra":        "golang-github-spf13-cobra-dev",
	"gopkg.in/yaml.v2":              "golang-gopkg-yaml.v2-dev",
	"gopkg.in/yaml.v3":              "golang-gopkg-yaml.v3-dev",
	"github.com/coreos/go-systemd":  "golang-github-coreos-go-systemd-dev",
	"golang.org/x/crypto":           "golang-golang-x-crypto-dev",
}

func trixieGoPackage(_ context.Context, imp string) (string, string, error) {
	best := ""
	for p := range trixieGoPackages {
		if (imp == p || strings.HasPrefix(imp, p+"/")) && len(p) > len(best) {
			best = p
		}
	}
	return trixieGoPackages[best], "", nil
}

func obsCLIEnv(t *testing.T, dist *Distribution, goPkg GoPackageFunc) Env {
	t.Helper()
	det := &atesor.Detection{BuildSystem: atesor.BuildGo, Confidence: 0.95, Evidence: "go.mod", ModuleDir: ".", HasMain: true, MainPath: ".",
		GoCommands: []string{"."}, GoArtifacts: []string{"bin/obs-cli"},
		Dependencies: []atesor.Dependency{{Name: "github.com/andreykaipov/goobs", Evidence: "go.mod:6"}}}
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go golang-any golang-github-andreykaipov-goobs-dev " +
			"golang-github-dustin-go-humanize-dev golang-github-spf13-cobra-dev"}},
		{Name: "build", Commands: []string{obsCLIBuild}},
	}}
	tree := map[string]string{"go.mod": "module github.com/muesli/obs-cli\n\ngo 1.13\n", "main.go": "package main\n"}
	return goDistEnv(t, plan, tree, det, dist, goPkg)
}

// goDistEnv is goTreeEnv on Debian for a distribution source and its Sources index.
func goDistEnv(t *testing.T, plan *atesor.BuildPlan, tree map[string]string, det *atesor.Detection, dist *Distribution, goPkg GoPackageFunc) Env {
	t.Helper()
	env := goTreeEnv(plan, tree, det)
	env.Platform = debian(t)
	env.Distribution = func(context.Context) (*Distribution, error) { return dist, nil }
	env.GoPackage = goPkg
	return env
}

// TestGoModuleGoPathReal runs the rule on the real obs-cli 0.4.0 build output (the
// proxy's 403 for the goobs pseudo-version go.mod requires, after distribution-configure
// installed the Build-Depends): the plan becomes the GOPATH build under the
// Go-Import-Path, installing the golang-*-dev Build-Depends; the install step and the
// tests follow it. It declines without Go Build-Depends, when the module is not among
// what they install, and for a plan already in GOPATH mode.
func TestGoModuleGoPathReal(t *testing.T) {
	out := readLog(t, "go-module-fetch-obs-cli.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: strings.TrimSpace(out), Output: out, Phase: "build", Command: obsCLIBuild, Packaged: true}
	if got := fetchFailedModules(out); !slices.Equal(got, []string{"github.com/andreykaipov/goobs"}) {
		t.Fatalf("modules %v", got)
	}
	// distribution-configure already answered this error in the real run.
	tried := func(rule, _ string) bool { return rule == distRuleName }
	if claims := Claims(f, tried); len(claims) == 0 || claims[0] != goModuleGoPathRuleName {
		t.Fatalf("claims %v, want %s first", claims, goModuleGoPathRuleName)
	}
	noGo := obsCLIDist()
	noGo.BuildDepends = []string{"debhelper-compat", "golang-any"}
	other := func(ctx context.Context, imp string) (string, string, error) {
		if imp == "github.com/andreykaipov/goobs" {
			return "golang-github-andreykaipov-goobs-v1-dev", "", nil
		}
		return trixieGoPackage(ctx, imp)
	}
	tests := []struct {
		name  string
		env   Env
		plan  *atesor.BuildPlan // nil: the run's module plan
		none  string
		build string
	}{
		{name: "obs-cli", env: obsCLIEnv(t, obsCLIDist(), trixieGoPackage),
			build: `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/muesli/obs-cli && ` + obsCLIBuild},
		{name: "go.mod's module path without a Go-Import-Path", env: obsCLIEnv(t, func() *Distribution { d := obsCLIDist(); d.GoImportPath = ""; return d }(), trixieGoPackage),
			build: `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/muesli/obs-cli && ` + obsCLIBuild},
		{name: "no Go Build-Depends", env: obsCLIEnv(t, noGo, trixieGoPackage), none: "has no golang-*-dev Build-Depends"},
		{name: "the module is not among them", env: obsCLIEnv(t, obsCLIDist(), other), none: "do not name it"},
		{name: "nobody packages the module", env: obsCLIEnv(t, obsCLIDist(), func(context.Context, string) (string, string, error) { return "", "", nil }),
			none: "no distribution package installs the sources of github.com/andreykaipov/goobs"},
		{name: "no source index", env: obsCLIEnv(t, obsCLIDist(), nil), none: "source index is not available"},
		{name: "index error", env: obsCLIEnv(t, obsCLIDist(), func(context.Context, string) (string, string, error) { return "", "", errors.New("offline") }),
			none: "could not be looked up"},
		{name: "already GOPATH", env: obsCLIEnv(t, obsCLIDist(), trixieGoPackage), plan: goPathPlan(), none: "already builds in GOPATH mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if tt.plan != nil {
				env.Plan = tt.plan
			}
			fix, why := makeGoModuleGoPath(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			wantPhases := []atesor.Phase{
				{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go golang-github-andreykaipov-goobs-dev " +
					"golang-github-dustin-go-humanize-dev golang-github-spf13-cobra-dev"}},
				{Name: knowledge.GoPathPhase, Commands: []string{"mkdir -p .gopath/src/github.com/muesli && ln -sfn ../../../.. .gopath/src/github.com/muesli/obs-cli"}},
				{Name: "build", Commands: []string{tt.build}},
			}
			if d := cmp.Diff(wantPhases, fix.Plan.Phases); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			for _, c := range fix.Plan.Commands() {
				if err := validate.PlanLine(c); err != nil {
					t.Errorf("%q does not validate: %v", c, err)
				}
			}
			for _, s := range []string{"403 Forbidden", "github.com/andreykaipov/goobs (golang-github-andreykaipov-goobs-dev)", "obs-cli 0.4.0-1"} {
				if !strings.Contains(fix.Analysis, s) {
					t.Errorf("analysis %q lacks %q", fix.Analysis, s)
				}
			}
			line, ok := knowledge.GoPathInstallLine(env.Detection, fix.Plan, "/s/bin")
			if !ok || !strings.HasPrefix(line, `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/muesli/obs-cli && `) ||
				!strings.HasSuffix(line, " go build -buildvcs=false -o /s/bin/ ./...") {
				t.Errorf("install line %q %t", line, ok)
			}
			got, ok := knowledge.GoPathTestCommands(fix.Plan, []string{"GOTOOLCHAIN=auto go test ./..."})
			want := []string{`export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/muesli/obs-cli && GOTOOLCHAIN=auto go test ./...`}
			if !ok || !slices.Equal(got, want) {
				t.Errorf("tests %q %t, want %q", got, ok, want)
			}
			if _, ok := knowledge.GoPathTestCommands(fix.Plan, want); ok {
				t.Errorf("tests already in GOPATH mode changed")
			}
		})
	}
}

// TestFetchFailedModules reads the module of each way the go command fails to get one,
// and nothing from a build error.
func TestFetchFailedModules(t *testing.T) {
	tests := []struct {
		out  string
		want []string
	}{
		{"go: example.com/a/b@v1.2.3: reading https://proxy.golang.org/example.com/a/b/@v/v1.2.3.mod: 404 Not Found", []string{"example.com/a/b"}},
		{"go: example.com/a@v0.0.0-2020: invalid version: unknown revision 0123", []string{"example.com/a"}},
		{`go: example.com/a@v1.0.0: Get "https://proxy.golang.org/example.com/a/@v/v1.0.0.mod": dial tcp: lookup proxy.golang.org: no such host`, []string{"example.com/a"}},
		{"verifying gopkg.in/x.v1@v1.0.0: gopkg.in/x.v1@v1.0.0: reading https://sum.golang.org/lookup/x: 410 Gone", []string{"gopkg.in/x.v1"}},
		{"go: example.com/a@v1.0.0: module lookup disabled by GOPROXY=off", []string{"example.com/a"}},
		{"main.go:3:2: undefined: x", nil},
		{"go: example.com/a@v1.0.0: missing go.sum entry", nil}, // goSumMissingPaths reads it
	}
	for _, tt := range tests {
		if got := fetchFailedModules(tt.out); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.out, got, tt.want)
		}
	}
}

// FuzzFetchFailedModules: the modules read from any output are valid module paths.
func FuzzFetchFailedModules(f *testing.F) {
	f.Add("go: example.com/a/b@v1.2.3: reading https://proxy.golang.org/x: 403 Forbidden")
	f.Add("go: example.com/a@v0.0.0-2020: invalid version: unknown revision 0123")
	f.Fuzz(func(t *testing.T, out string) {
		for _, m := range fetchFailedModules(out) {
			if module.CheckPath(m) != nil {
				t.Fatalf("%q: %q is no module path", out, m)
			}
		}
	})
}

// hpkeBuild is the default module plan's build line of the real go-hpke-compact run.
const hpkeBuild = "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..."

// hpkeDist is Debian's golang-github-jedisct1-go-hpke-compact 0.9.2-1.1 as trixie's
// Sources index has it.
func hpkeDist() *Distribution {
	return &Distribution{Package: "golang-github-jedisct1-go-hpke-compact", Version: "0.9.2-1.1", GoImportPath: "github.com/jedisct1/go-hpke-compact",
		BuildDepends: []string{"debhelper-compat", "dh-sequence-golang", "golang-any", "golang-github-powerman-check-dev", "golang-golang-x-crypto-dev"}}
}

// TestGoModuleGoPathGoSumReal runs the rule on the real go-hpke-compact 0.9.2 build
// output: the tarball has no go.sum, so the module build refuses golang.org/x/crypto
// (offline, go.sum's entries cannot be added); the plan becomes the GOPATH build over
// the packaged golang.org/x/crypto. It declines when no Build-Depends installs the
// module.
func TestGoModuleGoPathGoSumReal(t *testing.T) {
	out := readLog(t, "go-sum-missing-hpke-compact.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: strings.TrimSpace(out), Output: out, Phase: "build", Command: hpkeBuild, Packaged: true}
	want := []string{"golang.org/x/crypto/chacha20poly1305", "golang.org/x/crypto/curve25519", "golang.org/x/crypto/hkdf"}
	if got := goSumMissingPaths(out); !slices.Equal(got, want) {
		t.Fatalf("paths %q, want %q", got, want)
	}
	tried := func(rule, _ string) bool { return rule == distRuleName }
	if claims := Claims(f, tried); len(claims) == 0 || claims[0] != goModuleGoPathRuleName {
		t.Fatalf("claims %v, want %s first", claims, goModuleGoPathRuleName)
	}
	env := func(d *Distribution) Env {
		det := &atesor.Detection{BuildSystem: atesor.BuildGo, Confidence: 0.95, Evidence: "go.mod", ModuleDir: ".",
			GoArtifacts:  []string{"bin/go-hpke-compact.test"},
			Dependencies: []atesor.Dependency{{Name: "github.com/powerman/check", Evidence: "go.mod:6"}, {Name: "golang.org/x/crypto", Evidence: "go.mod:7"}}}
		plan := &atesor.BuildPlan{Phases: []atesor.Phase{
			{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go golang-any golang-github-powerman-check-dev golang-golang-x-crypto-dev"}},
			{Name: "build", Commands: []string{hpkeBuild}},
		}}
		tree := map[string]string{"go.mod": "module github.com/jedisct1/go-hpke-compact\n\ngo 1.19\n", "hpke.go": "package hpke\n"}
		return goDistEnv(t, plan, tree, det, d, trixieGoPackage)
	}
	noCrypto := hpkeDist()
	noCrypto.BuildDepends = []string{"debhelper-compat", "golang-any", "golang-github-powerman-check-dev"}
	tests := []struct {
		name string
		env  Env
		none string
	}{
		{name: "go-hpke-compact", env: env(hpkeDist())},
		{name: "golang.org/x/crypto is no Build-Depends", env: env(noCrypto), none: "do not name it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix, why := makeGoModuleGoPath(context.Background(), f, tt.env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			wantPhases := []atesor.Phase{
				{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go golang-github-powerman-check-dev golang-golang-x-crypto-dev"}},
				{Name: knowledge.GoPathPhase, Commands: []string{"mkdir -p .gopath/src/github.com/jedisct1 && ln -sfn ../../../.. .gopath/src/github.com/jedisct1/go-hpke-compact"}},
				{Name: "build", Commands: []string{`export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/jedisct1/go-hpke-compact && ` + hpkeBuild}},
			}
			if d := cmp.Diff(wantPhases, fix.Plan.Phases); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			for _, s := range []string{"go.sum has no entry", "hpke.go:12:2: missing go.sum entry for module providing package golang.org/x/crypto/chacha20poly1305",
				"golang.org/x/crypto/hkdf (golang-golang-x-crypto-dev)", "0.9.2-1.1"} {
				if !strings.Contains(fix.Analysis, s) {
					t.Errorf("analysis %q lacks %q", fix.Analysis, s)
				}
			}
		})
	}
}

// TestGoSumMissingPaths reads each form of the go command's missing go.sum entry, and
// nothing from a fetch failure or a build error.
func TestGoSumMissingPaths(t *testing.T) {
	tests := []struct {
		out  string
		want []string
	}{
		{"a.go:3:2: missing go.sum entry for module providing package example.com/a/b/c (imported by example.com/m); to add:", []string{"example.com/a/b/c"}},
		{"a.go:3:2: missing go.sum entry for module providing package example.com/a/b; to add:", []string{"example.com/a/b"}},
		{"go: example.com/a@v1.0.0: missing go.sum entry for go.mod file; to add it:\n\tgo mod download example.com/a", []string{"example.com/a"}},
		{"verifying example.com/a@v1.0.0: missing go.sum entry", []string{"example.com/a"}},
		{"go: example.com/a@v1.0.0: module lookup disabled by GOPROXY=off", nil},
		{"main.go:3:2: undefined: x", nil},
	}
	for _, tt := range tests {
		if got := goSumMissingPaths(tt.out); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.out, got, tt.want)
		}
	}
}
