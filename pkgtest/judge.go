package pkgtest

import (
	"fmt"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/internal/fixfiles"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
)

// Judge decides what the package tests (s.Tests) mean for a verified port: failing
// tests after fixes that changed source files mark it tests_failing (not proven to
// work, not learned), which sets s.Status and s.EscalationReason; after fixes to build
// files only, the port stays verified. It reads s.Tests, s.Patches and s.FixAttempts,
// and returns the line to report to the user ("" when no test fails).
func Judge(s *atesor.State) string {
	t := s.Tests
	n := t.FailingCount()
	if n == 0 {
		return ""
	}
	changed := fixfiles.Changed(s)
	if len(changed) == 0 {
		return testsFailingLine(s)
	}
	s.Status = atesor.StatusTestsFailing
	s.EscalationReason = fmt.Sprintf("%d package tests failed after fixes changed source files (%s)", n, strings.Join(textlist.Limit(changed, 5), ", "))
	return string(s.Status) + ": " + s.EscalationReason
}

// testsFailingLine is the verdict line of a verified port whose package tests fail
// without a fix to blame: it says whether there were fixes (to build files only) or none
// at all, as the state records them.
func testsFailingLine(s *atesor.State) string {
	line := atesor.VerdictLine(s.Status, s.Tests)
	if !fixesMade(s) {
		return line + " (no fixes were made: the package failed its own tests as it is)"
	}
	return line + " (the fixes changed build files only)"
}

// fixesMade reports whether any fix changed something: ran a command, wrote or patched
// a file, or replaced the plan. A refused or invalid attempt changed nothing.
func fixesMade(s *atesor.State) bool {
	if len(s.Patches) > 0 {
		return true
	}
	for _, f := range s.FixAttempts {
		if len(f.Commands) > 0 || len(f.Files) > 0 || f.Plan != nil {
			return true
		}
	}
	return false
}

// Evidence is the recipe's paragraph on the package tests t of a port with status: the
// commands, the counts, the failed tests' names and the verdict they lead to; "" when
// no test ran. Every name in it is escaped, so a test's name cannot change the
// recipe's structure.
func Evidence(t *atesor.TestResult, status atesor.Status) string {
	if t == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Package tests (`%s`): %s", escape.Code(strings.Join(t.Commands, " && ")), escape.Markdown(t.Summary()))
	if t.Counts != nil {
		fmt.Fprintf(&b, " [%s]", escape.Markdown(t.Counts.Framework))
	}
	fmt.Fprintf(&b, ", in %s.\n", t.Duration.Round(1e9))
	if t.Counts != nil && len(t.Counts.FailedTests) > 0 {
		b.WriteString("\nFailed tests:\n\n")
		for _, n := range t.Counts.FailedTests {
			fmt.Fprintf(&b, "- `%s`\n", escape.Code(n))
		}
	}
	for _, c := range t.NoTestsFrom {
		fmt.Fprintf(&b, "\nNo tests ran from `%s`.\n", escape.Code(c))
	}
	if t.Note != "" && !t.NoTests {
		fmt.Fprintf(&b, "\nNote: %s.\n", escape.Markdown(t.Note))
	}
	fmt.Fprintf(&b, "\nTest verdict: **%s**.\n", atesor.VerdictLine(status, t))
	return b.String()
}
