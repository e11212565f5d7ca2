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
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// TestE2EGoPath ports Debian's golang-github-cznic-b 0.0~git20151027 offline: Go
// packages with no go.mod whose tests import github.com/cznic/mathutil, strutil and
// fileutil, which Debian's Build-Depends provide as golang-*-dev sources.
//
//   - Before: the same tarball under a name no distribution packages, its import path
//     given, ends before any build with class dependency, naming the imports.
//   - After: as debian:NAME resolves it, the default plan is Debian's GOPATH build
//     (the golang-*-dev Build-Depends installed, the tree linked at
//     .gopath/src/github.com/cznic/b, GO111MODULE=off); it verifies with the library's
//     test binaries (bin/b.test, bin/example.test) and its tests pass.
//   - The recipe replays and reproduces.
//
// Measured: 498 s in all on 2 shared cores (before under 1 s, the verified port 4 min 42 s
// with its tests 1 min 32 s, the replay 3 min 32 s, 2 artifacts compared).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EGoPath$' ./graph/
func TestE2EGoPath(t *testing.T) {
	tier.Long(t)
	e2e(t)
	ctx := context.Background()
	got := resolveGoSource(ctx, t, "debian:golang-github-cznic-b=0.0~git20151027.0.01b13d7-2", "github.com/cznic/b")

	// Before: no distribution to take the Go packages from.
	tarball, err := os.ReadFile(got.Tarball)
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "cznic-b.tar.xz")
	if err := os.WriteFile(plain, tarball, 0o644); err != nil {
		t.Fatal(err)
	}
	before := newE2EEnv(t)
	r, err := before.pipeline(t, nil).Run(ctx, atesor.Request{Source: plain, Name: "cznic-b", GoModule: "github.com/cznic/b", TestTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verified || r.FailureClass != atesor.FailureDependency || !strings.Contains(r.Reason, "github.com/cznic/mathutil (all_test.go)") {
		t.Fatalf("without the distribution: status %s class %s (%s), want the dependency ending", r.Status, r.FailureClass, r.Reason)
	}
	t.Logf("before: %s, class %s: %s", r.Status, r.FailureClass, r.Reason)

	// After: Debian's GOPATH build.
	e := newE2EEnv(t)
	start := time.Now()
	req := atesor.Request{Source: got.Tarball, Name: "golang-github-cznic-b", TestTimeout: 5 * time.Minute, Origin: &got.Origin}
	r, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, r.Package)
	t.Logf("after: %s in %s; %d fixes", r.Status, time.Since(start).Round(time.Second), len(rep.Fixes))
	checkVerified(t, e, r, "b.test", "example.test")
	if rep.Tests == nil || !rep.Tests.Passed {
		t.Errorf("the package tests did not pass: %+v", rep.Tests)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	recipePath := filepath.Join(e.out, r.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"golang-github-cznic-mathutil-dev", "ln -sfn ../../../.. .gopath/src/github.com/cznic/b", "GO111MODULE=off", knowledge.DistGoPath} {
		if !strings.Contains(string(md), s) {
			t.Errorf("the recipe does not say %q:\n%s", s, md)
		}
	}

	// The recipe replays.
	checkReplays(ctx, t, e, recipePath, got.Tarball)
}
