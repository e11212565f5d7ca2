package repair

import (
	"cmp"
	"path"
	"regexp"
	"slices"
	"strings"
)

// maxAutotoolsFile bounds the configure.ac or Makefile.am the missing-subdir rule reads:
// real ones are a few tens of kilobytes; a larger one is left alone.
const maxAutotoolsFile = 1 << 20

// span is a byte range [start, end) of a file.
type span struct{ start, end int }

// m4Word is a word of a macro's first argument: its text without m4 quotes, and where
// it is in the file.
type m4Word struct {
	text string
	at   span
}

// m4Macro is one call of a macro in configure.ac: its name, the line it starts on, and
// the words of its first argument.
type m4Macro struct {
	name  string
	line  int
	words []m4Word
}

// autoconfListMacros are the configure.ac macros whose first argument lists the files
// config.status creates (AC_OUTPUT's is the old form of AC_CONFIG_FILES) or the
// directories configure recurses into.
var autoconfListMacros = []string{"AC_CONFIG_FILES", "AC_OUTPUT", "AC_CONFIG_SUBDIRS"}

// maxM4Macros bounds the macro calls read from one configure.ac.
const maxM4Macros = 256

// m4ListMacros finds the calls of the list macros in configure.ac text and the words of
// their first argument. Comments (dnl and #, to the end of the line) are skipped;
// quoted text is not, since a call inside AS_IF's quoted branch is still expanded. A
// word that has shell or m4 syntax in it ($, `, parentheses) is left out: the rule does
// not guess what it expands to.
func m4ListMacros(src string) []m4Macro {
	var out []m4Macro
	line := 1
	for i := 0; i < len(src) && len(out) < maxM4Macros; {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			continue
		case c == '#' || strings.HasPrefix(src[i:], "dnl") && (i == 0 || !identByte(src[i-1])) &&
			(i+3 == len(src) || !identByte(src[i+3])):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		if !identByte(c) || i > 0 && identByte(src[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(src) && identByte(src[j]) {
			j++
		}
		name := src[i:j]
		if j >= len(src) || src[j] != '(' || !slices.Contains(autoconfListMacros, name) {
			i = j
			continue
		}
		words, end, lines := m4FirstArg(src, j+1)
		out = append(out, m4Macro{name: name, line: line, words: words})
		line += lines
		i = end
	}
	return out
}

// m4FirstArg reads the first argument of a macro call from src[i:] (just after the
// opening parenthesis): its words, where the argument ends, and the newlines in it. It
// ends at a comma or the closing parenthesis outside quotes and nested parentheses, or
// at the end of the text.
func m4FirstArg(src string, i int) ([]m4Word, int, int) {
	var words []m4Word
	quote, paren, lines := 0, 0, 0
	start := -1
	bad := false
	flush := func(end int) {
		if start >= 0 && !bad {
			words = append(words, m4Word{text: src[start:end], at: span{start, end}})
		}
		start, bad = -1, false
	}
	for ; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '[':
			flush(i)
			quote++
			continue
		case c == ']':
			flush(i)
			if quote > 0 {
				quote--
			}
			continue
		case c == '(' && quote == 0:
			paren++
			bad = true
		case c == ')' && quote == 0:
			if paren == 0 {
				flush(i)
				return words, i + 1, lines
			}
			paren--
			bad = true
		case c == ',' && quote == 0 && paren == 0:
			flush(i)
			return words, i + 1, lines
		case c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\\':
			if c == '\n' {
				lines++
			}
			flush(i)
			continue
		case c == '$' || c == '`' || c == '(' || c == ')' || c == '"' || c == '\'':
			bad = true
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(src))
	return words, len(src), lines
}

// configFileUnder reports whether a word of AC_CONFIG_FILES (OUTPUT or
// OUTPUT:INPUT:INPUT...) creates or reads a file under dir; both are relative to the
// directory of configure.ac.
func configFileUnder(word, dir string) bool {
	parts := strings.Split(word, ":")
	if len(parts) == 1 {
		parts = append(parts, word+".in")
	}
	for _, p := range parts {
		if p != "" && under(path.Clean(p), dir) {
			return true
		}
	}
	return false
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// amAssignLine is a Makefile variable assignment at the start of a logical line.
var amAssignLine = regexp.MustCompile(`^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\+=|:=|\?=|=)`)

// makeRef is a reference to a make variable, $(NAME) or ${NAME}.
var makeRef = regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]`)

// makeRule is a rule's first line (target: prerequisites), after which tab-indented
// lines are its recipe.
var makeRule = regexp.MustCompile(`^[^\t#=:][^#=]*:([^=]|$)`)

// amAssign is one assignment of a Makefile.am: the variable, and the words of its value
// with where each is in the file.
type amAssign struct {
	name  string
	line  int
	words []m4Word
	refs  []string
}

// maxAMAssigns bounds the assignments read from one Makefile.am.
const maxAMAssigns = 4096

// amAssignments reads the variable assignments of a Makefile.am: logical lines (a
// backslash at the end of a line continues it), comments cut at #, rule recipes and
// automake's conditionals skipped (an assignment inside if/else/endif is still one).
func amAssignments(src string) []amAssign {
	var out []amAssign
	inRecipe := false
	lineNo := 0
	for i := 0; i < len(src) && len(out) < maxAMAssigns; {
		start := i
		first := lineNo + 1
		// One logical line: physical lines joined while they end in a backslash.
		var segs []span
		for {
			j := strings.IndexByte(src[i:], '\n')
			end := len(src)
			if j >= 0 {
				end = i + j
			}
			lineNo++
			seg := span{i, end}
			body := strings.TrimRight(src[i:end], "\r")
			i = end + 1
			if strings.HasSuffix(body, "\\") && i < len(src) {
				segs = append(segs, span{seg.start, seg.start + len(body) - 1})
				continue
			}
			segs = append(segs, span{seg.start, seg.start + len(body)})
			break
		}
		text := src[start:segs[0].end]
		switch {
		case strings.TrimSpace(text) == "":
			inRecipe = false
			continue
		case strings.HasPrefix(text, "\t") && inRecipe:
			continue
		}
		m := amAssignLine.FindStringSubmatchIndex(text)
		if m == nil {
			inRecipe = makeRule.MatchString(text)
			continue
		}
		inRecipe = false
		a := amAssign{name: text[m[2]:m[3]], line: first}
		valueStart := start + m[1]
		comment := false
		for k, s := range segs {
			from := s.start
			if k == 0 {
				from = valueStart
			}
			seg := src[from:s.end]
			if c := strings.IndexByte(seg, '#'); c >= 0 {
				seg, comment = seg[:c], true
			}
			for _, w := range fieldSpans(seg, from) {
				a.words = append(a.words, w)
				for _, r := range makeRef.FindAllStringSubmatch(w.text, -1) {
					a.refs = append(a.refs, r[1])
				}
			}
			if comment {
				// A comment runs to the end of the logical line, continuations included.
				break
			}
		}
		out = append(out, a)
	}
	return out
}

// fieldSpans splits s (found at offset off of the file) at spaces and tabs.
func fieldSpans(s string, off int) []m4Word {
	var out []m4Word
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\r' {
			if start >= 0 {
				out = append(out, m4Word{text: s[start:i], at: span{off + start, off + i}})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// maxSubdirVars bounds the variables followed from SUBDIRS (SUBDIRS = src $(MAYBE_X)).
const maxSubdirVars = 32

// subdirWords returns the words of a Makefile.am that name dir (relative to the
// Makefile.am's directory) in SUBDIRS, DIST_SUBDIRS or a variable they use, and the
// variables that held them.
func subdirWords(src, dir string) ([]span, []string) {
	assigns := amAssignments(src)
	vars := map[string]bool{"SUBDIRS": true, "DIST_SUBDIRS": true}
	for changed := true; changed && len(vars) < maxSubdirVars; {
		changed = false
		for _, a := range assigns {
			if !vars[a.name] {
				continue
			}
			for _, r := range a.refs {
				if !vars[r] && len(vars) < maxSubdirVars {
					vars[r], changed = true, true
				}
			}
		}
	}
	var spans []span
	var names []string
	for _, a := range assigns {
		if !vars[a.name] {
			continue
		}
		for _, w := range a.words {
			if path.Clean(strings.TrimSuffix(w.text, "/")) == dir {
				spans = append(spans, w.at)
				if !slices.Contains(names, a.name) {
					names = append(names, a.name)
				}
			}
		}
	}
	return spans, names
}

// dropSpans removes the words at spans from src, each with the blanks before it on its
// line (or after it, when it starts the line's text), and never a newline, so the
// result has the same lines; spans must not overlap.
func dropSpans(src string, spans []span) string {
	if len(spans) == 0 {
		return src
	}
	sorted := slices.SortedFunc(slices.Values(spans), func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	last := 0
	for _, s := range sorted {
		if s.start < last || s.end > len(src) || s.start > s.end {
			continue
		}
		from, to := s.start, s.end
		for from > last && (src[from-1] == ' ' || src[from-1] == '\t') {
			from--
		}
		if from == last || src[from-1] == '\n' || src[from-1] == '[' {
			// Nothing before it on its line: take the blanks after it instead, so the
			// next word keeps its place.
			from = s.start
			for to < len(src) && (src[to] == ' ' || src[to] == '\t') {
				to++
			}
		}
		b.WriteString(src[last:from])
		last = to
	}
	b.WriteString(src[last:])
	return b.String()
}

// changedLinesDiff is a unified diff (no context lines, a/ b/ prefixes) from old to
// next, which have the same lines but for the changed ones, and whether any changed.
func changedLinesDiff(p, old, next string) (string, bool) {
	nl := strings.SplitAfter(next, "\n")
	if len(nl) != len(strings.SplitAfter(old, "\n")) {
		return "", false
	}
	return linesDiff(p, old, false, func(i int, body string) (string, bool) {
		n := strings.TrimSuffix(strings.TrimSuffix(nl[i], "\n"), "\r")
		return n, n != body
	})
}
