package repair

import (
	"fmt"
	"maps"
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
	// Gates are the options of the if blocks the call sits in, with the value each
	// must have for the call to run (false under "if not get_option(x)" or in the
	// else branch of "if get_option(x)"); an empty Option for a condition the rule
	// cannot switch.
	Gates []mesonGate
}

// mesonGate is an if block's option and the value that runs the call.
type mesonGate struct {
	Option string
	Want   bool
	// Feature is a feature option read with .enabled() or .allowed(), or through the
	// found() of a dependency it makes required: it is switched with enabled/disabled,
	// not true/false.
	Feature bool
	// Dep is the dependency, library or program whose found() the gate reads, and
	// File and Line where it is looked up; empty for a get_option() gate.
	Dep  string
	File string
	Line int
}

// mesonCalls returns the calls of the named functions (dependency and subproject for
// the rule, option for meson_options.txt) of a meson.build with their arguments and
// the if blocks around them (see [mesonWalk] for the conditions the rule can switch).
func mesonCalls(tokens []mesonToken, names ...string) []mesonCall {
	var out []mesonCall
	mesonWalk(tokens, func(i int, gates []mesonGate) {
		t := tokens[i]
		if t.kind != 'i' || !slices.Contains(names, t.text) || i+1 >= len(tokens) || tokens[i+1].text != "(" {
			return
		}
		c := mesonCall{Name: t.text, Line: t.line, Gates: slices.Clone(gates)}
		c.Args, c.Kw, _ = mesonCallArgs(tokens, i+1)
		out = append(out, c)
	})
	return out
}

// mesonCallArgs reads the arguments of the call whose "(" is tokens[open]: the
// positional string arguments and each keyword argument's tokens, and the index of the
// closing parenthesis (len(tokens) when it has none).
func mesonCallArgs(tokens []mesonToken, open int) ([]string, map[string][]mesonToken, int) {
	var args []string
	kw := map[string][]mesonToken{}
	depth, key := 0, ""
	for j := open; j < len(tokens); j++ {
		a := tokens[j]
		if a.kind == 'p' && (a.text == "(" || a.text == "[" || a.text == "{") {
			depth++
			if depth == 1 {
				continue
			}
		}
		if a.kind == 'p' && (a.text == ")" || a.text == "]" || a.text == "}") {
			if depth--; depth == 0 {
				return args, kw, j
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
			kw[key] = append(kw[key], a)
		} else if depth == 1 && a.kind == 's' {
			args = append(args, a.text)
		}
	}
	return args, kw, len(tokens)
}

// mesonScope is where a meson.build runs: the gates of the if blocks around the
// subdir() that reads it, outermost first, and the variables whose found() is an
// option's (see [mesonWalk]) at that point.
type mesonScope struct {
	// File is the meson.build walked, recorded in its found() gates; "" when unknown.
	File  string
	Gates []mesonGate
	Found map[string]mesonGate
}

// mesonWalk calls visit for every token of a meson.build with the gates of the if
// blocks the token sits in, outermost first; visit must not keep the slice. It is the
// one reader of the if/elif/else/endif stack. A gate has an Option when its condition
// is one the rule can switch: get_option('x') or not get_option('x') (with .enabled()
// or .allowed() for a feature option), or v.found() or not v.found() where v was
// assigned, outside any if block and nowhere else, from a dependency(), find_library()
// or find_program() whose required: is exactly get_option('x'): the feature option x
// then decides it (disabled: not found). An elif, and any other condition, gates with
// no option.
func mesonWalk(tokens []mesonToken, visit func(i int, gates []mesonGate)) {
	mesonWalkIn(tokens, mesonScope{}, func(i int, s mesonScope) { visit(i, s.Gates) })
}

// mesonWalkIn is [mesonWalk] for a meson.build that runs in scope (a subdir() of
// another): its gates come first, its found() variables are known, and its own blocks
// never close them. visit gets the scope at each token; it must not keep it.
func mesonWalkIn(tokens []mesonToken, scope mesonScope, visit func(i int, s mesonScope)) {
	stack := slices.Clone(scope.Gates)
	base := len(stack)
	// found maps a variable to the gate its .found() reads: Option, Dep and Line set.
	found := maps.Clone(scope.Found)
	if found == nil {
		found = map[string]mesonGate{}
	}
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
					g := mesonCondition(tokens[i+1:], found)
					stack = append(stack, g)
				}
			case "elif":
				if len(stack) > base {
					stack[len(stack)-1] = mesonGate{}
				}
			case "else":
				if n := len(stack); n > base && stack[n-1].Option != "" {
					stack[n-1].Want = !stack[n-1].Want
				}
			case "endif":
				if len(stack) > base {
					stack = stack[:len(stack)-1]
				}
			default:
				if v, ok := mesonAssigned(tokens, i); ok {
					delete(found, v)
					if g, ok := requiredGate(tokens, i+2); ok && len(stack) == base {
						g.File = scope.File
						found[v] = g
					}
				}
			}
		}
		atStart = false
		visit(i, mesonScope{File: scope.File, Gates: stack, Found: found})
	}
}

