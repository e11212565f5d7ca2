package graph

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

const libdeflateFile = "libdeflate_1.23.orig.tar.gz"

// TestE2EGatedCTestsAreFoundAndCounted ports libdeflate offline. Its CMake build
// registers no CTest test unless LIBDEFLATE_BUILD_TESTS is on, so the default ctest
// finds none; finish must not call that a pass, but reconfigure with the tests on and
// count them, and the counts must match what ctest itself printed.
func TestE2EGatedCTestsAreFoundAndCounted(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	src := debiantest.SourceTarball(t, "libdeflate", libdeflateFile)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: src, TestTimeout: 20 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("libdeflate: %s in %s", res.Status, time.Since(start).Round(time.Second))
	if !res.Verified {
		t.Fatalf("status %s (%s): %s", res.Status, res.FailureClass, res.Reason)
	}
	rep := e.report(t, res.Package)
	tr := rep.Tests
	if tr == nil {
		t.Fatal("the package tests did not run")
	}
	t.Logf("tests: %s; commands %q; no tests from %q", tr.Summary(), tr.Commands, tr.NoTestsFrom)
	if len(tr.NoTestsFrom) == 0 || !strings.HasPrefix(tr.NoTestsFrom[0], "ctest") {
		t.Errorf("the default ctest was not reported as running no tests: %q", tr.NoTestsFrom)
	}
	if tr.NoTests || tr.Counts == nil || tr.Counts.Framework != "ctest" || tr.Counts.Ran == 0 {
		t.Fatalf("tests not found and counted: %+v counts %+v\n%s", tr, tr.Counts, tr.Output)
	}
	// ctest's own words, read apart from the parser: "100% tests passed, 0 tests failed out of 8".
	m := regexp.MustCompile(`(\d+)% tests passed, (\d+) tests? failed out of (\d+)`).FindStringSubmatch(tr.Output)
	if m == nil {
		t.Fatalf("no ctest summary in the kept output:\n%s", tr.Output)
	}
	failed, _ := strconv.Atoi(m[2])
	total, _ := strconv.Atoi(m[3])
	if tr.Counts.Ran+tr.Counts.Skipped+len(tr.ClearedByRerun)+len(tr.EmulatorFaults) != total || tr.Counts.Failed+len(tr.ClearedByRerun)+len(tr.EmulatorFaults) != failed {
		t.Errorf("counts %+v do not match ctest's %q", tr.Counts, m[0])
	}
	// libdeflate registers its eight unit test programs.
	if total != 8 {
		t.Errorf("ctest ran %d tests, libdeflate registers 8", total)
	}
	b, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	recipe := string(b)
	if !strings.Contains(recipe, "of "+strconv.Itoa(tr.Counts.Ran)) || !strings.Contains(recipe, "Test verdict: **") {
		t.Errorf("the recipe's Verification section lacks the counts:\n%s", recipe)
	}
	logOverhead(t, rep)
}
