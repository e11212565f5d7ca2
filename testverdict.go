package atesor

import (
	"fmt"
	"strings"
)

// Summary says in one line what the tests showed: "122 of 122 passed", "no tests ran",
// "3 of 40 failed (a, b, c)", or, for an unknown framework, the exit code.
func (t *TestResult) Summary() string {
	if t == nil {
		return "not run"
	}
	if t.NoTests {
		return "no tests ran"
	}
	var b strings.Builder
	switch c := t.Counts; {
	case c == nil:
		switch {
		case t.TimedOut:
			b.WriteString("timed out")
		case t.Passed:
			b.WriteString("passed (exit 0; tests not counted: unknown framework)")
		default:
			fmt.Fprintf(&b, "failed (exit %d; tests not counted: unknown framework)", t.ExitCode)
		}
	case c.Failed > 0:
		fmt.Fprintf(&b, "%d of %d failed", c.Failed, c.Ran)
		if len(c.FailedTests) > 0 {
			names := c.FailedTests
			more := ""
			if len(names) > 10 {
				names, more = names[:10], fmt.Sprintf(", and %d more", c.Failed-10)
			}
			fmt.Fprintf(&b, " (%s%s)", strings.Join(names, ", "), more)
		}
	default:
		fmt.Fprintf(&b, "%d of %d passed", c.Passed, c.Ran)
		if !t.Passed && !t.TimedOut {
			fmt.Fprintf(&b, ", but the test command failed (exit %d)", t.ExitCode)
		}
	}
	if c := t.Counts; c != nil {
		if c.Skipped > 0 {
			fmt.Fprintf(&b, ", %d skipped", c.Skipped)
		}
		if t.TimedOut {
			b.WriteString(", then timed out")
		}
	}
	if n := len(t.ClearedByRerun); n > 0 {
		fmt.Fprintf(&b, "; %d died by a signal and passed when rerun (%s)", n, strings.Join(t.ClearedByRerun, ", "))
	}
	if n := len(t.EmulatorFaults); n > 0 {
		fmt.Fprintf(&b, "; %d emulator faults, not counted as failures (%s)", n, strings.Join(t.EmulatorFaults, ", "))
	}
	return b.String()
}

// VerdictLine is the one-line verdict of a finished port: its status, and the number of
// failing tests next to a success, so that "verified" never stands alone beside
// failures ("verified, 3 tests failing").
func VerdictLine(status Status, t *TestResult) string {
	n := t.FailingCount()
	switch {
	case n == 0:
		return string(status)
	case n == 1:
		return string(status) + ", 1 test failing"
	}
	return fmt.Sprintf("%s, %d tests failing", status, n)
}
