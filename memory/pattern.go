package memory

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// pattern is a compiled error_pattern with a literal pre-filter: need is a condition on
// the case-folded error message that every match implies, so most examples are ruled out
// with a substring search instead of a regular-expression run.
type pattern struct {
	re   *regexp.Regexp
	need cond
}

// compilePattern compiles an error_pattern case-insensitively. Patterns are written for
// Python's re module: Python escapes such as "\ " (re.escape escapes spaces) are turned
// into their literal characters first, and (?P<name>...) groups work as they are. An
// empty or invalid pattern returns nil: it adds no score.
func compilePattern(p string) *pattern {
	if p == "" {
		return nil
	}
	src := "(?i)" + pythonEscapes(p)
	re, err := regexp.Compile(src)
	if err != nil {
		return nil
	}
	pt := &pattern{re: re}
	if tree, err := syntax.Parse(src, syntax.Perl); err == nil {
		pt.need = needOf(tree.Simplify())
	}
	return pt
}

// match reports whether the pattern matches msg; folded is foldString(msg).
func (p *pattern) match(msg, folded string) bool {
	if p.need != nil && !p.need.holds(folded) {
		return false
	}
	return p.re.MatchString(msg)
}

// cond is a necessary condition for a match: a tree of substrings that must occur in the
// case-folded input. A nil cond always holds.
type cond interface{ holds(folded string) bool }

type litCond string

func (c litCond) holds(s string) bool { return strings.Contains(s, string(c)) }

type andCond []cond

func (c andCond) holds(s string) bool {
	for _, x := range c {
		if !x.holds(s) {
			return false
		}
	}
	return true
}

type orCond []cond

func (c orCond) holds(s string) bool {
	for _, x := range c {
		if x.holds(s) {
			return true
		}
	}
	return false
}

// needOf derives the condition every match of re implies, or nil when there is none.
func needOf(re *syntax.Regexp) cond {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil
		}
		return litCond(foldString(string(re.Rune)))
	case syntax.OpCapture, syntax.OpPlus:
		return needOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needOf(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		var and andCond
		for _, s := range re.Sub {
			if c := needOf(s); c != nil {
				and = append(and, c)
			}
		}
		switch len(and) {
		case 0:
			return nil
		case 1:
			return and[0]
		}
		return and
	case syntax.OpAlternate:
		var or orCond
		for _, s := range re.Sub {
			c := needOf(s)
			if c == nil {
				return nil // this branch needs nothing, so neither does the whole
			}
			or = append(or, c)
		}
		return or
	}
	return nil
}

// foldString maps every rune to the smallest rune of its simple case-folding orbit, the
// equivalence that (?i) matching uses, so a case-insensitive literal occurs in a text
// only if its folded form occurs in the folded text.
func foldString(s string) string {
	return strings.Map(foldRune, s)
}

func foldRune(r rune) rune {
	if r < 0x80 {
		if 'a' <= r && r <= 'z' && r != 'k' && r != 's' {
			return r - 'a' + 'A'
		}
		if r != 'K' && r != 'S' && r != 'k' && r != 's' {
			return r
		}
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}
