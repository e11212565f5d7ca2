package testresult

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

// The outputs under testdata were captured by running real test suites: Go, cargo and
// prove on the host, ctest, automake and meson in the riscv64 sandbox (testdata/README).

func read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseRealOutputs(t *testing.T) {
	tests := []struct {
		file      string
		want      *atesor.TestCounts
		noTests   bool
		signalled []string
	}{
		{file: "go-json-mixed.txt", want: &atesor.TestCounts{Framework: GoTest, Ran: 8, Passed: 4, Failed: 4, Skipped: 1,
			FailedTests: []string{"example.com/trgo/calc.TestSub", "example.com/trgo/calc.TestTable/wrong", "example.com/trgo/calc.TestTable", "example.com/trgo/crash.TestDeref"}},
			signalled: []string{"example.com/trgo/crash"}},
		{file: "go-json-pass.txt", want: &atesor.TestCounts{Framework: GoTest, Ran: 1, Passed: 1, Skipped: 1}},
		{file: "go-json-notests.txt", want: &atesor.TestCounts{Framework: GoTest}, noTests: true},
		{file: "go-plain-notests.txt", want: &atesor.TestCounts{Framework: GoTest}, noTests: true},
		{file: "go-plain-mixed.txt", want: &atesor.TestCounts{Framework: GoTest, Ran: 4, Failed: 4,
			FailedTests: []string{"TestSub", "TestTable", "TestTable/wrong", "TestDeref"}},
			signalled: []string{"example.com/trgo/crash"}},
		{file: "cargo-mixed.txt", want: &atesor.TestCounts{Framework: Cargo, Ran: 5, Passed: 3, Failed: 2, Skipped: 1,
			FailedTests: []string{"tests::subtracts", "crash"}}, signalled: []string{"crash"}},
		{file: "cargo-pass.txt", want: &atesor.TestCounts{Framework: Cargo, Ran: 4, Passed: 4, Skipped: 1}},
		{file: "cargo-riscv64-itoa.txt", want: &atesor.TestCounts{Framework: Cargo, Ran: 12, Passed: 12}},
		{file: "ctest-mixed.txt", want: &atesor.TestCounts{Framework: CTest, Ran: 3, Passed: 1, Failed: 2, Skipped: 1,
			FailedTests: []string{"fail", "segv"}}, signalled: []string{"segv"}},
		{file: "ctest-notests.txt", want: &atesor.TestCounts{Framework: CTest}, noTests: true},
		{file: "automake-mixed.txt", want: &atesor.TestCounts{Framework: Automake, Ran: 4, Passed: 2, Failed: 2, Skipped: 1,
			FailedTests: []string{"fail", "segv"}}, signalled: []string{"segv"}},
		{file: "automake-test-suite-log.txt", want: &atesor.TestCounts{Framework: Automake, Ran: 4, Passed: 2, Failed: 2, Skipped: 1,
			FailedTests: []string{"fail", "segv"}}, signalled: []string{"segv"}},
		{file: "meson-mixed.txt", want: &atesor.TestCounts{Framework: Meson, Ran: 3, Passed: 1, Failed: 2, Skipped: 1,
			FailedTests: []string{"fail", "segv"}}, signalled: []string{"segv"}},
		{file: "meson-notests.txt", want: &atesor.TestCounts{Framework: Meson}, noTests: true},
		{file: "tap-raw-basic.txt", want: &atesor.TestCounts{Framework: TAP, Ran: 4, Passed: 3, Failed: 1, Skipped: 1,
			FailedTests: []string{"difference is wrong"}}},
		{file: "tap-raw-subtest.txt", want: &atesor.TestCounts{Framework: TAP, Ran: 2, Passed: 2}},
		{file: "tap-raw-skipall.txt", want: &atesor.TestCounts{Framework: TAP}, noTests: true},
		{file: "tap-prove-mixed.txt", want: &atesor.TestCounts{Framework: TAP, Ran: 9, Passed: 6, Failed: 3, Skipped: 2,
			FailedTests: []string{"t/basic.t", "t/crash.t"}}, signalled: []string{"t/crash.t"}},
		{file: "tap-prove-pass.txt", want: &atesor.TestCounts{Framework: TAP, Ran: 2, Passed: 2, Skipped: 1}},
		{file: "doctest-mixed.txt", want: &atesor.TestCounts{Framework: Doctest, Ran: 4, Passed: 2, Failed: 2, Skipped: 1,
			FailedTests: []string{"subtracts wrongly", "crashes"}}, signalled: []string{"crashes"}},
		{file: "doctest-nocrash.txt", want: &atesor.TestCounts{Framework: Doctest, Ran: 3, Passed: 2, Failed: 1, Skipped: 1,
			FailedTests: []string{"subtracts wrongly"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := Parse(read(t, tt.file))
			if diff := cmp.Diff(tt.want, got.Counts); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if got.NoTests != tt.noTests {
				t.Errorf("NoTests = %t, want %t (note %q)", got.NoTests, tt.noTests, got.Note)
			}
			if diff := cmp.Diff(tt.signalled, got.Signalled); diff != "" {
				t.Errorf("signalled (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseUnknownFallsBackToExitCode(t *testing.T) {
	for _, out := range []string{
		"", "hello world\nzlib version 1.3.1 = 0x1310, compile flags = 0xa9\n*** zlib test OK ***\n",
		"running the self-test... all good\n", "ok\n", // "ok" alone is not TAP
	} {
		got := Parse(out)
		if got.Counts != nil || got.NoTests || got.Note != NoteUnknown {
			t.Errorf("Parse(%q) = %+v, want the unknown-framework note", out, got)
		}
	}
}

func TestParseMakeNothing(t *testing.T) {
	tests := []struct {
		out     string
		noTests bool
	}{
		{"make: Nothing to be done for 'check'.\n", true},
		{"make[1]: Entering directory '/w'\nmake[1]: Nothing to be done for 'check'.\nmake[1]: Leaving directory '/w'\n", true},
		{"make: *** No rule to make target 'check'.  Stop.\n", true},
		{"make: *** No rule to make target 'test'.  Stop.\n", true},
		// A target that ran a program is not "nothing", whatever else make said.
		{"make[1]: Nothing to be done for 'check'.\n./example\n*** zlib test OK ***\n", false},
		{"make: Nothing to be done for 'all'.\n", false},
	}
	for _, tt := range tests {
		got := Parse(tt.out)
		if got.NoTests != tt.noTests {
			t.Errorf("Parse(%q).NoTests = %t, want %t (%+v)", tt.out, got.NoTests, tt.noTests, got)
		}
	}
}

func TestParseStripsColour(t *testing.T) {
	out := "\x1b[0;32mPASS\x1b[m: a\r\n\x1b[0;31mFAIL\x1b[m: b\n# TOTAL: 2\n# PASS:  1\n# SKIP:  0\n# XFAIL: 0\n# FAIL:  1\n# XPASS: 0\n# ERROR: 0\n"
	got := Parse(out)
	want := &atesor.TestCounts{Framework: Automake, Ran: 2, Passed: 1, Failed: 1, FailedTests: []string{"b"}}
	if diff := cmp.Diff(want, got.Counts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFailedNamesAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("1..200\n")
	for i := range 200 {
		b.WriteString("not ok " + itoa(i+1) + " - case " + itoa(i) + "\n")
	}
	got := Parse(b.String())
	if got.Counts.Failed != 200 || len(got.Counts.FailedTests) != MaxFailedNames {
		t.Errorf("failed %d with %d names, want 200 with %d", got.Counts.Failed, len(got.Counts.FailedTests), MaxFailedNames)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}
