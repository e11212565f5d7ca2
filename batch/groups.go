package batch

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// FailureGroup is the failed packages that share a failure class and, once normalised
// ([NormalizeError]), the first line of their extracted error: a mechanism the next
// repair rule could cover, with the packages it would fix.
type FailureGroup struct {
	Class string `json:"class"`
	// Error is the normalised first error line the packages share.
	Error string `json:"error"`
	// Example is one package's line as the build printed it.
	Example  string   `json:"example"`
	Count    int      `json:"count"`
	Packages []string `json:"packages"`
}

// noErrorLine stands for a failed port that recorded no error text.
const noErrorLine = "(no error recorded)"

// maxGroupLine bounds a group's line: a first line can be a whole compiler command.
const maxGroupLine = 300

var (
	// pathRE is a file path: two or more elements, or one after a leading / or ./
	pathRE = regexp.MustCompile(`(?:\.{0,2}/)?[\w.+@~-]+(?:/[\w.+@~-]*)+|/[\w.+@~-]+`)
	// hexRE is a hexadecimal number or hash, numRE any other run of digits.
	hexRE   = regexp.MustCompile(`\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{12,}\b`)
	numRE   = regexp.MustCompile(`[0-9]+`)
	spaceRE = regexp.MustCompile(`\s+`)
	// quotedFileRE is a quoted file name of one element with an extension ('globals.c',
	// `cryptoUtils.lo'): the file a diagnostic is about, which differs from package to
	// package exactly as a path does, so make's "No rule to make target 'globals.c'" of
	// one package and "... 'doc/libadplug.texi'" of another group together. A quoted
	// word without an extension (a function, a symbol, an option) stays: it names the
	// mechanism. The quotes themselves (', `, ‘ ’, ") stay as printed.
	quotedFileRE = regexp.MustCompile("([`'‘\"])[\\w+@~-][\\w.+@~-]*\\.[A-Za-z][\\w+-]{0,7}(['’\"])")
	// makeLevelRE is GNU make's recursion level in its message prefix (make[2]:): how
	// deep the failing directory sits, not what failed.
	makeLevelRE = regexp.MustCompile(`\b(g?make)\[[0-9]+\]:`)
)

// NormalizeError reduces an error line to what two packages failing the same way share:
// the package's own name becomes <pkg>, file paths and quoted file names <path>, make's
// recursion level (make[2]:) goes, numbers (line and column, versions, addresses)
// become N, and runs of white space one space. The class and the words of
// the diagnostic stay, so "CMake Error at CMakeLists.txt:87 (add_subdirectory) ..." of
// two packages groups together while a compile error and a link error do not.
func NormalizeError(line, pkg string) string {
	s := cut(excerpt.FirstLine(line), maxGroupLine)
	s = pathRE.ReplaceAllString(s, "\x01")
	s = quotedFileRE.ReplaceAllString(s, "${1}\x01${2}")
	s = makeLevelRE.ReplaceAllString(s, "${1}:")
	s = replaceFold(s, pkg, "\x00")
	s = hexRE.ReplaceAllString(s, "N")
	s = numRE.ReplaceAllString(s, "N")
	s = strings.NewReplacer("\x00", "<pkg>", "\x01", "<path>").Replace(s)
	s = strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
	if s == "" {
		return noErrorLine
	}
	return s
}

// replaceFold replaces every case-insensitive occurrence of old in s with repl.
func replaceFold(s, old, repl string) string {
	if old == "" {
		return s
	}
	lower, lo := strings.ToLower(s), strings.ToLower(old)
	if len(lower) != len(s) { // a case change altered byte offsets: match exactly
		return strings.ReplaceAll(s, old, repl)
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, lo)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s, lower = s[i+len(old):], lower[i+len(old):]
	}
}

// cut is at most the first n bytes of s, less a character the cut split.
func cut(s string, n int) string {
	return strings.ToValidUTF8(excerpt.Head(s, n), "")
}

// errorLine is the failure line of a failed record: the first line of the extracted
// error, else of the error that stopped the port from running, else of the reason.
func (r Record) errorLine() string {
	for _, s := range []string{r.FirstError, r.Error, r.Reason} {
		if l := strings.TrimSpace(excerpt.FirstLine(s)); l != "" {
			return l
		}
	}
	return ""
}

// GroupFailures groups the failed records by failure class and normalised first error
// line, most packages first (then by class and line, so the order is stable); the
// packages of a group are sorted.
func GroupFailures(records []Record) []FailureGroup {
	idx := map[[2]string]int{}
	var out []FailureGroup
	for _, r := range records {
		if r.Status.Succeeded() {
			continue
		}
		line := r.errorLine()
		key := [2]string{r.Class(), NormalizeError(line, r.Name)}
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			example := cut(line, maxGroupLine)
			if example != line {
				example += "…"
			}
			out = append(out, FailureGroup{Class: key[0], Error: key[1], Example: example})
		}
		out[i].Count++
		out[i].Packages = append(out[i].Packages, r.Name)
	}
	for i := range out {
		slices.Sort(out[i].Packages)
	}
	slices.SortStableFunc(out, func(a, b FailureGroup) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Class, b.Class), strings.Compare(a.Error, b.Error))
	})
	return out
}
