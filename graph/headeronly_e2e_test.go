package graph

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EHeaderOnlyTests ports Debian's easyloggingpp 9.97.1+dfsg offline: a
// header-only C++ library whose install step stages its headers and nothing else, and
// whose unit tests are off by default (option(test ... OFF)). Without scripted repairs
// the port is not verified, and verification says it is a header-only library whose
// test programs are not built. With them the header-only-tests rule configures -Dtest=ON
// with googletest installed, the unit-test program compiled from the headers is the
// primary artifact (ArtifactsFrom test_programs, the reason in the report and the
// recipe), and the recipe's commands replay it in a fresh sandbox. Measured: 535 s in
// all (before 1 min 13 s, the verified port 4 min 13 s, the replay 3 min 20 s,
// reproduced) under a load average of 15-20; the package's own unit tests fail under
// emulation and are reported, which does not un-verify the port.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EHeaderOnlyTests$' ./graph/
func TestE2EHeaderOnlyTests(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := debiantest.SourceTarball(t, "easyloggingpp", "easyloggingpp_9.97.1+dfsg.orig.tar.xz")
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute}

	// Before: no rule; the verdict names the header-only library.
	before := newE2EEnv(t)
	start := time.Now()
	res, err := before.pipeline(t, nil, WithoutScriptedRepairs()).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("before: %s in %s: %s", res.Status, time.Since(start).Round(time.Second), res.Reason)
	if res.Verified || res.FailureClass != atesor.FailureVerify || !strings.Contains(res.Reason, atesor.ProblemHeaderOnlyUntested) {
		t.Fatalf("without scripted repairs: status %s class %s (%s), want not verified as an untested header-only library", res.Status, res.FailureClass, res.Reason)
	}
	rep := before.report(t, res.Package)
	if rep.Install == nil || !rep.Install.HeaderOnly || rep.Install.ArtifactsFrom != atesor.ArtifactsFromRules || !strings.HasPrefix(rep.ArtifactsReason, "header-only library: the install step staged") {
		t.Errorf("before: install %+v, reason %q", rep.Install, rep.ArtifactsReason)
	}

	// After: the rule turns the tests on and the test program proves the library.
	e := newE2EEnv(t)
	start = time.Now()
	res, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after: %s in %s", res.Status, time.Since(start).Round(time.Second))
	checkVerified(t, e, res, "easyloggingpp-unit-tests")
	rep = e.report(t, res.Package)
	inst := rep.Install
	if inst == nil || inst.ArtifactsFrom != atesor.ArtifactsFromTestPrograms || inst.PrimaryTestPrograms != 1 {
		t.Fatalf("install %+v, want the artifacts from the test programs", inst)
	}
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary && path.Base(a.Path) != "easyloggingpp-unit-tests" {
			t.Errorf("primary artifact %s is not the test program", a.Path)
		}
	}
	want := install.ArtifactsReason(inst)
	if rep.ArtifactsReason != want || want != "header-only library: its test program, compiled from the staged headers, is the riscv64 evidence" {
		t.Errorf("report reason %q", rep.ArtifactsReason)
	}
	var fix *atesor.FixAttempt
	for i, f := range rep.Fixes {
		t.Logf("fix %d by %s/%s: %s (%s)", f.Attempt, f.Source, f.Rule, f.Strategy, f.Analysis)
		if f.Source == atesor.FixSourceScripted && f.Rule == "header-only-tests" {
			fix = &rep.Fixes[i]
		}
	}
	if fix == nil || !strings.Contains(fix.Strategy, "-Dtest=ON") || !strings.Contains(fix.Strategy, "libgtest-dev") {
		t.Fatalf("no header-only-tests fix configuring -Dtest=ON with googletest: %+v", rep.Fixes)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	recipePath := filepath.Join(e.out, res.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "-Dtest=ON") || !strings.Contains(string(md), want) {
		t.Errorf("the recipe does not carry -Dtest=ON and the reason:\n%s", md)
	}

	// The recipe's commands replay the port.
	checkReplays(ctx, t, e, recipePath, src)
}