// mesonAssigned reports the variable a statement starting at tokens[i] assigns (v = or
// v +=).
func mesonAssigned(tokens []mesonToken, i int) (string, bool) {
	if i+2 >= len(tokens) || tokens[i].kind != 'i' {
		return "", false
	}
	next := tokens[i+1]
	if next.kind == 'p' && next.text == "=" && tokens[i+2].text != "=" {
		return tokens[i].text, true
	}
	if next.kind == 'p' && next.text == "+" && tokens[i+2].kind == 'p' && tokens[i+2].text == "=" {
		return tokens[i].text, true
	}
	return "", false
}

// requiredGate reads an assignment's right-hand side at tokens[at]: a dependency(),
// find_library() or find_program() call (a method of a compiler object too) with
// required: get_option('x') and nothing after it on the line. Its gate has Want true:
// found when the option is enabled.
func requiredGate(tokens []mesonToken, at int) (mesonGate, bool) {
	if at+2 < len(tokens) && tokens[at].kind == 'i' && tokens[at+1].text == "." && tokens[at+2].text == "find_library" {
		at += 2
	}
	if at+1 >= len(tokens) || tokens[at].kind != 'i' || tokens[at+1].text != "(" {
		return mesonGate{}, false
	}
	if fn := tokens[at].text; fn != "dependency" && fn != "find_library" && fn != "find_program" {
		return mesonGate{}, false
	}
	args, kw, end := mesonCallArgs(tokens, at+1)
	if end+1 >= len(tokens) || tokens[end+1].kind != 'n' || len(args) == 0 {
		return mesonGate{}, false
	}
	r := kw["required"]
	if len(r) != 4 || r[0].text != "get_option" || r[1].text != "(" || r[2].kind != 's' || r[3].text != ")" {
		return mesonGate{}, false
	}
	return mesonGate{Option: r[2].text, Want: true, Feature: true, Dep: args[0], Line: tokens[at].line}, true
}

// mesonCondition reads an if condition up to the end of its line: an option gate
// ([optionGate]) or a found() gate of a variable in found; a gate with no Option for
// any other condition.
func mesonCondition(ts []mesonToken, found map[string]mesonGate) mesonGate {
	if g := optionGate(ts); g != nil {
		return *g
	}
	want := true
	if len(ts) > 0 && ts[0].kind == 'i' && ts[0].text == "not" {
		want, ts = false, ts[1:]
	}
	if len(ts) < 6 || ts[0].kind != 'i' || ts[1].text != "." || ts[2].text != "found" || ts[3].text != "(" || ts[4].text != ")" || ts[5].kind != 'n' {
		return mesonGate{}
	}
	g, ok := found[ts[0].text]
	if !ok {
		return mesonGate{}
	}
	g.Want = want
	return g
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
