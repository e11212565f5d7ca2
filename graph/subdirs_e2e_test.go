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

// repackedCase is a real Debian package whose offline port needs one of the rules for
// parts a repacked tarball or an offline sandbox lacks.
type repackedCase struct {
	pkg, file string
	rule      string
	// before is what the port escalates with when scripted repairs are off; empty: the
	// before run is skipped (the package needs other rules first).
	before string
	// analysis and recipe are what the fix's analysis and the recipe's commands say.
	analysis, recipe string
	artifact         string
	// built, when set, is a line the verified port's build log holds.
	built string
	// origin, when set, is the distribution's source package the tarball is from, as
	// debian:NAME resolves it (the rules that read its packaging need it).
	origin *atesor.DistroSource
	// others runs the before port with every rule but rule on, for a package that
	// needs other rules to reach the failure rule answers.
	others bool
	// tests, when set, is how many of the package's tests at least must pass, none
	// failing.
	tests int
	// noTests says the package has no tests to run (a tree with no build system).
	noTests bool
}

// scriptedFix logs a port's fixes and returns the last scripted one of rule, nil when
// none.
func scriptedFix(t *testing.T, fixes []atesor.FixAttempt, rule string) *atesor.FixAttempt {
	t.Helper()
	var fix *atesor.FixAttempt
	for i, f := range fixes {
		t.Logf("fix %d by %s/%s: %s (%s)", f.Attempt, f.Source, f.Rule, f.Strategy, f.Analysis)
		if f.Source == atesor.FixSourceScripted && f.Rule == rule {
			fix = &fixes[i]
		}
	}
	return fix
}

// withoutRepairRule leaves one scripted rule out of a port.
func withoutRepairRule(name string) Option {
	return func(o *options) { o.repair.skip = append(o.repair.skip, name) }
}

// TestE2EScriptedMissingSubdir ports Debian's repacked leveldb 1.23 offline. Its
// tarball keeps third_party/googletest and third_party/benchmark empty, so the default
// CMake configure stops at add_subdirectory(). Without scripted repairs the port
// escalates with that error; with them the cmake-missing-subdir rule configures
// LEVELDB_BUILD_TESTS and LEVELDB_BUILD_BENCHMARKS off (the benchmarks link the
// vendored gtest), the port verifies, the fix is recorded with the rule's name, and
// the recipe's commands, replayed in a fresh sandbox, reproduce the artifacts.
// Measured: 491 s in all (escalation 78 s, verified port 3 min 45 s, replay 3 min 4 s)
// under a load average of 15-30.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedMissingSubdir$' ./graph/
func TestE2EScriptedMissingSubdir(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "leveldb", file: "leveldb_1.23.orig.tar.gz", rule: "cmake-missing-subdir",
		before: "does not contain a CMakeLists.txt", analysis: "LEVELDB_BUILD_TESTS",
		recipe: "-DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF", artifact: "libleveldb"})
}

// TestE2EScriptedOptionalPackage ports Debian's repacked uriparser 0.9.8 offline: after next-build-system
// moves it from its configure to its CMake build, find_package(Doxygen REQUIRED) under
// URIPARSER_BUILD_DOCS stops the configure; cmake-optional-package configures the docs
// off, the port verifies and the recipe replays it. Measured: 518 s in all (verified
// port 4 min 55 s, replay 3 min 37 s) under a load average of 20-30.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedOptionalPackage$' ./graph/
func TestE2EScriptedOptionalPackage(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "uriparser", file: "uriparser_0.9.8+dfsg.orig.tar.xz", rule: "cmake-optional-package",
		analysis: "URIPARSER_BUILD_DOCS", recipe: "-DURIPARSER_BUILD_DOCS=OFF", artifact: "liburiparser"})
}

func runRepackedCase(t *testing.T, c repackedCase) {
	e2e(t)
	src := debiantest.SourceTarball(t, c.pkg, c.file)
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute, Origin: c.origin}

	if c.before != "" {
		// Before: no rule, the port stops where the rule answers.
		before := newE2EEnv(t)
		off := WithoutScriptedRepairs()
		if c.others {
			off = withoutRepairRule(c.rule)
		}
		res, err := before.pipeline(t, nil, off).Run(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verified || !strings.Contains(res.Reason, c.before) {
			scriptedFix(t, before.report(t, res.Package).Fixes, c.rule) // logs the fixes that got it there
			t.Fatalf("without scripted repairs: status %s (%s), want an escalation saying %q", res.Status, res.Reason, c.before)
		}
		t.Logf("before: %s: %s", res.Status, res.Reason)
	}

	// After: the rule's fix, verified offline.
	e := newE2EEnv(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	t.Logf("after: %s in %s; fixes by rule %v", res.Status, time.Since(start).Round(time.Second), rep.FixesByRule)
	checkVerifiedPort(t, e, res, !c.noTests, c.artifact)
	if c.built != "" {
		if log, err := os.ReadFile(filepath.Join(e.out, res.Package+"_build.log")); err != nil || !strings.Contains(string(log), c.built) {
			t.Errorf("the build log does not say %q (%v)", c.built, err)
		}
	}
	fix := scriptedFix(t, rep.Fixes, c.rule)
	if fix == nil {
		t.Fatalf("verified without the %s rule", c.rule)
	}
	if !strings.Contains(fix.Analysis, c.analysis) {
		t.Errorf("the fix's analysis does not name %s: %s", c.analysis, fix.Analysis)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	if c.tests > 0 {
		if rep.Tests == nil || rep.Tests.Counts == nil || rep.Tests.Counts.Passed < c.tests || rep.Tests.Counts.Failed > 0 {
			t.Errorf("tests %+v, want at least %d passed and none failing", rep.Tests, c.tests)
		} else {
			t.Logf("tests: %s", rep.Tests.Summary())
		}
	}
	recipePath := filepath.Join(e.out, res.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), c.recipe) {
		t.Errorf("the recipe's commands do not say %s:\n%s", c.recipe, md)
	}

	// The recipe's commands replay the fix.
	checkReplays(ctx, t, e, recipePath, src)
}

// checkReplays replays the recipe at recipePath on src in a fresh sandbox and fails the
// test unless it reproduces the port's artifacts.
func checkReplays(ctx context.Context, t *testing.T, e *e2eEnv, recipePath, src string) {
	t.Helper()
	in, err := replay.ReadInputFrom(recipePath, src)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rp, err := e.pipeline(t, nil).Replay(ctx, in, "debian", filepath.Join(t.TempDir(), "replay"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replay: %s in %s (%d compared)", rp.Verdict, time.Since(start).Round(time.Second), rp.Compared)
	if rp.Verdict != replay.Reproduced || rp.Compared == 0 {
		t.Errorf("the recipe replayed as %s (%d compared): %+v %s", rp.Verdict, rp.Compared, rp.Differs, rp.Failure)
	}
}
