package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// cxx17BoolIncrement is GCC 14's error on fastq-stats.cpp's ++ on bools.
const cxx17BoolIncrement = "in ‘operator++’ is forbidden in C++17"

// TestE2EScriptedCXX17Removed ports Debian's ea-utils 1.1.2 offline. Its plain Makefile
// compiles C++ with CC=g++ and CFLAGS?=-O3 -I., and fastq-stats.cpp does ++ on bools,
// which C++17 removed and GCC 14's default gnu++17 rejects. With every rule but
// cxx17-removed the port stops at that error (the held-back run of round seven ended
// there in an error loop); with it make runs as make CC='g++ -std=gnu++14' and
// fastq-stats compiles. The port does not verify yet: measured at the rule's commit
// (2 min, fastq-stats compiles with ++ on bools a -Wdeprecated warning), it then stops at "No rule to make target 'samtools/*.c'" — Debian's
// +dfsg tarball drops the bundled samtools that sam-stats links, and Debian's own
// patches link libbam-dev instead — which no rule answers; the test checks the rule's
// fix and that the C++17 error is gone, and the verdict once that is answered.
// Measured: passes in 109 s (before 51 s, after 56 s).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 40m -run '^TestE2EScriptedCXX17Removed$' ./graph/
func TestE2EScriptedCXX17Removed(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := debiantest.SourceTarball(t, "ea-utils", "ea-utils_1.1.2+dfsg.orig.tar.xz")
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute,
		Origin: &atesor.DistroSource{Distro: "debian", Package: "ea-utils", Version: "1.1.2+dfsg-9", Suite: "trixie", Component: "main"}}

	// Before: every rule but this one; the last build still stops at the C++17 error.
	before := newE2EEnv(t)
	res, err := before.pipeline(t, nil, withoutRepairRule("cxx17-removed")).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified {
		t.Fatalf("verified without cxx17-removed: %s", res.Reason)
	}
	if log := lastBuild(t, before, res.Package); !strings.Contains(log, cxx17BoolIncrement) {
		scriptedFix(t, before.report(t, res.Package).Fixes, "cxx17-removed")
		t.Fatalf("without cxx17-removed the last build does not stop at %q (%s: %s)", cxx17BoolIncrement, res.Status, res.Reason)
	}
	t.Logf("before: %s: %s", res.Status, res.Reason)

	// After: the rule passes the standard with make's compiler, and the error is gone.
	e := newE2EEnv(t)
	start := time.Now()
	res, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	t.Logf("after: %s in %s (%s); fixes by rule %v", res.Status, time.Since(start).Round(time.Second), res.Reason, rep.FixesByRule)
	fix := scriptedFix(t, rep.Fixes, "cxx17-removed")
	if fix == nil || !strings.Contains(fix.Strategy, "CC on make's command line") || !strings.Contains(fix.Analysis, "fastq-stats.cpp:183:37") {
		t.Fatalf("no cxx17-removed fix through make's CC naming fastq-stats.cpp: %+v", fix)
	}
	if log := lastBuild(t, e, res.Package); strings.Contains(log, cxx17BoolIncrement) {
		t.Fatalf("the last build still stops at C++17:\n%s", log)
	}
	// fastq-stats compiled under gnu++14 with the makefile's CFLAGS, where ++ on a bool
	// is a deprecation warning.
	b, err := os.ReadFile(filepath.Join(e.out, res.Package+"_build.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"g++ -std=gnu++14 -O3 -I.  fastq-lib.cpp gcModel.c -o fastq-stats fastq-stats.cpp",
		"fastq-stats.cpp:183:37: warning: use of an operand of type ‘bool’ in ‘operator++’ is deprecated"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the build log does not say %q", want)
		}
	}
	if strings.Contains(res.Reason, "samtools/") {
		// What the test proves holds; the verdict waits for the rule that answers it.
		t.Logf("past C++17; the samtools Debian's tarball drops is the next stop, which no rule answers yet: %s", res.Reason)
		return
	}
	checkVerified(t, e, res, "fastq-stats")
}

// lastBuild returns the output of the port's last make command in its build log.
func lastBuild(t *testing.T, e *e2eEnv, pkg string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.out, pkg+"_build.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if i := strings.LastIndex(log, "\n$ make"); i >= 0 {
		log = log[i:]
	}
	return log
}
