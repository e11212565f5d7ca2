package testresult

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

func TestParseDoctest(t *testing.T) {
	sep := doctestSeparator + "\n"
	tests := []struct {
		name      string
		out       string
		want      *atesor.TestCounts
		noTests   bool
		signalled []string
	}{
		{name: "all passed", out: "[doctest] doctest version is \"2.4.11\"\n" + sep +
			"[doctest] test cases: 186 | 186 passed | 0 failed | 0 skipped\n[doctest] assertions: 900 | 900 passed | 0 failed |\n[doctest] Status: SUCCESS!\n",
			want: &atesor.TestCounts{Framework: Doctest, Ran: 186, Passed: 186}},
		{name: "two programs added up", out: "[doctest] test cases: 2 | 2 passed | 0 failed | 0 skipped\n" +
			sep + "a.cpp(3):\nTEST CASE:  b\n\na.cpp(4): ERROR: CHECK( x ) is NOT correct!\n" + sep +
			"[doctest] test cases: 3 | 2 passed | 1 failed |\n",
			want: &atesor.TestCounts{Framework: Doctest, Ran: 5, Passed: 4, Failed: 1, FailedTests: []string{"b"}}},
		{name: "an exception", out: sep + "x.cpp:1:\nTEST CASE:  throws\n\nx.cpp:1: ERROR: test case THREW exception: boom\n" + sep +
			"[doctest] test cases: 1 | 0 passed | 1 failed | 0 skipped\n",
			want: &atesor.TestCounts{Framework: Doctest, Ran: 1, Failed: 1, FailedTests: []string{"throws"}}},
		{name: "killed before the summary", out: "[doctest] doctest version is \"2.4.11\"\n" + sep +
			"x.cpp:1:\nTEST CASE:  dies\n\nx.cpp:1: FATAL ERROR: test case CRASHED: SIGILL - Illegal instruction signal\n",
			want: &atesor.TestCounts{Framework: Doctest, Ran: 1, Failed: 1, FailedTests: []string{"dies"}}, signalled: []string{"dies"}},
		{name: "filtered to nothing", out: "[doctest] test cases: 0 | 0 passed | 0 failed | 5 skipped\n",
			want: &atesor.TestCounts{Framework: Doctest, Skipped: 5}, noTests: true},
		{name: "a failed count above the ran count", out: "[doctest] test cases: 1 | 0 passed | 9 failed | 0 skipped\n",
			want: &atesor.TestCounts{Framework: Doctest, Ran: 1, Failed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.out)
			if diff := cmp.Diff(tt.want, got.Counts); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if got.NoTests != tt.noTests {
				t.Errorf("NoTests = %t, want %t", got.NoTests, tt.noTests)
			}
			if diff := cmp.Diff(tt.signalled, got.Signalled); diff != "" {
				t.Errorf("signalled (-want +got):\n%s", diff)
			}
		})
	}
	// The banner alone is no count: the exit code decides.
	if got := Parse("[doctest] doctest version is \"2.4.11\"\n[doctest] run with \"--help\" for options\n"); got.Counts != nil {
		t.Errorf("a banner alone gave %+v", got.Counts)
	}
}
