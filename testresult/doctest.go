package testresult

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

var (
	// doctestSummary is doctest's closing count: "[doctest] test cases: 186 | 185
	// passed | 1 failed | 0 skipped" (the skipped part is optional).
	doctestSummary = regexp.MustCompile(`(?m)^\[doctest\] test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed\s*\|(?:\s*(\d+) skipped)?`)
	// doctestCase names the test case a report block is about: "TEST CASE:  name".
	doctestCase = regexp.MustCompile(`^TEST CASE:\s+(.+?)\s*$`)
	// doctestError is a failed assertion or a crash in a report block:
	// "file.cpp:12: ERROR: CHECK( ... ) is NOT correct!", "file.cpp(12): FATAL ERROR:
	// test case CRASHED: SIGSEGV - ...". A WARNING is not a failure.
	doctestError = regexp.MustCompile(`^\S.*?(?::\d+:|\(\d+\):) (?:FATAL )?ERROR: `)
)

// doctestSeparator starts each report block and the summary.
const doctestSeparator = "==============================================================================="

// parseDoctest reads a doctest program's console report: the summary lines (several
// programs' added up) and, in the blocks before them, the test cases with a failed
// assertion, a thrown exception or a crash. Skipped counts the cases the filters left
// out (doctest::skip()).
func parseDoctest(out string) (Result, bool) {
	sums := doctestSummary.FindAllStringSubmatch(out, -1)
	if len(sums) == 0 && !strings.Contains(out, "[doctest] doctest version is") {
		return Result{}, false
	}
	c := &atesor.TestCounts{Framework: Doctest}
	var r Result
	current := ""
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == doctestSeparator:
			current = ""
		case current == "" && doctestCase.MatchString(l):
			current = doctestCase.FindStringSubmatch(l)[1]
		case current != "" && doctestError.MatchString(l):
			c.FailedTests = append(c.FailedTests, current)
			if strings.Contains(l, "test case CRASHED") || signalWords.MatchString(l) {
				r.Signalled = append(r.Signalled, current)
			}
		}
	}
	c.FailedTests = uniq(c.FailedTests)
	if len(sums) == 0 {
		if len(c.FailedTests) == 0 {
			return Result{}, false // a banner alone: the program ended before any count
		}
		// Killed before its summary: the named failures are all that is known.
		c.Ran, c.Failed = len(c.FailedTests), len(c.FailedTests)
		r.Counts = c
		return r, true
	}
	for _, m := range sums {
		ran, failed := atoi(m[1]), atoi(m[3])
		failed = min(failed, ran)
		c.Ran += ran
		c.Failed += failed
		c.Passed += ran - failed
		c.Skipped += atoi(m[4])
	}
	r.Counts = c
	return r, true
}
