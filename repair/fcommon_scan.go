package repair

import (
	"bytes"
	"regexp"
	"strings"
)

// A C scanner just strong enough to tell what a file-scope declaration of one name is:
// the linker names the line of a duplicate symbol's definition, and -fcommon is the
// right fix only when each definition is a tentative one (no initializer, no extern, a
// variable and not a function). It reads the text the compiler reads after comments,
// literals and preprocessor lines are blanked, and never expands macros, so a
// declaration spelled through a macro (dahdi-tools' `union XTALK_PDATA(XTALK) {...}
// PACKED members;`) is judged by the brackets and keywords around the name.

// declKind is what one occurrence of a name at file scope is.
type declKind int

const (
	declNone        declKind = iota // not a declaration of the name (a use, a parameter, a member)
	declTentative                   // a variable with no initializer: merged in common storage under -fcommon
	declInitialized                 // a variable with an initializer: a real definition
	declFunction                    // a function (defined or declared)
	declExtern                      // extern: a declaration, not a definition
	declTypedef                     // a type name
	declStatic                      // internal linkage: never a duplicate across files
	declThread                      // thread-local storage: -fcommon does not apply
)

func (k declKind) String() string {
	return [...]string{"not a declaration", "a tentative definition (no initializer)", "a definition with an initializer",
		"a function", "an extern declaration", "a typedef", "a static variable", "a thread-local variable"}[k]
}

// maskC returns src with comments, string and character literals and preprocessor
// lines (with their continuations) replaced by spaces, newlines kept, so offsets and
// line numbers stay those of src.
func maskC(src []byte) []byte { return maskCode(src, true) }

// maskCode is maskC that keeps preprocessor lines (their comments and literals
// blanked) unless directives is set.
func maskCode(src []byte, directives bool) []byte {
	m := bytes.Clone(src)
	blank := func(i int) {
		if m[i] != '\n' {
			m[i] = ' '
		}
	}
	lineStart := true
	for i := 0; i < len(m); i++ {
		c := m[i]
		switch {
		case c == '\n':
			lineStart = true
			continue
		case lineStart && (c == ' ' || c == '\t'):
			continue
		case lineStart && c == '#' && directives:
			for ; i < len(m) && (src[i] != '\n' || src[i-1] == '\\'); i++ {
				blank(i)
			}
			i-- // the newline ends the directive and starts a line
		case c == '/' && i+1 < len(m) && m[i+1] == '/':
			for ; i < len(m) && m[i] != '\n'; i++ {
				blank(i)
			}
			i--
		case c == '/' && i+1 < len(m) && m[i+1] == '*':
			end := bytes.Index(m[i+2:], []byte("*/"))
			stop := len(m)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				blank(i)
			}
			i--
		case c == '"' || c == '\'':
			blank(i)
			for i++; i < len(m) && m[i] != c && m[i] != '\n'; i++ {
				if m[i] == '\\' && i+1 < len(m) && m[i+1] != '\n' {
					blank(i)
					i++
				}
				blank(i)
			}
			if i < len(m) && m[i] == c {
				// A literal stays a token, so `= "x"` still reads as an initializer.
				m[i] = '0'
			}
		}
		lineStart = false
	}
	return m
}

var (
	// tagOpener is the text before a { that opens a struct, union or enum body: the
	// keyword, attributes, and at most a tag or a macro that makes one.
	tagOpener = re(`(?s)\b(?:struct|union|enum)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)*(?:[A-Za-z_]\w*\s*(?:\([^()]*\)\s*)?)?(?:__attribute__\s*\(\(.*?\)\)\s*)*$`)
	// groupingOnly is what may stand between a declarator's ( and the name: pointers
	// and their qualifiers (int (*x)[4]), nothing of a parameter's type.
	groupingOnly = re(`^[\s*(]*(?:(?:const|volatile|restrict|__restrict|__restrict__)[\s*(]*)*$`)
	specifierTag = map[string]declKind{"extern": declExtern, "typedef": declTypedef, "static": declStatic,
		"__thread": declThread, "_Thread_local": declThread, "thread_local": declThread}
	cWord      = re(`[A-Za-z_]\w*`)
	tagKeyword = map[string]bool{"struct": true, "union": true, "enum": true}
)

// classifyAt says what the occurrence of a name at offset pos..end of the masked text m
// is.
func classifyAt(m []byte, pos, end int) declKind {
	start, ok := declStart(m, pos)
	if !ok {
		return declNone
	}
	kind := declaratorEnd(m, end)
	if kind == declNone {
		return declNone
	}
	head := string(m[start:pos])
	if strings.TrimSpace(head) == "" || strings.TrimSpace(head) == "(" {
		return declNone // no type before the name: a macro call or a statement
	}
	words := cWord.FindAllString(head, -1)
	if last := strings.TrimRight(head, " \t\n\r\f\v"); len(words) > 0 && tagKeyword[words[len(words)-1]] && strings.HasSuffix(last, words[len(words)-1]) {
		return declNone // a struct, union or enum tag of that name
	}
	for _, w := range words {
		if k, ok := specifierTag[w]; ok {
			return k
		}
	}
	return kind
}

