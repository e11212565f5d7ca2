package testresult

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

var (
	// tapPlan is a TAP plan: "1..12", or "1..0 # SKIP reason".
	tapPlan = regexp.MustCompile(`(?m)^\s*1\.\.(\d+)(.*)$`)
	// tapLine is a test line: "ok 3 - name # SKIP why" or "not ok 4 name # TODO".
	tapLine = regexp.MustCompile(`(?m)^(\s*)(not ok|ok)\b[ \t]*(\d+)?[ \t]*(?:-[ \t]*)?([^#\n]*?)[ \t]*(?:#[ \t]*(\S+)(.*))?$`)
	// tapBail is "Bail out! reason".
	tapBail = regexp.MustCompile(`(?m)^Bail out!(.*)$`)
	// proveFiles is prove's closing line: "Files=3, Tests=42, ...".
	proveFiles = regexp.MustCompile(`(?m)^Files=(\d+), Tests=(\d+),`)
	// proveFailed is prove's report of a test file: "t/b.t (Wstat: 256 (exited 1) Tests: 4 Failed: 2)".
	proveFailed = regexp.MustCompile(`(?m)^(\S+)\s+\(Wstat: (\d+)[^)]*(?:\)[^)]*)?Tests: (\d+) Failed: (\d+)\)`)
	// proveSkipped is prove's line for a test file skipped whole: "t/c.t .. skipped: why".
	proveSkipped = regexp.MustCompile(`(?m)^\S+ \.+ skipped:`)
	// proveSubtests is a failed file's "Failed 2/3 subtests".
	proveSubtests = regexp.MustCompile(`(?m)^Failed (\d+)/(\d+) subtests`)
	// proveLessSkipped is "(less 1 skipped subtest: 3 okay)".
	proveLessSkipped = regexp.MustCompile(`\(less (\d+) skipped subtests?`)
)

// parseTAP reads a raw TAP stream: top-level test lines (subtests are indented and
// summarised by their parent's line). SKIP counts as skipped, TODO as passed whatever
// its result, as TAP says.
func parseTAP(out string) (Result, bool) {
	lines := tapLine.FindAllStringSubmatch(out, -1)
	plans := tapPlan.FindAllStringSubmatch(out, -1)
	if len(lines) == 0 {
		for _, p := range plans {
			if p[1] == "0" {
				return Result{Counts: &atesor.TestCounts{Framework: TAP}, NoTests: true, Note: "tap: plan 1..0" + p[2]}, true
			}
		}
		return Result{}, false
	}
	if len(plans) == 0 && !strings.Contains(out, "TAP version") {
		return Result{}, false // "ok" lines alone are not enough to call it TAP
	}
	c := &atesor.TestCounts{Framework: TAP}
	var r Result
	planned := 0
	for _, p := range plans {
		if !strings.HasPrefix(p[0], " ") && !strings.HasPrefix(p[0], "\t") {
			planned += atoi(p[1])
		}
	}
	for _, m := range lines {
		if m[1] != "" {
			continue // a subtest
		}
		directive := strings.ToUpper(m[5])
		name := strings.TrimSpace(m[4])
		if name == "" {
			name = "test " + m[3]
		}
		switch {
		case strings.HasPrefix(directive, "SKIP"):
			c.Skipped++
		case strings.HasPrefix(directive, "TODO"):
			c.Passed++
		case m[2] == "ok":
			c.Passed++
		default:
			c.Failed++
			c.FailedTests = append(c.FailedTests, name)
		}
	}
	// Tests the plan promised that never reported (a crash, a bail out) fail too.
	if missing := planned - (c.Passed + c.Failed + c.Skipped); missing > 0 {
		c.Failed += missing
		reason := "planned tests that did not report"
		if b := tapBail.FindStringSubmatch(out); b != nil {
			reason = "Bail out!" + b[1]
		}
		c.FailedTests = append(c.FailedTests, strings.TrimSpace(reason))
		if signalWords.MatchString(out) {
			r.Signalled = append(r.Signalled, strings.TrimSpace(reason))
		}
	}
	c.Ran = c.Passed + c.Failed
	c.FailedTests = uniq(c.FailedTests)
	r.Counts = c
	return r, true
}

// parseProve reads the summary of prove, Perl's TAP harness. Tests= counts the tests
// that reported, skipped ones included; each failed file's "Failed X/Y subtests" counts
// its failures, the planned tests that never reported among them (a crash), and its
// "less N skipped subtests" its skips. The Test Summary Report names the failed files.
func parseProve(out string) (Result, bool) {
	files := proveFiles.FindAllStringSubmatch(out, -1)
	if len(files) == 0 {
		return Result{}, false
	}
	last := files[len(files)-1]
	reported := atoi(last[2])
	c := &atesor.TestCounts{Framework: TAP}
	var r Result
	failedXY := 0
	for _, m := range proveSubtests.FindAllStringSubmatch(out, -1) {
		failedXY += atoi(m[1])
	}
	skippedSub := 0
	for _, m := range proveLessSkipped.FindAllStringSubmatch(out, -1) {
		skippedSub += atoi(m[1])
	}
	failedSummary, failedFiles := 0, 0
	for _, m := range proveFailed.FindAllStringSubmatch(out, -1) {
		failedSummary += atoi(m[4])
		failedFiles++
		c.FailedTests = append(c.FailedTests, m[1])
		if w := atoi(m[2]); w&0x7f != 0 {
			r.Signalled = append(r.Signalled, m[1]) // killed by a signal
		}
	}
	missing := max(failedXY-failedSummary, 0)
	c.Failed = max(failedXY, failedSummary)
	if c.Failed == 0 && failedFiles > 0 {
		c.Failed = failedFiles // a file that failed by its exit status alone
	}
	c.Skipped = skippedSub + len(proveSkipped.FindAllString(out, -1))
	c.Ran = max(reported-skippedSub+missing, c.Failed)
	c.Passed = c.Ran - c.Failed
	c.FailedTests = uniq(c.FailedTests)
	r.Counts = c
	return r, true
}
