package repair

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// mesonNoPositional is meson's refusal of positional arguments to a function that
// takes none, at the call's file, line and column. Releases before 0.60 accepted and
// ignored them (i18n.merge_file's first argument, once a target name, was ignored
// from 0.37 and refused from 0.61), so sources written for them stop there.
var mesonNoPositional = re(`(?m)^(\S*meson\.build):(\d+):(\d+): ERROR: (?:Function|[\w.]+) does not take (?:any )?positional arguments\.?`)

// maxPositionalArgs bounds the arguments the rule removes from one call.
const maxPositionalArgs = 8

func mesonPositionalRule() Rule {
	return Rule{
		Name: "meson-positional-removed",
		Doc: "meson refuses positional arguments to a function that takes none (i18n.merge_file('name', ...)), which releases before 0.60 ignored: " +
			"the call's positional string arguments removed from its meson.build",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{mesonNoPositional},
		Make:       makeMesonPositional,
	}
}

func makeMesonPositional(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "no build files"
	}
	m := mesonNoPositional.FindStringSubmatch(f.text() + "\n" + f.Message)
	if m == nil {
		return nil, "no refused positional argument in the output"
	}
	file, ok := locateFile(env.Files, m[1])
	if !ok {
		return nil, m[1] + " is not in the package's tree"
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	b, err := env.ReadFile(ctx, file)
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", file, err)
	}
	src := string(b)
	if len(src) > maxMesonBytes {
		return nil, fmt.Sprintf("%s is over %d bytes", file, maxMesonBytes)
	}
	name, open, why := mesonCallAt(src, line, col)
	if why != "" {
		return nil, fmt.Sprintf("%s:%d: %s", file, line, why)
	}
	spans, args, why := positionalSpans(src, open)
	if why != "" {
		return nil, fmt.Sprintf("%s:%d: %s", file, line, why)
	}
	next := removeSpans(src, spans)
	diff, changed := changedLinesDiff(file, src, next)
	if !changed {
		return nil, fmt.Sprintf("%s:%d: the call to %s has no positional argument to remove", file, line, name)
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s:%d calls %s with positional arguments (%s), which this meson refuses and releases before 0.60 ignored; "+
			"the call works the same without them.", file, line, name, strings.Join(args, ", ")),
		Strategy: fmt.Sprintf("remove the positional arguments of %s at %s:%d", name, file, line),
		Actions:  []atesor.Action{{Type: atesor.ActionPatch, File: file, Diff: diff}},
	}, ""
}

// mesonCallAt finds the call meson's error points at: the dotted name that starts at
// the error's column of line (1-based line, 0-based column, as meson prints them;
// i18n.merge_file is reported at merge_file), and the offset of its "(" in src.
func mesonCallAt(src string, line, col int) (name string, open int, why string) {
	start := 0
	for i := 1; i < line; i++ {
		n := strings.IndexByte(src[start:], '\n')
		if n < 0 {
			return "", 0, "the file has fewer lines"
		}
		start += n + 1
	}
	end := strings.IndexByte(src[start:], '\n')
	if end < 0 {
		end = len(src) - start
	}
	text := src[start : start+end]
	if col < 0 || col >= len(text) || !isIdentByte(text[col], false) {
		return "", 0, "no function name at the error's column"
	}
	from, to := col, col
	for from > 0 && (isIdentByte(text[from-1], false) || text[from-1] == '.') {
		from--
	}
	for to < len(text) && isIdentByte(text[to], false) {
		to++
	}
	name = text[from:to]
	rest := strings.TrimLeft(text[to:], " \t")
	if !strings.HasPrefix(rest, "(") {
		return "", 0, name + " is not called there"
	}
	return name, start + to + (len(text[to:]) - len(rest)), ""
}

// positionalSpans returns the byte spans of the positional string arguments of the call
// whose "(" is at src[open], each with the comma after it, and their texts; a
// positional argument that is not a string literal is refused (the rule removes only
// what it can read).
func positionalSpans(src string, open int) (spans [][2]int, args []string, why string) {
	i := open + 1
	for len(spans) <= maxPositionalArgs {
		i = skipMesonSpace(src, i)
		if i >= len(src) || src[i] == ')' {
			return spans, args, ""
		}
		if src[i] != '\'' {
			if isIdentByte(src[i], false) {
				j := i
				for j < len(src) && isIdentByte(src[j], false) {
					j++
				}
				if k := skipMesonSpace(src, j); k < len(src) && src[k] == ':' {
					return spans, args, "" // the keyword arguments start
				}
			}
			return nil, nil, "a positional argument that is not a string literal"
		}
		text, n, ok := mesonString(src[i:])
		if !ok {
			return nil, nil, "an unclosed string"
		}
		from := i
		i = skipMesonSpace(src, i+n)
		if i < len(src) && src[i] == ',' {
			i++
			for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
				i++
			}
		}
		spans = append(spans, [2]int{from, i})
		args = append(args, strconv.Quote(text))
	}
	return nil, nil, fmt.Sprintf("more than %d positional arguments", maxPositionalArgs)
}

// skipMesonSpace skips blanks, newlines and comments from src[i].
func skipMesonSpace(src string, i int) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
			i++
		case '#':
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				return len(src)
			}
			i += n
		default:
			return i
		}
	}
	return i
}

// removeSpans deletes the spans of src but for their newlines, so the file keeps its
// lines (changedLinesDiff diffs line for line).
func removeSpans(src string, spans [][2]int) string {
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(src[last:s[0]])
		b.WriteString(strings.Repeat("\n", strings.Count(src[s[0]:s[1]], "\n")))
		last = s[1]
	}
	b.WriteString(src[last:])
	return b.String()
}
