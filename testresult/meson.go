package testresult

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

var (
	// mesonCount is a line of meson test's summary: "Ok:                 5".
	mesonCount = regexp.MustCompile(`(?m)^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+(\d+)\s*$`)
	// mesonLine is one finished test: " 2/12 project:suite / name   FAIL   0.02s   exit status 1".
	mesonLine = regexp.MustCompile(`(?m)^\s*\d+/\d+ (.+?)\s+(OK|FAIL|SKIP|EXPECTEDFAIL|UNEXPECTEDPASS|TIMEOUT|ERROR|INTERRUPT)\s+[\d.]+s\b(.*)$`)
)

// parseMeson reads meson test's summary block and its per-test lines.
// "No tests defined." is NoTests.
func parseMeson(out string) (Result, bool) {
	blocks := mesonCount.FindAllStringSubmatch(out, -1)
	if len(blocks) < 3 {
		if strings.Contains(out, "No tests defined.") {
			return Result{Counts: &atesor.TestCounts{Framework: Meson}, NoTests: true, Note: "meson: No tests defined"}, true
		}
		return Result{}, false
	}
	counts := map[string]int{}
	for _, m := range blocks {
		counts[m[1]] += atoi(m[2])
	}
	c := &atesor.TestCounts{Framework: Meson}
	c.Passed = counts["Ok"] + counts["Expected Fail"]
	c.Failed = counts["Fail"] + counts["Unexpected Pass"] + counts["Timeout"]
	c.Skipped = counts["Skipped"]
	c.Ran = c.Passed + c.Failed
	var r Result
	for _, m := range mesonLine.FindAllStringSubmatch(out, -1) {
		switch m[2] {
		case "OK", "SKIP", "EXPECTEDFAIL":
			continue
		}
		c.FailedTests = append(c.FailedTests, strings.TrimSpace(m[1]))
		if signalWords.MatchString(m[3]) {
			r.Signalled = append(r.Signalled, strings.TrimSpace(m[1]))
		}
	}
	c.FailedTests = uniq(c.FailedTests)
	r.Counts = c
	return r, true
}

// mesonTestName is the name meson test accepts for a line's "project:suite / name".
func mesonTestName(s string) string {
	if i := strings.LastIndex(s, " / "); i >= 0 {
		return s[i+3:]
	}
	return s
}
