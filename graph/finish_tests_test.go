package graph

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// testRunOver is a run over the fake sandbox, enough for runTests.
func testRunOver(t *testing.T, bs atesor.BuildSystem) (*run, *atesor.State, *sandboxtest.Sandbox) {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxtest.New(t, p)
	sb.SetRepo("pkg")
	var events []atesor.Event
	pl := &Pipeline{}
	pl.opts.events = func(e atesor.Event) { events = append(events, e) }
	r := &run{p: pl, sb: sb, log: slog.New(slog.DiscardHandler), start: time.Now()}
	s := &atesor.State{
		RunPart:       atesor.RunPart{RepoName: "pkg", RepoDir: "/workspace/pkg", Request: atesor.Request{TestTimeout: time.Minute}},
		RoutePart:     atesor.RoutePart{Status: atesor.StatusVerified},
		DetectionPart: atesor.DetectionPart{Detection: &atesor.Detection{BuildSystem: bs}},
		VerifyPart:    atesor.VerifyPart{Verified: true},
	}
	return r, s, sb
}

func TestRecipeCarriesTheTestEvidence(t *testing.T) {
	s := &atesor.State{
		RunPart:    atesor.RunPart{RepoName: "pkg"},
		RoutePart:  atesor.RoutePart{Status: atesor.StatusVerified},
		VerifyPart: atesor.VerifyPart{Verified: true},
		TestPart: atesor.TestPart{Tests: &atesor.TestResult{Commands: []string{"ctest --test-dir build"}, ExitCode: 8,
			Counts: &atesor.TestCounts{Framework: "ctest", Ran: 122, Passed: 120, Failed: 2, FailedTests: []string{"strtod", "bignum"}}}},
	}
	model := "# pkg\n\n## Executive Summary\n\nok\n\n## Verification\n\nAll artifacts are riscv64.\n\n## Known Issues & Recommendations\n\nnone\n"
	got := withTestEvidence(model, s)
	ver := got[strings.Index(got, "## Verification"):strings.Index(got, "## Known Issues")]
	for _, w := range []string{"2 of 122 failed (strtod, bignum)", "- `strtod`", "Test verdict: **verified, 2 tests failing**"} {
		if !strings.Contains(ver, w) {
			t.Errorf("the Verification section lacks %q:\n%s", w, ver)
		}
	}
	if again := withTestEvidence(got, s); again != got {
		t.Errorf("inserted twice:\n%s", again)
	}
	if v := recipe.Verdict(s); v != "VERIFIED, 2 TESTS FAILING" {
		t.Errorf("recipe verdict %q", v)
	}
}

const automakeTwoFail = `PASS: t_add
FAIL: t_sum
FAIL: t_dot
============================================================================
Testsuite summary for vecsum 1.0
============================================================================
# TOTAL: 3
# PASS:  1
# SKIP:  0
# XFAIL: 0
# FAIL:  2
# XPASS: 0
# ERROR: 0
============================================================================
See ./test-suite.log
============================================================================
make: *** [Makefile:30: check] Error 1
`

// A port whose fix changed a source file and whose tests then fail is tests_failing:
// not learned, marked in the recipe cache, and a cache hit says so. The same failures
// after a build-file fix leave it verified, with the failures in the verdict line.
func TestTestsFailingAfterSourceFix(t *testing.T) {
	tests := []struct {
		name    string
		fix     string
		status  atesor.Status
		learned bool
	}{
		{"source fix", `sed -i 's/-m64//' vecsum.c`, atesor.StatusTestsFailing, false},
		{"build-file fix", `sed -i 's/ -m64//' Makefile`, atesor.StatusVerified, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true)
			h.sb.OnPrefix("make check", sandboxtest.Fail(2, automakeTwoFail))
			h.failsOnce(m64Error)
			h.builds(0, "riscv64-glibc-hello")
			h.prov.Queue(atesor.RoleFixer, fixAnswer(tt.fix))
			res := h.run()
			if res.Status != tt.status || !res.Verified {
				t.Fatalf("status %s verified %t (%s), want %s", res.Status, res.Verified, res.Reason, tt.status)
			}
			if got, want := atesor.VerdictLine(res.Status, res.Tests), string(tt.status)+", 2 tests failing"; got != want {
				t.Errorf("verdict line %q, want %q", got, want)
			}
			recipe, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
			for _, w := range []string{"2 of 3 failed (t_sum, t_dot)", "- `t_dot`", "**" + string(tt.status) + ", 2 tests failing**"} {
				if !strings.Contains(string(recipe), w) {
					t.Errorf("recipe lacks %q:\n%s", w, recipe)
				}
			}
			ctx := context.Background()
			exs, _ := h.mem.Relevant(ctx, atesor.AgentFixer, atesor.Query{Sandbox: "debian-riscv64", BuildSystem: "make", ErrorMessage: m64Error}, 100)
			learned := false
			for _, e := range exs {
				learned = learned || e.RepoName == "vecsum"
			}
			if learned != tt.learned {
				t.Errorf("fix learned %t, want %t", learned, tt.learned)
			}
			entry, err := h.mem.Recipe(ctx, "vecsum", "debian-riscv64")
			if err != nil || entry == nil {
				t.Fatalf("no recipe-cache entry: %v", err)
			}
			if entry.TestsFailing != (tt.status == atesor.StatusTestsFailing) || entry.Tests.Counts.Failed != 2 {
				t.Errorf("cache entry tests_failing %t, tests %+v", entry.TestsFailing, entry.Tests)
			}
			h.events = nil
			hit := h.run(WithEvents(func(e atesor.Event) { h.events = append(h.events, e) }))
			wantHit := atesor.StatusCached
			if tt.status == atesor.StatusTestsFailing {
				wantHit = atesor.StatusTestsFailing
			}
			if hit.Status != wantHit {
				t.Errorf("cache hit status %s, want %s", hit.Status, wantHit)
			}
			said := false
			for _, e := range h.events {
				said = said || (strings.Contains(e.Line, "recipe cache hit") && strings.Contains(e.Line, "2 tests failing") || strings.Contains(e.Line, "tests_failing"))
			}
			if !said {
				t.Errorf("the cache hit did not say the tests fail: %+v", h.events)
			}
		})
	}
}

