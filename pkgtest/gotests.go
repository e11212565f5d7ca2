package pkgtest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// Go test suites under emulation: go test's default per-package timeout is 10 minutes,
// and one slow or hung package would take the whole test time bound with it, leaving no
// counts. So the full suite runs with a per-package -timeout of half the time left; when
// it does not finish in that half (the command ran out of time, or a package hit its
// timeout), the suite runs again with -short in the other half, and the result says so.

var (
	// goTestWord finds a go test invocation on a command line.
	goTestWord = regexp.MustCompile(`(^|&&\s*|;\s*|\s)go test(\s|$)`)
	// goTestJSONWord is go test with the -json flag withGoJSON adds first.
	goTestJSONWord = regexp.MustCompile(`(^|&&\s*|;\s*|\s)go test -json(\s|$)`)
	// goTestTimeoutFlag is an explicit -timeout of a go test line.
	goTestTimeoutFlag = regexp.MustCompile(`\s-(?:test\.)?timeout[= ]`)
	// goTestTimedOut is go test's panic when a test binary exceeds its -timeout.
	goTestTimedOut = regexp.MustCompile(`panic: test timed out after`)
)

// minShortRun is the least time worth a -short rerun.
const minShortRun = 30 * time.Second

// minGoTestTimeout is the least per-package -timeout worth giving: with less than
// twice this left, the full suite gets all of the time and no -short rerun follows
// (half of a few seconds would time every package out, and -timeout=0s would even
// turn the timeout off).
const minGoTestTimeout = minShortRun

// goTestCmd finds go test without -json at the start of a command of a line, after
// any NAME=value assignments (GOTOOLCHAIN=auto go test ./...).
var goTestCmd = regexp.MustCompile(`(^|&&\s*|;\s*|\|\|\s*)((?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|[^\s'"]*)\s+)*)go test\b`)

// withGoJSON adds -json to go test commands, so that their tests are counted.
func withGoJSON(cmds []string) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		if goTestCmd.MatchString(c) && !strings.Contains(c, "-json") {
			c = goTestCmd.ReplaceAllString(c, "${1}${2}go test -json")
		}
		out[i] = c
	}
	return out
}

// withGoTestFlags adds flags to every go test of the lines (after -json when present)
// whose line sets no -timeout of its own; other lines are returned as they are.
func withGoTestFlags(lines []string, flags string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case !goTestWord.MatchString(l) || goTestTimeoutFlag.MatchString(l):
			out[i] = l
		case goTestJSONWord.MatchString(l):
			out[i] = goTestJSONWord.ReplaceAllString(l, "${1}go test -json "+flags+"${2}")
		default:
			out[i] = goTestWord.ReplaceAllString(l, "${1}go test "+flags+"${2}")
		}
	}
	return out
}

// withoutGoSanitizers drops -race and -msan from go test commands: the go command
// refuses them on linux/riscv64 before any test runs, and the tests are the same
// without the instrumentation. The note says what was dropped and why; it is
// empty when nothing was.
func withoutGoSanitizers(cmds []string) ([]string, string) {
	out := slices.Clone(cmds)
	var dropped []string
	for i, c := range out {
		if !goTestWord.MatchString(c) {
			continue
		}
		n, d := repair.DropGoSanitizers(c, nil)
		out[i] = n
		for _, f := range d {
			if !slices.Contains(dropped, f) {
				dropped = append(dropped, f)
			}
		}
	}
	if len(dropped) == 0 {
		return out, ""
	}
	return out, strings.Join(dropped, ", ") + " dropped from go test: linux/riscv64 has no Go " +
		strings.Join(sanitizerNames(dropped), " or ") + "; the tests ran without the instrumentation"
}

// sanitizerNames names the tools behind go test's flags.
func sanitizerNames(flags []string) []string {
	names := map[string]string{"-race": "race detector", "-msan": "memory sanitizer"}
	out := make([]string, 0, len(flags))
	for _, f := range flags {
		out = append(out, names[f])
	}
	return out
}

// runBoundedCandidate runs a test candidate; one with go test commands runs under the
// per-package bound and falls back to -short as described above.
func (r *runner) runBoundedCandidate(ctx context.Context, c testCandidate, deadline time.Time) *testRun {
	if !slices.ContainsFunc(c.cmds, goTestWord.MatchString) {
		return r.runCandidate(ctx, c, deadline)
	}
	left := time.Until(deadline)
	half := (left / 2).Round(time.Second)
	full := c
	if half < minGoTestTimeout {
		// Too little time for two runs: the full suite gets all of it.
		full.cmds = withGoTestFlags(c.cmds, "-timeout="+max(left.Round(time.Second), time.Second).String())
		return r.runCandidate(ctx, full, deadline)
	}
	full.cmds = withGoTestFlags(c.cmds, "-timeout="+half.String())
	if slices.Equal(full.cmds, c.cmds) {
		return r.runCandidate(ctx, c, deadline) // the commands set their own timeouts
	}
	tr := r.runCandidate(ctx, full, time.Now().Add(half))
	if !tr.res.TimedOut && !goTestTimedOut.MatchString(tr.out.String()) {
		return tr
	}
	rest := time.Until(deadline).Round(time.Second)
	exceeded := fmt.Sprintf("the full go test suite did not finish within %s per package and in all (half of the test time bound) under emulation", half)
	if rest < minShortRun || ctx.Err() != nil {
		tr.res.Note = joinNote(tr.res.Note, exceeded+"; no time was left for a -short run")
		return tr
	}
	short := c
	short.cmds = withGoTestFlags(c.cmds, "-short -timeout="+rest.String())
	short.why = exceeded + ": running the suite with -short"
	r.emit(atesor.Event{Kind: atesor.EventInfo, Phase: Phase, Line: short.why})
	tr2 := r.runCandidate(ctx, short, deadline)
	both := tr.out.String() + tr2.out.String()
	tr2.out.Reset()
	tr2.out.WriteString(both)
	tr2.res.Short = true
	tr2.res.Note = joinNote(tr2.res.Note, exceeded+"; the counts are from go test -short (per-package timeout "+rest.String()+")")
	return tr2
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
