package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedGoExclude ports Debian's golang-github-x-cray-logrus-prefixed-formatter
// 0.5.2 offline, as debian:NAME resolves it: Go packages with no go.mod built in
// Debian's GOPATH mode, whose examples/ holds two one-file programs (basic.go and
// themes.go, each package main with its own main).
//
//   - Before, with every rule but go-exclude: go build ./... stops at "main redeclared
//     in this block" in examples/ and the port escalates there.
//   - After: go-exclude's fix names the tree's other package directory (the root) in
//     place of ./..., and the library builds; its test files import
//     github.com/onsi/ginkgo and gomega, which Debian's Build-Depends leave out (its
//     debian/rules turns the tests off), and missing-package installs the golang-*-dev
//     packages whose sources the Contents index lists under usr/share/gocode/src. The
//     port verifies with the test binary, its tests counted and passing.
//   - The recipe replays and reproduces.
//
// Measured: 737 s in all on 2 shared cores (the escalation 2 min 8 s, the verified port
// 5 min 24 s with its ginkgo suite's 1 of 1 Go tests passing, the replay reproduced 4 min
// 41 s, 1 artifact compared).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedGoExclude$' ./graph/
func TestE2EScriptedGoExclude(t *testing.T) {
	tier.Long(t)
	e2e(t)
	ctx := context.Background()
	got := resolveGoSource(ctx, t, "debian:golang-github-x-cray-logrus-prefixed-formatter=0.5.2-2", "github.com/x-cray/logrus-prefixed-formatter")
	req := atesor.Request{Source: got.Tarball, Name: "golang-github-x-cray-logrus-prefixed-formatter", TestTimeout: 5 * time.Minute, Origin: &got.Origin}

	before := newE2EEnv(t)
	start := time.Now()
	r, err := before.pipeline(t, nil, withoutRepairRule("go-exclude")).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verified || !strings.Contains(r.Reason, "redeclared in this block") || !strings.Contains(r.Reason, "examples/") {
		t.Fatalf("without go-exclude: status %s (%s), want the escalation at examples/", r.Status, r.Reason)
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
	fix := scriptedFix(t, rep.Fixes, "go-exclude")
	if fix == nil {
		t.Fatal("no go-exclude fix")
	}
	for _, s := range []string{"examples (2 package main programs, basic.go, themes.go, each run alone with go run examples/basic.go)", "DH_GOLANG_EXCLUDES"} {
		if !strings.Contains(fix.Analysis, s) {
			t.Errorf("the fix's analysis does not say %q: %s", s, fix.Analysis)
		}
	}
	checkVerified(t, e, r, "logrus-prefixed-formatter.test")
	if rep.Tests == nil || !rep.Tests.Passed || rep.Tests.Counts == nil || rep.Tests.Counts.Passed == 0 {
		t.Errorf("the package tests did not pass, counted: %+v", rep.Tests)
	} else {
		t.Logf("tests: %s", rep.Tests.Summary())
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	recipePath := filepath.Join(e.out, r.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"GOTOOLCHAIN=auto go build -buildvcs=false . && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ .",
		"golang-github-onsi-ginkgo-dev"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("the recipe does not say %q:\n%s", s, md)
		}
	}
	checkReplays(ctx, t, e, recipePath, got.Tarball)
}
