package graph

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// goDistCase is a Debian Go source ported offline, before with every rule but one and
// after with it.
type goDistCase struct {
	spec, name, importPath string
	rule                   string
	// before is what the escalation without the rule says; analysis what the rule's fix
	// says; artifact a verified artifact; recipe what the recipe's commands say.
	before, artifact string
	analysis, recipe []string
	// stops, when set, is the further error the port ends at after the rule's fix (no
	// rule answers it): the port is not verified and nothing is replayed.
	stops string
	// flaky are the tests (package.Test) that may fail without the fix being the
	// cause: a timing test of a package the fix did not touch, under emulation. With
	// only those failing, the port's tests_failing is taken for verified; tests is how
	// many must pass.
	flaky []string
	tests int
	// also are further rules whose fixes the port needs after rule's.
	also []string
}

func runGoDistCase(t *testing.T, c goDistCase) {
	e2e(t)
	ctx := context.Background()
	got := resolveGoSource(ctx, t, c.spec, c.importPath)
	req := atesor.Request{Source: got.Tarball, Name: c.name, TestTimeout: 5 * time.Minute, Origin: &got.Origin}

	before := newE2EEnv(t)
	start := time.Now()
	r, err := before.pipeline(t, nil, withoutRepairRule(c.rule)).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verified || !strings.Contains(r.Reason, c.before) {
		t.Fatalf("without %s: status %s (%s), want an escalation saying %q", c.rule, r.Status, r.Reason, c.before)
	}
	t.Logf("before: %s in %s: %s", r.Status, time.Since(start).Round(time.Second), r.Reason)

	e := newE2EEnv(t)
	start = time.Now()
	r, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, r.Package)
	t.Logf("after: %s in %s: %s", r.Status, time.Since(start).Round(time.Second), r.Reason)
	fix := scriptedFix(t, rep.Fixes, c.rule)
	if fix == nil {
		t.Fatalf("no %s fix", c.rule)
	}
	for _, rule := range c.also {
		if !slices.ContainsFunc(rep.Fixes, func(f atesor.FixAttempt) bool { return f.Source == atesor.FixSourceScripted && f.Rule == rule }) {
			t.Errorf("no %s fix", rule)
		}
	}
	for _, s := range c.analysis {
		if !strings.Contains(fix.Analysis+" "+fix.Strategy, s) {
			t.Errorf("the fix does not say %q: %s (%s)", s, fix.Strategy, fix.Analysis)
		}
	}
	if c.stops != "" {
		if r.Verified || !strings.Contains(r.Reason, c.stops) {
			t.Fatalf("after %s: status %s (%s), want the port to end at %q", c.rule, r.Status, r.Reason, c.stops)
		}
		if strings.Contains(r.Reason, c.before) {
			t.Errorf("after %s the port still ends at %q", c.rule, c.before)
		}
		return
	}
	if rep.Tests != nil {
		t.Logf("tests: %s", rep.Tests.Summary())
	}
	verified := *r
	if r.Verified && r.Status == atesor.StatusTestsFailing && rep.Tests != nil && rep.Tests.Counts != nil &&
		!slices.ContainsFunc(rep.Tests.Counts.FailedTests, func(n string) bool { return !slices.Contains(c.flaky, n) }) {
		t.Logf("tests_failing only for %v, which the fix does not touch", rep.Tests.Counts.FailedTests)
		verified.Status = atesor.StatusVerified
	}
	checkVerified(t, e, &verified, c.artifact)
	if c.tests > 0 && (rep.Tests == nil || rep.Tests.Counts == nil || rep.Tests.Counts.Passed < c.tests) {
		t.Errorf("tests %+v, want at least %d passing", rep.Tests, c.tests)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	recipePath := filepath.Join(e.out, r.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.recipe {
		if !strings.Contains(string(md), s) {
			t.Errorf("the recipe does not say %q:\n%s", s, md)
		}
	}
	checkReplays(ctx, t, e, recipePath, got.Tarball)
}

// TestE2EScriptedGoModuleGoPath ports Debian's obs-cli 0.4.0 offline, as debian:NAME
// resolves it: a Go module whose go.mod requires a pseudo-version of goobs the module
// proxy no longer serves (403 Forbidden, "This module version is not available").
//
//   - Before, with every rule but go-module-gopath: distribution-configure installs the
//     Build-Depends, the module build fails at the proxy again, and the port escalates.
//
//   - After: go-module-gopath builds it as dh-golang does, in GOPATH mode at
//     .gopath/src/github.com/muesli/obs-cli over /usr/share/gocode, with goobs 0.8.0,
//     cobra and go-humanize from their golang-*-dev packages. The packaged goobs passes
//     as pointers what obs-cli's pseudo-version passed as values, and back (label.go's
//     resp.DropShadow is a bool where a *bool is wanted, recording.go indirects
//     r.IsRecording, a bool): go-pointer-api patches the operands the compiler names
//     (ten, the compiler's limit, then nine), and bin/obs-cli verifies.
//
//   - The recipe applies the patches, replays and reproduces.
//
// Measured: 1029 s in all on 2 shared cores (the escalation 4 min 31 s, the verified
// port 7 min 34 s, the replay reproduced 5 min 1 s, 1 artifact compared).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedGoModuleGoPath$' ./graph/
func TestE2EScriptedGoModuleGoPath(t *testing.T) {
	tier.Long(t)
	runGoDistCase(t, goDistCase{spec: "debian:obs-cli=0.4.0-1", name: "obs-cli", importPath: "github.com/muesli/obs-cli",
		rule: "go-module-gopath", before: "403 Forbidden", artifact: "obs-cli", also: []string{"go-pointer-api"},
		analysis: []string{"github.com/andreykaipov/goobs (golang-github-andreykaipov-goobs-dev)", "GOPATH build (GO111MODULE=off)"},
		recipe:   []string{"ln -sfn ../../../.. .gopath/src/github.com/muesli/obs-cli", "patch -p1 < obs-cli_patches/"}})
}

// TestE2EScriptedGoImportMajor ports Debian's golang-github-coreos-pkg 4 offline: Go
// packages with no go.mod built in Debian's GOPATH mode, whose yamlutil imports
// gopkg.in/yaml.v1, which no trixie package installs.
//
//   - Before, with every rule but go-import-major: the GOPATH build stops at 'cannot
//     find package "gopkg.in/yaml.v1"' and the port escalates.
//   - After: go-import-major rewrites yamlutil/yaml.go's import to gopkg.in/yaml.v2,
//     which its Build-Depends install (golang-gopkg-yaml.v2-dev), by a recorded patch;
//     the packages, capnslog's example program and the test binaries build, and the
//     port verifies. yamlutil's tests pass against yaml.v2; progressutil's TestCopyOne,
//     which compares progress bars printed on a 10 ms ticker after a 15 ms sleep, may
//     fail under emulation (it did: 29 of 30 passing), and a port whose fix changed a
//     source then ends tests_failing; the fix does not touch progressutil.
//   - The recipe applies the patch, replays and reproduces.
//
// Measured: 393 s in all on 2 shared cores (the escalation 2 min 41 s, the port 2 min
// 17 s, tests_failing for TestCopyOne alone, 29 of 30 passing; the replay reproduced
// 1 min 21 s, 1 artifact compared).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedGoImportMajor$' ./graph/
func TestE2EScriptedGoImportMajor(t *testing.T) {
	tier.Long(t)
	runGoDistCase(t, goDistCase{spec: "debian:golang-github-coreos-pkg=4-5", name: "golang-github-coreos-pkg", importPath: "github.com/coreos/pkg",
		rule: "go-import-major", before: `gopkg.in/yaml.v1`, artifact: "example",
		analysis: []string{"to gopkg.in/yaml.v2 (golang-gopkg-yaml.v2-dev)", "yamlutil/yaml.go"},
		recipe:   []string{"patch -p1 < golang-github-coreos-pkg_patches/"},
		flaky:    []string{"github.com/coreos/pkg/progressutil.TestCopyOne"}, tests: 29})
}
