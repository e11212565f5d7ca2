package testresult

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

var (
	// ctestLine is one finished test: " 3/10 Test  #3: name ....   Passed    0.01 sec".
	ctestLine = regexp.MustCompile(`(?m)^\s*\d+/\d+\s+Test\s+#\d+:\s+(.+?)\s+\.*\s*(\*{3})?(Passed|Failed|Skipped|Not Run(?: \(Disabled\))?|Exception: [^\d]*?|Timeout|SIGTRAP|Subprocess aborted|Child aborted|[A-Za-z_ ]+?)\s+[\d.]+ sec`)
	// ctestSummary is "90% tests passed, 1 tests failed out of 10".
	ctestSummary = regexp.MustCompile(`(?m)^\s*\d+% tests passed, (\d+) tests? failed out of (\d+)`)
	// ctestListed is a line of the lists after the summary: "\t  3 - name (SEGFAULT)".
	ctestListed = regexp.MustCompile(`^\s+\d+ - (.+) \(([^()]*(?:\([^()]*\))?[^()]*)\)\s*$`)
)

// parseCTest reads ctest's per-test lines and summary. "No tests were found!!!" is
// NoTests.
func parseCTest(out string) (Result, bool) {
	sum := ctestSummary.FindAllStringSubmatch(out, -1)
	lines := ctestLine.FindAllStringSubmatch(out, -1)
	noTests := strings.Contains(out, "No tests were found!!!")
	if len(sum) == 0 && len(lines) == 0 {
		if noTests {
			return Result{Counts: &atesor.TestCounts{Framework: CTest}, NoTests: true, Note: "ctest: No tests were found"}, true
		}
		return Result{}, false
	}
	c := &atesor.TestCounts{Framework: CTest}
	var r Result
	for _, m := range lines {
		name, status := strings.TrimSpace(m[1]), strings.TrimSpace(m[3])
		switch {
		case status == "Passed":
			c.Passed++
		case status == "Skipped" || strings.HasPrefix(status, "Not Run (Disabled)"):
			c.Skipped++
		default:
			c.Failed++
			c.FailedTests = append(c.FailedTests, name)
			if signalWords.MatchString(status) {
				r.Signalled = append(r.Signalled, name)
			}
		}
	}
	// The lists after the summary name the failed tests even when the per-test lines
	// scrolled out of the kept output.
	section := ""
	var listedFailed, listedSkipped int
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "The following tests FAILED:"):
			section = "failed"
			continue
		case strings.HasPrefix(l, "The following tests did not run:"):
			section = "skipped"
			continue
		}
		m := ctestListed.FindStringSubmatch(l)
		if m == nil {
			if strings.TrimSpace(l) != "" {
				section = ""
			}
			continue
		}
		switch section {
		case "failed":
			listedFailed++
			c.FailedTests = append(c.FailedTests, m[1])
			if signalWords.MatchString(m[2]) {
				r.Signalled = append(r.Signalled, m[1])
			}
		case "skipped":
			listedSkipped++
		}
	}
	if len(sum) > 0 {
		// The summary is the framework's own count: it wins over lines that may have
		// scrolled away. ctest counts skipped tests among those that passed.
		last := sum[len(sum)-1]
		failed, total := atoi(last[1]), atoi(last[2])
		skipped := max(c.Skipped, listedSkipped)
		if failed+c.Passed+c.Skipped < total || c.Failed != failed {
			c.Failed = failed
			c.Skipped = min(skipped, total-failed)
			c.Passed = total - failed - c.Skipped
		}
	}
	c.Ran = c.Passed + c.Failed
	c.FailedTests = uniq(c.FailedTests)
	return Result{Counts: c, Signalled: r.Signalled}, true
}
