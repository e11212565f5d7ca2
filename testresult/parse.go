package testresult

import (
	"regexp"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// The framework names a [Result] carries in Counts.Framework.
const (
	CTest    = "ctest"
	Automake = "automake"
	Meson    = "meson"
	GoTest   = "go"
	Cargo    = "cargo"
	TAP      = "tap"
	Doctest  = "doctest"
)

// MaxFailedNames bounds the failed test names kept; Counts.Failed keeps the total.
const MaxFailedNames = 50

// NoteUnknown is the note of a result whose framework no parser recognised.
const NoteUnknown = "unknown test framework: the verdict is the command's exit code alone, no tests were counted"

// Result is what one test command's output says.
type Result struct {
	// Counts are the framework's counts; nil when no parser recognised the output.
	Counts *atesor.TestCounts
	// NoTests is set when the framework ran no test at all.
	NoTests bool
	// Signalled are the failed tests that died by a signal (SIGSEGV, SIGILL, SIGBUS,
	// SIGABRT or a qemu-reported target signal): candidates for one rerun.
	Signalled []string
	// Note says why the result is not a plain count (NoteUnknown, or what showed that
	// no test ran).
	Note string
}

// parser reads one framework's output; ok is false when the output is not that
// framework's.
type parser func(out string) (Result, bool)

// parsers are tried in order: the most specific markers first.
var parsers = []parser{parseGoJSON, parseCargo, parseCTest, parseMeson, parseAutomake, parseDoctest, parseProve, parseTAP, parseGoPlain, parseMakeNothing}

// Parse reads the output of a test command. Output no parser recognises gives a Result
// with nil Counts and [NoteUnknown].
func Parse(out string) Result {
	out = clean(out)
	for _, p := range parsers {
		if r, ok := p(out); ok {
			if r.Counts != nil {
				r.Counts.FailedTests = bound(r.Counts.FailedTests)
				if r.Counts.Ran == 0 && r.Counts.Failed == 0 {
					r.NoTests = true
				}
			}
			r.Signalled = bound(uniq(r.Signalled))
			return r
		}
	}
	return Result{Note: NoteUnknown}
}

// ansi matches terminal colour sequences, which automake and meson print on a tty.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// clean drops colour sequences and carriage returns.
func clean(out string) string {
	if strings.Contains(out, "\x1b[") {
		out = ansi.ReplaceAllString(out, "")
	}
	return strings.ReplaceAll(out, "\r", "")
}

// uniq returns names without duplicates, in first-seen order.
func uniq(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func bound(names []string) []string {
	names = uniq(names)
	if len(names) > MaxFailedNames {
		names = names[:MaxFailedNames]
	}
	return names
}

// signalWords are the words a framework uses for a test that died by a signal.
var signalWords = regexp.MustCompile(`(?i)SIGSEGV|SIGILL|SIGBUS|SIGABRT|SEGFAULT|seg ?fault|segmentation fault|illegal instruction|bus error|BUS_ERROR|\bILLEGAL\b|Child aborted|Subprocess aborted|core dumped|uncaught target signal|killed by signal|\(signal: \d+`)

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return n
		}
		n = n*10 + int(c-'0')
		if n > 1<<30 {
			return 1 << 30
		}
	}
	return n
}

func sorted(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}
