package testresult

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

var (
	// automakeCount is a line of the summary block, on the console ("# PASS:  4") or
	// in test-suite.log ("# PASS:  4" too).
	automakeCount = regexp.MustCompile(`(?m)^#\s+(TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):\s+(\d+)\s*$`)
	// automakeResult is one test's result line: "FAIL: tests/foo" (console) or the
	// heading of its section in test-suite.log.
	automakeResult = regexp.MustCompile(`(?m)^(PASS|SKIP|XFAIL|FAIL|XPASS|ERROR): (\S+)`)
	// automakeExit is test-suite.log's last line of a test: "FAIL segv (exit status: 139)".
	// 132, 134, 135 and 139 are a shell's 128 + SIGILL, SIGABRT, SIGBUS and SIGSEGV.
	automakeExit = regexp.MustCompile(`(?m)^(?:FAIL|ERROR) (\S+) \(exit status: (13[2459])\)`)
	// automakeCrash is the shell's report of a test it ran dying, on the console just
	// before the test's result line: "./test-driver: line 119:   243 Segmentation fault".
	automakeCrash = regexp.MustCompile(`(?m)^.*\b(?:Segmentation fault|Illegal instruction|Bus error|Aborted)\b.*\n(?:FAIL|ERROR): (\S+)`)
)

// parseAutomake reads the summary of automake's parallel test driver. A recursive
// make check prints one summary per directory; they are added up. XFAIL counts as a
// pass (an expected failure), XPASS and ERROR as failures, as automake does.
func parseAutomake(out string) (Result, bool) {
	blocks := automakeCount.FindAllStringSubmatch(out, -1)
	if len(blocks) == 0 {
		return Result{}, false
	}
	counts := map[string]int{}
	total := 0
	for _, m := range blocks {
		n := atoi(m[2])
		if m[1] == "TOTAL" {
			total += n
			continue
		}
		counts[m[1]] += n
	}
	c := &atesor.TestCounts{Framework: Automake}
	c.Passed = counts["PASS"] + counts["XFAIL"]
	c.Failed = counts["FAIL"] + counts["XPASS"] + counts["ERROR"]
	c.Skipped = counts["SKIP"]
	c.Ran = c.Passed + c.Failed
	if total > 0 && total != c.Ran+c.Skipped {
		// A summary cut off by the kept tail: trust TOTAL for what ran.
		c.Ran = max(total-c.Skipped, c.Failed)
		c.Passed = c.Ran - c.Failed
	}
	var r Result
	for _, m := range automakeResult.FindAllStringSubmatch(out, -1) {
		switch m[1] {
		case "FAIL", "XPASS", "ERROR":
			c.FailedTests = append(c.FailedTests, m[2])
		}
	}
	for _, m := range automakeExit.FindAllStringSubmatch(out, -1) {
		r.Signalled = append(r.Signalled, m[1])
	}
	for _, m := range automakeCrash.FindAllStringSubmatch(out, -1) {
		r.Signalled = append(r.Signalled, m[1])
	}
	// A failed test whose own log, shown in test-suite.log, ends in a qemu-reported
	// signal or a shell's "Segmentation fault" died by a signal too.
	for _, sec := range testSuiteSections(out) {
		if sec.failed && signalWords.MatchString(sec.body) {
			r.Signalled = append(r.Signalled, sec.name)
		}
	}
	c.FailedTests = uniq(c.FailedTests)
	r.Counts = c
	return r, true
}

type logSection struct {
	name, body string
	failed     bool
}

// testSuiteSections splits test-suite.log into the sections of the tests that did not
// pass: a "FAIL: name" heading underlined with '=' and the test's log below it.
func testSuiteSections(out string) []logSection {
	lines := strings.Split(out, "\n")
	var secs []logSection
	for i := 0; i+1 < len(lines); i++ {
		m := automakeResult.FindStringSubmatch(lines[i])
		if m == nil || !strings.HasPrefix(lines[i+1], "===") {
			continue
		}
		end := i + 2
		for end < len(lines) && (end+1 >= len(lines) || automakeResult.FindStringIndex(lines[end]) == nil || !strings.HasPrefix(lines[end+1], "===")) {
			end++
		}
		secs = append(secs, logSection{name: m[2], body: strings.Join(lines[i+2:end], "\n"),
			failed: m[1] == "FAIL" || m[1] == "ERROR" || m[1] == "XPASS"})
		i = end - 1
	}
	return secs
}
