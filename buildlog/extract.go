package buildlog

import (
	"strings"
	"unicode/utf8"

	"github.com/eclipse-atesor/atesor-go"
)

// MaxChars bounds the extracted error: enough for a diagnostic, its include chain and the
// failing command's last lines, small enough to leave room for the rest of a prompt.
const MaxChars = 3000

// Limits of the parts of the extracted error.
const (
	maxDiagnosticChars = 1000 // the first line
	maxContextChars    = 1800 // the first line and its context
	maxContextLines    = 24
	tailLines          = 15
	walkBackLines      = 12 // context before a summary line, which names no diagnostic
	cmakeMessageChars  = 400
)

// NoOutput is the diagnostic of a command that failed without printing anything.
const NoOutput = "the command failed with no output"

// tailHeader separates the context from the failing command's last lines.
const tailHeader = "--- last lines of the failing command ---"

// Evidence is what a failed command's output says went wrong.
type Evidence struct {
	// Diagnostic is the first line of Text: the diagnostic itself. A CMake error, whose
	// message stands on the lines under its header, is joined into one line.
	Diagnostic string `json:"diagnostic"`
	// Context is what explains the diagnostic: the include chain, the function, the
	// source excerpt and notes of a compiler error, the message block of a CMake or
	// configure error, the lines before a failure summary.
	Context string `json:"context,omitempty"`
	// Kind is the tool or kind of the diagnostic.
	Kind Kind `json:"kind"`
	// Strength ranks the diagnostic: only a Strong one is a clean error.
	Strength Strength `json:"strength"`
	// Target is the target make or ninja reported failed, if any.
	Target string `json:"target,omitempty"`
	// Line is the 1-based line of the diagnostic in the output; 0 when there is none.
	Line int `json:"line,omitempty"`
	// Text is the extracted error: Diagnostic, then Context, then the failing command's
	// last lines, at most MaxChars bytes.
	Text string `json:"text"`
}

// Strong reports whether the output held a diagnostic of a known tool.
func (e Evidence) Strong() bool { return e.Strength == Strong }

// Category classifies the error with [atesor.ClassifyError]: the diagnostic alone, else
// with its context, else the whole text, so that neither a line of context nor the
// output of another parallel job in the tail can outvote the diagnostic.
func (e Evidence) Category() atesor.ErrorCategory {
	for _, s := range []string{e.Diagnostic, e.Diagnostic + "\n" + e.Context, e.Text} {
		if c := atesor.ClassifyError(s); c != atesor.CategoryUnknown {
			return c
		}
	}
	return atesor.CategoryUnknown
}

// Extract reads the output of a failed command and returns the error that failed it.
// It never fails: output without any signal gives its last line, empty output gives
// [NoOutput].
func Extract(output string) Evidence {
	lines := cleanLines(output)
	if len(lines) == 0 {
		return Evidence{Diagnostic: NoOutput, Kind: KindTail, Text: NoOutput}
	}
	sigs := make([]signal, len(lines))
	for i, l := range lines {
		sigs[i] = classify(l)
	}
	a := analyse(lines, sigs)
	i := a.pick()
	if i < 0 {
		return assemble(lines, -1, signal{kind: KindTail}, a.target)
	}
	return assemble(lines, i, sigs[i], a.target)
}

// analysis holds the anchors of one output.
type analysis struct {
	lines  []string
	sigs   []signal
	start  int      // diagnostics before a failure make ignored do not count
	end    int      // nor do lines after the last failure line of make or ninja
	anchor int      // the first failure make or ninja reports, -1 if none
	target string   // its target
	others []string // the stems of the other failed targets
}

func analyse(lines []string, sigs []signal) *analysis {
	a := &analysis{lines: lines, sigs: sigs, end: len(lines), anchor: -1}
	last := -1
	for i, s := range sigs {
		if s.strength != Summary || (s.kind != KindMake && s.kind != KindNinja) {
			continue
		}
		if s.ignored {
			if a.anchor < 0 {
				a.start = i + 1
			}
			continue
		}
		last = i
		if s.target == "" {
			continue
		}
		if a.anchor < 0 {
			a.anchor, a.target = i, s.target
		} else if stem(s.target) != stem(a.target) {
			a.others = append(a.others, stem(s.target))
		}
	}
	if last >= 0 {
		a.end = last + 1
	}
	return a
}

