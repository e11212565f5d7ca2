// Package shellwords reads shell command lines with one parser, mvdan.cc/sh/v3/syntax
// in bash mode, for every part of Atesor that needs the words of a line: the command
// rules of validate, the package-name corrections of knowledge and the package-manager
// detection of sandbox. Sharing it matters for security: a line is checked, corrected
// and classified as one parser reads it, so no component sees other words than the
// one that decided about them.
package shellwords

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// parsers reuses bash parsers; a Parser is reusable but not safe for concurrent use.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// Parse parses a command line (or a script) as bash. A line with a NUL byte is an
// error: no shell passes one to a program, and the parser would drop it from words.
func Parse(line string) (*syntax.File, error) {
	if strings.IndexByte(line, 0) >= 0 {
		return nil, errors.New("parse the command line: it contains a NUL byte")
	}
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	f, err := p.Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("parse the command line: %w", err)
	}
	return f, nil
}

// Word is one word of a simple command.
type Word struct {
	// Value is the word after quote removal when Static, else "".
	Value string
	// Static is true when the word has one value known before the shell runs it: only
	// literal text and quotes, no expansion, substitution, glob or brace expression.
	Static bool
	// Plain is true for an unquoted literal without escapes: its text in the line is
	// exactly Value, so it can be replaced in place.
	Plain bool
	// Start and End are the word's byte offsets in the line.
	Start, End int
}

// Command is a simple command of a line: its leading assignments and its words.
type Command struct {
	// Assigns are the names of the leading VAR=value assignments.
	Assigns []string
	// Values are the values of those assignments, one for each name (an empty
	// assignment, VAR=, is a static empty word at the assignment's end).
	Values []Word
	Words  []Word
}

// Commands returns every simple command of a parsed line, in source order, including
// those inside lists, pipelines, subshells, blocks and command substitutions.
func Commands(f *syntax.File) []Command {
	var out []Command
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var c Command
		for _, a := range ce.Assigns {
			if a.Name == nil {
				continue
			}
			c.Assigns = append(c.Assigns, a.Name.Value)
			v := Word{Start: int(a.End().Offset()), End: int(a.End().Offset()), Static: true, Plain: true}
			if a.Value != nil {
				v = wordOf(a.Value)
			} else if a.Array != nil || a.Index != nil {
				v.Static, v.Plain = false, false
			}
			c.Values = append(c.Values, v)
		}
		for _, w := range ce.Args {
			c.Words = append(c.Words, wordOf(w))
		}
		out = append(out, c)
		return true
	})
	return out
}

func wordOf(w *syntax.Word) Word {
	out := Word{Start: int(w.Pos().Offset()), End: int(w.End().Offset()), Static: true}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[{") {
				out.Static = false
			}
			b.WriteString(Unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				out.Static = false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					out.Static = false
					continue
				}
				b.WriteString(UnescapeDouble(l.Value))
			}
		default:
			out.Static = false
		}
	}
	if out.Static {
		out.Value = b.String()
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && out.Static && !strings.Contains(l.Value, `\`) {
			// The literal is the word's whole text, so it ends len(Value) bytes on: the
			// parser's end offset falls short of a literal that ends in a multi-byte
			// character ("0\u0080" ends at 1), and a Replacement over that span would keep
			// the character's bytes.
			out.Plain, out.End = true, out.Start+len(l.Value)
		}
	}
	return out
}

// Unescape removes the backslash escapes of an unquoted shell word: a backslash keeps
// the next byte literally, and a backslash-newline is a line continuation.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// UnescapeDouble removes the backslash escapes that a double-quoted shell string
// honours: before $, `, ", \ and newline; every other backslash stays.
func UnescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// wrappers run the command that follows their options and VAR=value words.
var wrappers = map[string]bool{"sudo": true, "doas": true, "env": true, "nice": true, "command": true, "nohup": true}

// Program returns the index of the word that names the program c runs, past sudo, env,
// nice and command and their option and VAR=value words; -1 when there is none or it
// is not static.
func (c Command) Program() int {
	for i := 0; i < len(c.Words); i++ {
		w := c.Words[i]
		if !w.Static {
			return -1
		}
		if wrappers[base(w.Value)] {
			for i+1 < len(c.Words) && c.Words[i+1].Static && (strings.HasPrefix(c.Words[i+1].Value, "-") || IsAssignment(c.Words[i+1].Value)) {
				i++
			}
			continue
		}
		return i
	}
	return -1
}

// Name returns the base name of the program c runs, "" when it is not known statically.
func (c Command) Name() string {
	i := c.Program()
	if i < 0 {
		return ""
	}
	return base(c.Words[i].Value)
}

func base(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// IsAssignment reports whether the word s is a shell variable assignment (NAME=value).
func IsAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

// Replacement replaces the bytes [Start, End) of a line with Text.
type Replacement struct {
	Start, End int
	Text       string
}

// Apply returns line with the replacements made. They must not overlap; their order
// does not matter.
func Apply(line string, reps []Replacement) string {
	if len(reps) == 0 {
		return line
	}
	sorted := append([]Replacement(nil), reps...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].Start < sorted[j-1].Start; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	var b strings.Builder
	last := 0
	for _, r := range sorted {
		if r.Start < last || r.End > len(line) || r.Start > r.End {
			continue
		}
		b.WriteString(line[last:r.Start])
		b.WriteString(r.Text)
		last = r.End
	}
	b.WriteString(line[last:])
	return b.String()
}

// Quote quotes s as one word for sh: in single quotes, with each single quote of s
// closing the quotes, escaped, and reopening them. Every character stays data,
// whatever the shell would make of it.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