// declStart walks back from the name at pos to the start of its declaration at file
// scope. It fails when the name is not a declarator there: inside braces (a member, a
// local), inside brackets (an array size), after an = of its own declarator (a use in
// an initializer), or inside parentheses that hold more than pointer grouping (a
// parameter).
func declStart(m []byte, pos int) (int, bool) {
	n, comma, closeBrace := 0, false, -1
	for i := pos - 1; i >= 0; i-- {
		if pos-i > maxDeclBytes {
			return 0, false // no declaration is this long: text that is not C
		}
		switch c := m[i]; c {
		case ')', ']', '}':
			if n == 0 && c == '}' {
				closeBrace = i
			}
			n++
		case '(', '[', '{':
			if n > 0 {
				n--
				if n == 0 && c == '{' {
					if !tagOpener.Match(m[max(0, i-400):i]) {
						return closeBrace + 1, true // a function body's end: the declaration starts after it
					}
				}
				continue
			}
			if c != '(' || comma || !groupingOnly.Match(m[i+1:pos]) {
				return 0, false
			}
		case ';':
			if n == 0 {
				return i + 1, true
			}
		case ',':
			if n == 0 {
				comma = true
			}
		case '=':
			if n == 0 && !comma {
				return 0, false
			}
		}
	}
	if n != 0 {
		return 0, false
	}
	return 0, true
}

// declaratorEnd reads on from the name's end to the end of its declarator: ( straight
// after the name makes it a function, = an initialized variable, a , or ; with neither
// a tentative definition, a { a function body (an old-style definition).
func declaratorEnd(m []byte, end int) declKind {
	i := end
	for i < len(m) && isSpace(m[i]) {
		i++
	}
	if i < len(m) && m[i] == '(' {
		return declFunction
	}
	n := 0
	for ; i < len(m); i++ {
		switch m[i] {
		case '(', '[':
			n++
		case ')', ']':
			if n > 0 {
				n-- // below zero: the grouping parentheses around the name closing
			}
		case '{':
			if n == 0 {
				return declFunction
			}
			n++
		case '}':
			if n == 0 {
				return declNone
			}
			n--
		case '=':
			if n == 0 {
				return declInitialized
			}
		case ',', ';':
			if n == 0 {
				return declTentative
			}
		}
	}
	return declNone
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// cDecl is one file-scope declaration of a name found in a source file.
type cDecl struct {
	Line int
	Kind declKind
	// Text is the source line the name is on, spaces collapsed.
	Text string
}

// Bounds on the work for one file: the declarations of one name reported, the
// file-scope occurrences of it judged, the bytes one declaration spans.
const (
	maxDeclsPerFile = 16
	maxOccurrences  = 512
	maxDeclBytes    = 64 << 10
)

// fileScopeDecls returns the file-scope declarations of name in src, in order, or only
// those on line when line > 0. Occurrences that declare nothing (uses, members,
// parameters) are left out.
func fileScopeDecls(src []byte, name string, line int) []cDecl {
	m := maskC(src)
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	lo, hi := 0, len(m)
	if line > 0 {
		lo, hi = lineSpan(m, line)
	}
	var out []cDecl
	depth, at, judged := 0, 0, 0
	for _, loc := range word.FindAllIndex(m[lo:hi], -1) {
		pos, end := lo+loc[0], lo+loc[1]
		if pos > 0 && (m[pos-1] == '.' || m[pos-1] == '>' && pos > 1 && m[pos-2] == '-') {
			continue // a member access
		}
		for ; at < pos; at++ {
			switch m[at] {
			case '{':
				depth++
			case '}':
				depth = max(0, depth-1)
			}
		}
		if depth > 0 {
			continue
		}
		if judged++; judged > maxOccurrences {
			break
		}
		kind := classifyAt(m, pos, end)
		if kind == declNone {
			continue
		}
		ln := 1 + bytes.Count(m[:pos], []byte("\n"))
		out = append(out, cDecl{Line: ln, Kind: kind, Text: sourceLine(src, ln)})
		if len(out) == maxDeclsPerFile {
			break
		}
	}
	return out
}

// lineSpan returns the offsets of line (1-based) in b: empty past the end.
func lineSpan(b []byte, line int) (int, int) {
	start := 0
	for n := 1; n < line; n++ {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			return len(b), len(b)
		}
		start += i + 1
	}
	end := bytes.IndexByte(b[start:], '\n')
	if end < 0 {
		return start, len(b)
	}
	return start, start + end
}

// sourceLine is line ln of src with its spaces collapsed, bounded for a message.
func sourceLine(src []byte, ln int) string {
	lo, hi := lineSpan(src, ln)
	s := strings.Join(strings.Fields(string(src[lo:hi])), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
