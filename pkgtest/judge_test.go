package pkgtest

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

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
			s := &atesor.State{
				RunPart:    atesor.RunPart{RepoName: "pkg"},
				RoutePart:  atesor.RoutePart{Status: atesor.StatusVerified},
				VerifyPart: atesor.VerifyPart{Verified: true},
			}
			s.FixAttempts, s.Patches, s.Tests = tt.fixes, tt.patches, tt.tests
			Judge(s)
			if s.Status != tt.status {
				t.Errorf("status %s, want %s", s.Status, tt.status)
			}
			if got := atesor.VerdictLine(s.Status, s.Tests); got != tt.verdict {
				t.Errorf("verdict %q, want %q", got, tt.verdict)
			}
		})
	}
}
