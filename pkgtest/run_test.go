package pkgtest

import (
	"context"
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

// suiteOver is a suite of the build system's default tests over the fake sandbox, with
// a minute to run.
func suiteOver(t *testing.T, bs atesor.BuildSystem) (*Suite, *sandboxtest.Sandbox) {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxtest.New(t, p)
	sb.SetRepo("pkg")
	return &Suite{Commands: DefaultCommands(bs), BuildSystem: bs, Dir: "/workspace/pkg", Timeout: time.Minute}, sb
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
	su, sb := suiteOver(t, atesor.BuildCMake)
	sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "ctest") }, Times: 1,
		Result: sandboxtest.OK("Test project /workspace/pkg/build\nNo tests were found!!!\n")})
	sb.OnPrefix("find . -maxdepth 3 -name CMakeLists.txt", sandboxtest.OK("project(dc)\noption(BUILD_TESTING \"Build test programs\" OFF)\n"))
	sb.OnPrefix("ctest", sandboxtest.OK(ctestPassing))
	res := Run(context.Background(), sb, nil, *su)
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
	su, sb := suiteOver(t, atesor.BuildCMake)
	sb.OnPrefix("ctest", sandboxtest.OK("No tests were found!!!\n"))
	sb.OnPrefix("cat GNUmakefile", sandboxtest.OK("all:\n\tcc -o x x.c\ntest: all\n\t./x\n"))
	sb.OnPrefix("make test", sandboxtest.OK("make: Nothing to be done for 'test'.\n"))
	res := Run(context.Background(), sb, nil, *su)
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
	su, sb := suiteOver(t, atesor.BuildGo)
	su.Commands = []string{"go test ./..."}
	sb.OnPrefix("go test -json -timeout=30s ./...", sandboxtest.Fail(1, realOutput(t, "go-json-mixed.txt")))
	res := Run(context.Background(), sb, nil, *su)
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
			su, sb := suiteOver(t, atesor.BuildCMake)
			sb.OnPrefix("ctest --test-dir build --output-on-failure -R '^(strtod)$'", tt.rerun)
			first := ctestSegfault
			if tt.first != "" {
				first = tt.first
			}
			sb.OnPrefix("ctest", sandboxtest.Fail(8, first))
			res := Run(context.Background(), sb, nil, *su)
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
	su, sb := suiteOver(t, atesor.BuildMake)
	sb.OnPrefix("make check", sandboxtest.Fail(2, "./example\nzlib test FAILED\nmake: *** [Makefile:95: test] Error 1\n"))
	res := Run(context.Background(), sb, nil, *su)
	if res.Passed || res.Counts != nil || res.Note != testresult.NoteUnknown || res.ExitCode != 2 || res.FailingCount() != 1 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Summary(), "unknown framework") {
		t.Errorf("summary %q", res.Summary())
	}
}

func TestAutomakeSegfaultRerunSelectsTheTest(t *testing.T) {
	su, sb := suiteOver(t, atesor.BuildAutotools)
	sb.OnPrefix("make check TESTS='segv'", sandboxtest.OK("PASS: segv\n# TOTAL: 1\n# PASS:  1\n# SKIP:  0\n# XFAIL: 0\n# FAIL:  0\n# XPASS: 0\n# ERROR: 0\n"))
	sb.OnPrefix("make check", sandboxtest.Fail(2, realOutput(t, "automake-mixed.txt")))
	res := Run(context.Background(), sb, nil, *su)
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

func TestNoTestsRunsTheUnregisteredTestPrograms(t *testing.T) {
	su, sb := suiteOver(t, atesor.BuildCMake)
	su.Programs = []string{"/workspace/pkg/build/test/tests", "/workspace/other/x", "/workspace/pkg/../evil"}
	sb.OnPrefix("ctest", sandboxtest.OK("Test project /workspace/pkg/build\nNo tests were found!!!\n"))
	sb.OnPrefix("find . -maxdepth 3 -name CMakeLists.txt", sandboxtest.OK("project(a)\noption(A_BUILD_TESTS \"Build tests\" ${TOP})\n"))
	sb.OnPrefix("cd 'build/test' && ./'tests'", sandboxtest.OK("[doctest] doctest version is \"2.4.11\"\n"+
		"===============================================================================\n"+
		"[doctest] test cases: 186 | 186 passed | 0 failed | 0 skipped\n[doctest] Status: SUCCESS!\n"))
	res := Run(context.Background(), sb, nil, *su)
	want := &atesor.TestCounts{Framework: testresult.Doctest, Ran: 186, Passed: 186}
	if diff := cmp.Diff(want, res.Counts); diff != "" {
		t.Fatalf("counts (-want +got):\n%s\n%+v", diff, res)
	}
	if !res.Passed || res.NoTests || len(res.Commands) != 1 {
		t.Errorf("result %+v", res)
	}
	lines := strings.Join(sb.Lines(), "\n")
	// The built program ran before any reconfigure, and nothing outside the repository.
	if strings.Contains(lines, "cmake -S") || strings.Contains(lines, "evil") || strings.Contains(lines, "other") {
		t.Errorf("ran more than the program:\n%s", lines)
	}
}