// pick chooses the line of the diagnostic, or -1 when the output has no signal.
func (a *analysis) pick() int {
	// ninja prints a failed command's output whole, right under its FAILED: line.
	if a.anchor >= 0 && a.sigs[a.anchor].kind == KindNinja {
		if i := a.best(a.anchor+1, a.ninjaBlockEnd(a.anchor), Medium); i >= 0 {
			return i
		}
	}
	top := None
	for i := a.start; i < a.end; i++ {
		top = max(top, a.sigs[i].strength)
	}
	switch top {
	case None:
		return -1
	case Weak:
		for i := a.end - 1; i >= a.start; i-- { // the hint nearest the failure
			if a.sigs[i].strength == Weak {
				return i
			}
		}
	case Strong:
		// A configure, CMake or meson run ends at its error; earlier lines of the same
		// strength are things it survived.
		if a.anchor < 0 {
			for i := a.start; i < a.end; i++ {
				if s := a.sigs[i]; s.strength == Strong && (s.kind == KindConfigure || s.kind == KindCMake || s.kind == KindMeson) {
					return i
				}
			}
		}
	}
	bestScore, best := -1, -1
	for i := a.start; i < a.end; i++ {
		if a.sigs[i].strength != top {
			continue
		}
		if sc := a.belongs(i); sc > bestScore {
			bestScore, best = sc, i
		}
	}
	return best
}

// best is the first line of the highest strength of at least floor in [from, to).
func (a *analysis) best(from, to int, floor Strength) int {
	top, at := floor-1, -1
	for i := from; i < to; i++ {
		if s := a.sigs[i].strength; s > top {
			top, at = s, i
		}
	}
	return at
}

func (a *analysis) ninjaBlockEnd(from int) int {
	for i := from + 1; i < len(a.lines); i++ {
		t := a.lines[i]
		if ninjaStep.MatchString(t) || ninjaFailed.MatchString(t) || strings.HasPrefix(t, "ninja: build stopped") {
			return i
		}
	}
	return len(a.lines)
}

// belongs scores how surely diagnostic i belongs to the target make reported failed:
// 2 it does, 0 it belongs to another failed target, 1 it cannot be told.
func (a *analysis) belongs(i int) int {
	if a.target == "" {
		return 1
	}
	s := a.sigs[i]
	switch s.kind {
	case KindLinker:
		if objectTarget(a.target) {
			return 1
		}
		return 2
	case KindCompiler, KindGo:
		if s.file == "" {
			return 1
		}
		want := stem(a.target)
		files := []string{s.file}
		if root := a.chainRoot(i); root != "" {
			files = append(files, root)
		}
		for _, f := range files {
			if stem(f) == want {
				return 2
			}
		}
		for _, f := range files {
			for _, o := range a.others {
				if stem(f) == o {
					return 0
				}
			}
		}
	}
	return 1
}

// chainRoot is the translation unit at the bottom of the "In file included from" chain
// above line i, or "".
func (a *analysis) chainRoot(i int) string {
	root := ""
	for j := i - 1; j >= 0 && j >= i-30; j-- {
		if m := chainRoot.FindStringSubmatch(a.lines[j]); m != nil {
			if root == "" {
				root = m[1] // the nearest "from" line above the error is the outermost file
			}
			if strings.HasPrefix(a.lines[j], "In file included from ") {
				return root
			}
			continue
		}
		if !inFunction.MatchString(a.lines[j]) {
			break
		}
	}
	return root
}

// cleanLines splits output into lines without terminal escapes, keeping what a
// terminal would show of a line rewritten with carriage returns.
func cleanLines(output string) []string {
	output = strings.TrimRight(output, "\n\r\t ")
	if strings.TrimSpace(output) == "" {
		return nil
	}
	raw := strings.Split(output, "\n")
	lines := make([]string, len(raw))
	for i, l := range raw {
		l = strings.TrimRight(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		if strings.IndexByte(l, 0x1b) >= 0 {
			l = ansiEscape.ReplaceAllString(l, "")
		}
		if !utf8.ValidString(l) {
			l = strings.ToValidUTF8(l, "\uFFFD")
		}
		lines[i] = l
	}
	return lines
}
