package repair

import (
	"fmt"
	"slices"
	"strings"
)

// Bounds of the meson.build reader: the file is the package's, so untrusted text.
const (
	maxMesonBytes   = 2 << 20
	maxMesonTokens  = 400000
	maxMesonNesting = 64
)

// mesonToken is one token of a meson.build: a string literal (its text, escapes of
// the common kinds resolved), an identifier or keyword, or a punctuation character.
type mesonToken struct {
	kind byte // 's' string, 'i' identifier, 'p' punctuation, 'n' newline
	text string
	line int
}

// lexMeson splits a meson.build into tokens: comments dropped, '...' and ”'...”'
// strings (f-strings too), newlines kept as tokens outside parentheses and brackets,
// where they end a statement. Bytes the language does not have are skipped. It
// refuses a text beyond the reader's bounds.
func lexMeson(src string) ([]mesonToken, error) {
	if len(src) > maxMesonBytes {
		return nil, fmt.Errorf("%w: meson.build of %d bytes (at most %d)", errCMakeBounds, len(src), maxMesonBytes)
	}
	var out []mesonToken
	line, depth := 1, 0
	for i := 0; i < len(src); {
		if len(out) > maxMesonTokens {
			return nil, fmt.Errorf("%w: more than %d meson tokens", errCMakeBounds, maxMesonTokens)
		}
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 {
				out = append(out, mesonToken{kind: 'n', line: line})
			}
			line++
			i++
		case c == '#':
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			i += end
		case c == '\'' || (c == 'f' && i+1 < len(src) && src[i+1] == '\''):
			if c == 'f' {
				i++
			}
			text, n, ok := mesonString(src[i:])
			start := line
			line += strings.Count(src[i:i+n], "\n")
			i += n
			if ok {
				out = append(out, mesonToken{kind: 's', text: text, line: start})
			}
		case isIdentByte(c, true):
			j := i
			for j < len(src) && isIdentByte(src[j], false) {
				j++
			}
			out = append(out, mesonToken{kind: 'i', text: src[i:j], line: line})
			i = j
		case strings.IndexByte("()[]{},:=!<>+-*/%.?", c) >= 0:
			switch c {
			case '(', '[', '{':
				if depth++; depth > maxMesonNesting {
					return nil, fmt.Errorf("%w: brackets nested more than %d deep (line %d)", errCMakeBounds, maxMesonNesting, line)
				}
			case ')', ']', '}':
				depth = max(depth-1, 0)
			}
			out = append(out, mesonToken{kind: 'p', text: string(c), line: line})
			i++
		default:
			i++
		}
	}
	return append(out, mesonToken{kind: 'n', line: line}), nil
}

// mesonString reads a string literal at the start of s ('...' or ”'...”'), and
// returns its text, the bytes it took and whether it was closed. An unclosed one
// takes the rest of its line ('...') or of the file (”'...”').
func mesonString(s string) (string, int, bool) {
	if strings.HasPrefix(s, "'''") {
		end := strings.Index(s[3:], "'''")
		if end < 0 {
			return "", len(s), false
		}
		return s[3 : 3+end], 3 + end + 3, true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			return b.String(), i + 1, true
		case '\n':
			return "", i, false
		case '\\':
			if i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", len(s), false
}

// mesonCall is a function call the rule looks at: dependency() or subproject().
type mesonCall struct {
	Name string
	Line int
	// Args are the positional string arguments; Kw the keyword arguments' tokens.
	Args []string
	Kw   map[string][]mesonToken
	// Gates are the get_option() names of the if blocks the call sits in, with the
	// value each must have for the call to run (false under "if not get_option(x)"
	// or in the else branch of "if get_option(x)").
	Gates []mesonGate
}

// mesonGate is an if block's option and the value that runs the call.
type mesonGate struct {
	Option string
	Want   bool
	// Feature is a feature option read with .enabled() or .allowed(): it is switched
	// with enabled/disabled, not true/false.
	Feature bool
}

// mesonCalls returns the calls of the named functions (dependency and subproject for
// the rule, option for meson_options.txt) of a meson.build with their arguments and
// the if blocks around them. An if whose condition is not a
// plain get_option('x') or "not get_option('x')" gates with no option, which the rule
// cannot switch.
func mesonCalls(tokens []mesonToken, names ...string) []mesonCall {
	type block struct {
		gate *mesonGate
	}
	var stack []block
	var out []mesonCall
	atStart := true
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		if t.kind == 'n' {
			atStart = true
			continue
		}
		if atStart && t.kind == 'i' {
			switch t.text {
			case "if":
				if len(stack) < maxMesonNesting {
					stack = append(stack, block{gate: optionGate(tokens[i+1:])})
				}
			case "elif":
				if len(stack) > 0 {
					stack[len(stack)-1].gate = nil
				}
			case "else":
				if n := len(stack); n > 0 && stack[n-1].gate != nil {
					g := *stack[n-1].gate
					g.Want = !g.Want
					stack[n-1].gate = &g
				}
			case "endif":
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
		}
		atStart = false
		if t.kind != 'i' || !slices.Contains(names, t.text) || i+1 >= len(tokens) || tokens[i+1].text != "(" {
			continue
		}
		c := mesonCall{Name: t.text, Line: t.line, Kw: map[string][]mesonToken{}}
		for _, b := range stack {
			if b.gate != nil {
				c.Gates = append(c.Gates, *b.gate)
			} else {
				c.Gates = append(c.Gates, mesonGate{})
			}
		}
		depth, key := 0, ""
		for j := i + 1; j < len(tokens); j++ {
			a := tokens[j]
			if a.kind == 'p' && (a.text == "(" || a.text == "[" || a.text == "{") {
				depth++
				if depth == 1 {
					continue
				}
			}
			if a.kind == 'p' && (a.text == ")" || a.text == "]" || a.text == "}") {
				if depth--; depth == 0 {
					break
				}
			}
			if depth == 1 && a.kind == 'p' && a.text == "," {
				key = ""
				continue
			}
			if depth == 1 && a.kind == 'i' && j+1 < len(tokens) && tokens[j+1].text == ":" {
				key = a.text
				j++
				continue
			}
			if key != "" {
				c.Kw[key] = append(c.Kw[key], a)
			} else if depth == 1 && a.kind == 's' {
				c.Args = append(c.Args, a.text)
			}
		}
		out = append(out, c)
	}
	return out
}

// optionGate reads an if condition of the form get_option('x') or not get_option('x')
// up to the end of its line; nil for any other condition.
func optionGate(ts []mesonToken) *mesonGate {
	want := true
	if len(ts) > 0 && ts[0].kind == 'i' && ts[0].text == "not" {
		want, ts = false, ts[1:]
	}
	if len(ts) < 5 || ts[0].text != "get_option" || ts[1].text != "(" || ts[2].kind != 's' || ts[3].text != ")" {
		return nil
	}
	// A feature option's .enabled()/.allowed() reads the same way; anything else after
	// it (== 'x', and ...) makes the condition one the rule does not switch.
	rest := ts[4:]
	feature := false
	if len(rest) >= 4 && rest[0].text == "." && (rest[1].text == "enabled" || rest[1].text == "allowed") && rest[2].text == "(" && rest[3].text == ")" {
		rest, feature = rest[4:], true
	}
	if len(rest) == 0 || rest[0].kind != 'n' {
		return nil
	}
	return &mesonGate{Option: ts[2].text, Want: want, Feature: feature}
}
