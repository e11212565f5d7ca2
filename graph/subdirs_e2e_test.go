package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/replay"
)

// TestE2EScriptedMissingSubdir ports Debian's repacked leveldb 1.23 offline. Its
// tarball keeps third_party/googletest and third_party/benchmark empty, so the default
// CMake configure stops at add_subdirectory(). Without scripted repairs the port
// escalates with that error; with them the cmake-missing-subdir rule configures
// LEVELDB_BUILD_TESTS and LEVELDB_BUILD_BENCHMARKS off (the benchmarks link the
// vendored gtest), the port verifies, the fix is recorded with the rule's name, and
// the recipe's commands, replayed in a fresh sandbox, reproduce the artifacts.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedMissingSubdir$' ./graph/
func TestE2EScriptedMissingSubdir(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := debiantest.SourceTarball(t, "leveldb", "leveldb_1.23.orig.tar.gz")
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute}

	// Before: no rule, the port stops at add_subdirectory().
	before := newE2EEnv(t)
	res, err := before.pipeline(t, nil, WithoutScriptedRepairs()).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified || !strings.Contains(res.Reason, "does not contain a CMakeLists.txt") {
		t.Fatalf("without scripted repairs: status %s (%s), want an escalation at add_subdirectory", res.Status, res.Reason)
	}
	t.Logf("before: %s: %s", res.Status, res.Reason)

	// After: the rule's fix, verified offline.
	e := newE2EEnv(t)
	start := time.Now()
	res, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	t.Logf("after: %s in %s; fixes by rule %v", res.Status, time.Since(start).Round(time.Second), rep.FixesByRule)
	checkVerified(t, e, res, "libleveldb")
	var fix *atesor.FixAttempt
	for i, f := range rep.Fixes {
		t.Logf("fix %d by %s/%s: %s (%s)", f.Attempt, f.Source, f.Rule, f.Strategy, f.Analysis)
		if f.Source == atesor.FixSourceScripted && f.Rule == "cmake-missing-subdir" {
			fix = &rep.Fixes[i]
		}
	}
	if fix == nil {
		t.Fatal("verified without the cmake-missing-subdir rule")
	}
	if !strings.Contains(fix.Analysis, "LEVELDB_BUILD_TESTS") {
		t.Errorf("the fix's analysis does not name the option: %s", fix.Analysis)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	recipePath := filepath.Join(e.out, res.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "-DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF") {
		t.Errorf("the recipe does not configure the options off:\n%s", md)
	}

	// The recipe's commands replay the fix.
	in, err := replay.ReadInputFrom(recipePath, src)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	rp, err := e.pipeline(t, nil).Replay(ctx, in, "debian", filepath.Join(t.TempDir(), "replay"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replay: %s in %s (%d compared)", rp.Verdict, time.Since(start).Round(time.Second), rp.Compared)
	if rp.Verdict != replay.Reproduced || rp.Compared == 0 {
		t.Errorf("the recipe replayed as %s (%d compared): %+v %s", rp.Verdict, rp.Compared, rp.Differs, rp.Failure)
	}
}
