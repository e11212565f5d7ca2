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
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
	"github.com/eclipse-atesor/atesor-go/testresult"
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

func realOutput(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testresult", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const ctestPassing = `Test project /workspace/pkg/build
    Start 1: bignum
1/2 Test #1: bignum ...........................   Passed    0.05 sec
    Start 2: strtod
2/2 Test #2: strtod ...........................   Passed    0.31 sec

100% tests passed, 0 tests failed out of 2

Total Test time (real) =   0.40 sec
`

func TestNoTestsTriesTheCMakeReconfigure(t *testing.T) {
	r, s, sb := testRunOver(t, atesor.BuildCMake)
	sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "ctest") }, Times: 1,
		Result: sandboxtest.OK("Test project /workspace/pkg/build\nNo tests were found!!!\n")})
	sb.OnPrefix("find . -maxdepth 3 -name CMakeLists.txt", sandboxtest.OK("project(dc)\noption(BUILD_TESTING \"Build test programs\" OFF)\n"))
	sb.OnPrefix("ctest", sandboxtest.OK(ctestPassing))
	res := r.runTests(context.Background(), s)
	want := &atesor.TestCounts{Framework: testresult.CTest, Ran: 2, Passed: 2}
	if diff := cmp.Diff(want, res.Counts); diff != "" {
		t.Fatalf("counts (-want +got):\n%s\n%+v", diff, res)
	}
	if !res.Passed || res.NoTests || len(res.NoTestsFrom) != 1 {
		t.Errorf("result %+v", res)
	}
	lines := strings.Join(sb.Lines(), "\n")
	for _, w := range []string{"cmake -S . -B build -DBUILD_TESTING=ON", "cmake --build build -j$(nproc)"} {
		if !strings.Contains(lines, w) {
			t.Errorf("%q not run:\n%s", w, lines)
		}
	}
}

func TestNoTestsAnywhereIsNotAPass(t *testing.T) {
	r, s, sb := testRunOver(t, atesor.BuildCMake)
	sb.OnPrefix("ctest", sandboxtest.OK("No tests were found!!!\n"))
	sb.OnPrefix("cat GNUmakefile", sandboxtest.OK("all:\n\tcc -o x x.c\ntest: all\n\t./x\n"))
	sb.OnPrefix("make test", sandboxtest.OK("make: Nothing to be done for 'test'.\n"))
	res := r.runTests(context.Background(), s)
	if res.Passed || !res.NoTests || res.Counts != nil {
		t.Fatalf("result %+v, want no tests", res)
	}
	if got := []string{"ctest --test-dir build --output-on-failure", "make test"}; !cmp.Equal(res.NoTestsFrom, got) {
		t.Errorf("no tests from %q, want %q", res.NoTestsFrom, got)
	}
	if res.Summary() != "no tests ran" || res.FailingCount() != 0 {
		t.Errorf("summary %q failing %d", res.Summary(), res.FailingCount())
	}
}

func TestGoTestRunsWithJSON(t *testing.T) {
	r, s, sb := testRunOver(t, atesor.BuildGo)
	s.TestCommands = []string{"go test ./..."}
	sb.OnPrefix("go test -json -timeout=30s ./...", sandboxtest.Fail(1, realOutput(t, "go-json-mixed.txt")))
	res := r.runTests(context.Background(), s)
	if res.Counts == nil || res.Counts.Ran != 8 || res.Counts.Failed != 4 || res.Passed {
		t.Fatalf("result %+v", res)
	}
	if res.Commands[0] != "go test -json -timeout=30s ./..." {
		t.Errorf("commands %q", res.Commands)
	}
}

const ctestSegfault = `Test project /workspace/pkg/build
    Start 1: bignum
1/2 Test #1: bignum ...........................   Passed    0.05 sec
    Start 2: strtod
2/2 Test #2: strtod ...........................***Exception: SegFault  0.31 sec

50% tests passed, 1 tests failed out of 2

Total Test time (real) =   0.40 sec

The following tests FAILED:
	  2 - strtod (SEGFAULT)
Errors while running CTest
`

const ctestRerunPassed = `Test project /workspace/pkg/build
    Start 2: strtod
1/1 Test #2: strtod ...........................   Passed    0.30 sec

100% tests passed, 0 tests failed out of 1
`

func TestSignalledTestIsRerunOnce(t *testing.T) {
	tests := []struct {
		name         string
		first        string
		rerun        atesor.CommandResult
		passed       bool
		failed       int
		cleared      []string
		faults       []string
		failingCount int
	}{
		{name: "cleared by the rerun", rerun: sandboxtest.OK(ctestRerunPassed), passed: true, cleared: []string{"strtod"}},
		{name: "same crash again is a real failure", rerun: sandboxtest.Fail(8, ctestSegfault), failed: 1, failingCount: 1},
		{name: "a toolchain that crashed differently is the emulator's fault", first: ctestSegfault + "cc1: internal compiler error: Segmentation fault\n",
			rerun: sandboxtest.Fail(8, ctestSegfault+"cc1: internal compiler error: Illegal instruction\n"), passed: true, faults: []string{"strtod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s, sb := testRunOver(t, atesor.BuildCMake)
			sb.OnPrefix("ctest --test-dir build --output-on-failure -R '^(strtod)$'", tt.rerun)
			first := ctestSegfault
			if tt.first != "" {
				first = tt.first
			}
			sb.OnPrefix("ctest", sandboxtest.Fail(8, first))
			res := r.runTests(context.Background(), s)
			if res.Passed != tt.passed || res.Counts.Failed != tt.failed || !cmp.Equal(res.ClearedByRerun, tt.cleared) ||
				!cmp.Equal(res.EmulatorFaults, tt.faults) || res.FailingCount() != tt.failingCount {
				t.Fatalf("result %+v counts %+v", res, res.Counts)
			}
			if n := strings.Count(strings.Join(sb.Lines(), "\n"), "-R '^(strtod)$'"); n != 1 {
				t.Errorf("reran %d times, want once: %q", n, sb.Lines())
			}
		})
	}
}

func TestUnknownFrameworkSaysSo(t *testing.T) {
	r, s, sb := testRunOver(t, atesor.BuildMake)
	sb.OnPrefix("make check", sandboxtest.Fail(2, "./example\nzlib test FAILED\nmake: *** [Makefile:95: test] Error 1\n"))
	res := r.runTests(context.Background(), s)
	if res.Passed || res.Counts != nil || res.Note != testresult.NoteUnknown || res.ExitCode != 2 || res.FailingCount() != 1 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Summary(), "unknown framework") {
		t.Errorf("summary %q", res.Summary())
	}
}

func TestJudgeTests(t *testing.T) {
	failing := &atesor.TestResult{Commands: []string{"make check"}, ExitCode: 2,
		Counts: &atesor.TestCounts{Framework: "automake", Ran: 5, Passed: 3, Failed: 2, FailedTests: []string{"t1", "t2"}}}
	tests := []struct {
		name    string
		fixes   []atesor.FixAttempt
		patches []atesor.Patch
		tests   *atesor.TestResult
		status  atesor.Status
		verdict string
	}{
		{"build files only", []atesor.FixAttempt{{Commands: []string{"sed -i 's/ -m64//' Makefile"}, Success: true}}, nil, failing,
			atesor.StatusVerified, "verified, 2 tests failing"},
		{"source edited by command", []atesor.FixAttempt{{Commands: []string{"sed -i 's/__x86_64__/__riscv/' src/simd.c"}, Success: true}}, nil, failing,
			atesor.StatusTestsFailing, "tests_failing, 2 tests failing"},
		{"source patched", nil, []atesor.Patch{{Name: "001-x.patch", File: "lib/x.h"}}, failing,
			atesor.StatusTestsFailing, "tests_failing, 2 tests failing"},
		{"source created", []atesor.FixAttempt{{Files: []string{"compat/cpuid.c"}}}, nil, failing,
			atesor.StatusTestsFailing, "tests_failing, 2 tests failing"},
		{"source read, not changed", []atesor.FixAttempt{{Commands: []string{"grep -n x86 src/simd.c"}}}, nil, failing,
			atesor.StatusVerified, "verified, 2 tests failing"},
		{"source fix, tests pass", []atesor.FixAttempt{{Files: []string{"a.c"}}}, nil,
			&atesor.TestResult{Passed: true, Counts: &atesor.TestCounts{Ran: 3, Passed: 3}}, atesor.StatusVerified, "verified"},
		{"source fix, no tests ran", []atesor.FixAttempt{{Files: []string{"a.c"}}}, nil,
			&atesor.TestResult{NoTests: true}, atesor.StatusVerified, "verified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s, _ := testRunOver(t, atesor.BuildMake)
			s.FixAttempts, s.Patches, s.Tests = tt.fixes, tt.patches, tt.tests
			r.judgeTests(s)
			if s.Status != tt.status {
				t.Errorf("status %s, want %s", s.Status, tt.status)
			}
			if got := atesor.VerdictLine(s.Status, s.Tests); got != tt.verdict {
				t.Errorf("verdict %q, want %q", got, tt.verdict)
			}
		})
	}
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
	if v := recipeVerdict(s); v != "VERIFIED, 2 TESTS FAILING" {
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

func TestAutomakeSegfaultRerunSelectsTheTest(t *testing.T) {
	r, s, sb := testRunOver(t, atesor.BuildAutotools)
	sb.OnPrefix("make check TESTS='segv'", sandboxtest.OK("PASS: segv\n# TOTAL: 1\n# PASS:  1\n# SKIP:  0\n# XFAIL: 0\n# FAIL:  0\n# XPASS: 0\n# ERROR: 0\n"))
	sb.OnPrefix("make check", sandboxtest.Fail(2, realOutput(t, "automake-mixed.txt")))
	res := r.runTests(context.Background(), s)
	want := &atesor.TestCounts{Framework: testresult.Automake, Ran: 3, Passed: 2, Failed: 1, Skipped: 1, FailedTests: []string{"fail"}}
	if diff := cmp.Diff(want, res.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if res.Passed || !cmp.Equal(res.ClearedByRerun, []string{"segv"}) || res.FailingCount() != 1 {
		t.Errorf("result %+v", res)
	}
	if got := res.Summary(); !strings.Contains(got, "1 of 3 failed (fail)") || !strings.Contains(got, "passed when rerun (segv)") {
		t.Errorf("summary %q", got)
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