// TestVerdictLinesMatchTheState checks the line finish prints for a verified port with
// failing tests against what the state records: "the fixes changed build files only"
// only when there were fixes, and a port nobody fixed says so.
func TestVerdictLinesMatchTheState(t *testing.T) {
	failing := &atesor.TestResult{Commands: []string{"make check"}, ExitCode: 2,
		Counts: &atesor.TestCounts{Framework: "automake", Ran: 5, Passed: 4, Failed: 1, FailedTests: []string{"t1"}}}
	tests := []struct {
		name  string
		fixes []atesor.FixAttempt
		line  string
	}{
		{"no fixes at all", nil, "verified, 1 test failing (no fixes were made: the package failed its own tests as it is)"},
		{"only a refused attempt", []atesor.FixAttempt{{Rule: "gcc14", Strategy: "relax"}}, "verified, 1 test failing (no fixes were made: the package failed its own tests as it is)"},
		{"a build-file fix", []atesor.FixAttempt{{Commands: []string{"sed -i 's/ -m64//' Makefile"}, Success: true}}, "verified, 1 test failing (the fixes changed build files only)"},
		{"a plan fix", []atesor.FixAttempt{{Plan: &atesor.BuildPlan{}, Success: true}}, "verified, 1 test failing (the fixes changed build files only)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s, _ := testRunOver(t, atesor.BuildMake)
			var lines []string
			r.p.opts.events = func(e atesor.Event) {
				if e.Node == NodeFinish {
					lines = append(lines, e.Line)
				}
			}
			s.FixAttempts, s.Tests = tt.fixes, failing
			r.judgeTests(s)
			if diff := cmp.Diff([]string{tt.line}, lines); diff != "" {
				t.Errorf("finish lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOfflineNoRepairSaysNoFixerRan: offline, a failure no scripted rule repairs is
// recorded as such, never as a fixer's invalid proposal.
func TestOfflineNoRepairSaysNoFixerRan(t *testing.T) {
	r, s, _ := testRunOver(t, atesor.BuildMake)
	r.p.opts.now = time.Now
	s.LastError = &atesor.ErrorRecord{Node: NodeBuild, Message: "frobnicate: the flux capacitor is not charged", Category: atesor.CategoryUnknown}
	if err := r.fix(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if !s.FixInvalid || len(s.Errors) == 0 {
		t.Fatalf("the attempt was not recorded: invalid %v, errors %v", s.FixInvalid, s.Errors)
	}
	msg := s.Errors[len(s.Errors)-1].Message
	if strings.Contains(msg, "FIXER") || strings.Contains(msg, "proposed") {
		t.Errorf("offline record %q claims a fixer ran", msg)
	}
	for _, w := range []string{"no repair: ", "no model is configured"} {
		if !strings.Contains(msg, w) {
			t.Errorf("offline record %q lacks %q", msg, w)
		}
	}
	if got := offlineNoRepair([]string{"gcc14: the log names no relaxable error"}); !strings.Contains(got, "rules tried: gcc14: the log names no relaxable error") {
		t.Errorf("offlineNoRepair with notes = %q", got)
	}
}

// TestTestsTakeThePlansIncludePath: the test suite, which may configure and build the
// tests again outside the plan, compiles with the header directories the plan puts on
// CPATH; a plan without them adds no CPATH.
func TestTestsTakeThePlansIncludePath(t *testing.T) {
	for _, tt := range []struct {
		build string
		want  string
	}{
		{"export CPATH=/usr/include/doctest && cmake -S . -B build && cmake --build build", "CPATH=/usr/include/doctest"},
		{"cmake -S . -B build && cmake --build build", ""},
	} {
		r, s, sb := testRunOver(t, atesor.BuildCMake)
		s.Plan = &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{tt.build}}}}
		r.runTests(context.Background(), s)
		cmds := sb.Commands()
		if len(cmds) == 0 {
			t.Fatal("no test command ran")
		}
		for _, c := range cmds {
			has := ""
			for _, e := range c.Env {
				if strings.HasPrefix(e, "CPATH=") {
					has = e
				}
			}
			if has != tt.want {
				t.Errorf("plan %q: %s ran with %q, want %q", tt.build, c.Line, has, tt.want)
			}
		}
	}
}
