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
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/testresult"
)

// TestE2EHeaderOnlyCMakeFileAPI ports Debian's libargparse 3.2 offline, as
// debian:libargparse resolves it: a header-only C++ library whose default configure
// builds its doctest program build/test/tests from test/*.cpp and never registers it
// (no enable_testing or add_test), so ctest lists no test. CMake's file API names the
// program as an executable built from the test directory only: it is the primary
// artifact (test_programs_from cmake-file-api) with no fix, the tests step runs it
// (ctest ran none) and counts doctest's test cases, and the recipe replays the port.
// Before, the port ended not verified as an untested header-only library. Measured:
// 1489 s in all (the port 13 min 55 s, 243 of 243 test cases passed and 1 skipped in
// 0.6 s; the replay 10 min 51 s, reproduced) under a load average of 13-18.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EHeaderOnlyCMakeFileAPI$' ./graph/
func TestE2EHeaderOnlyCMakeFileAPI(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := debiantest.SourceTarball(t, "libargparse", "libargparse_3.2.orig.tar.gz")
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 10 * time.Minute,
		Origin: &atesor.DistroSource{Distro: "debian", Package: "libargparse", Version: "3.2-1", Suite: "trixie", Component: "main"}}

	e := newE2EEnv(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("port: %s in %s", res.Status, time.Since(start).Round(time.Second))
	checkVerified(t, e, res, "tests")
	rep := e.report(t, res.Package)
	inst := rep.Install
	if inst == nil || inst.ArtifactsFrom != atesor.ArtifactsFromTestPrograms || inst.PrimaryTestPrograms != 1 ||
		!slices.Equal(inst.TestProgramsFrom, []string{install.FromCMakeFileAPI}) {
		t.Fatalf("install %+v, want the test program from the CMake file API", inst)
	}
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary && !strings.HasSuffix(a.Path, "/build/test/tests") {
			t.Errorf("primary artifact %s is not the test program", a.Path)
		}
	}
	if len(rep.Fixes) != 0 {
		t.Errorf("verified with fixes: %+v", rep.Fixes)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	tests := rep.Tests
	if tests == nil || tests.Counts == nil || tests.Counts.Framework != testresult.Doctest || tests.Counts.Ran == 0 ||
		!slices.Contains(tests.Commands, "cd 'build/test' && ./'tests'") {
		t.Fatalf("tests %+v, want the doctest program run and counted", tests)
	}
	t.Logf("tests: %s", tests.Summary())
	recipePath := filepath.Join(e.out, res.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "cmake-file-api") {
		t.Errorf("the recipe does not say where the test program came from:\n%s", md)
	}

	// The recipe's commands replay the port.
	checkReplays(ctx, t, e, recipePath, src)
}
