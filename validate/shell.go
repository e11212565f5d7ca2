package validate

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// dyn stands for a part of a word whose value is only known at run time ($VAR, $(...),
// `...`, $((...)), a brace sequence). It cannot occur in parsed literal text.
const dyn = "\x00"

// maxAlternatives bounds brace expansion: a word with more alternatives counts as dynamic.
const maxAlternatives = 64

// maxCommandBytes bounds the input the shell rules look at.
const maxCommandBytes = 64 << 10

// parseLine parses one shell line (or script) as bash, with the parser the package-name
// corrections and the sandbox's package-manager detection use too (internal/shellwords),
// so that the words checked here are the words they see.
func parseLine(line string) (*syntax.File, error) {
	if len(line) > maxCommandBytes {
		return nil, reject(ruleParse, "", "the command is longer than 64 KiB", "write a shorter command")
	}
	if strings.ContainsRune(line, 0) {
		return nil, reject(ruleParse, "", "the command contains a NUL byte", "write plain text")
	}
	f, err := shellwords.Parse(line)
	if err != nil {
		return nil, reject(ruleParse, line, "it is not a valid shell command ("+strings.TrimPrefix(err.Error(), "parse the command line: ")+")", "write one plain shell command with balanced quotes")
	}
	return f, nil
}

// arg is the evaluated form of a shell word.
type arg struct {
	// alts are the values of the word after brace expansion (one for most words).
	// Runtime parts are replaced by dyn.
	alts []string
	// dynamic is true when some part is only known at run time.
	dynamic bool
	// glob is true when an unquoted part contains a glob character.
	glob bool
}

// val returns the first alternative.
func (a arg) val() string {
	if len(a.alts) == 0 {
		return ""
	}
	return a.alts[0]
}

// static reports whether the word is one literal string.
func (a arg) static() bool { return !a.dynamic && len(a.alts) == 1 }

// evalWord computes what a word expands to, as far as it can be known statically.
func evalWord(w *syntax.Word) arg {
	if w == nil {
		return arg{alts: []string{""}}
	}
	suspicious := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") && (strings.Contains(l.Value, ",") || strings.Contains(l.Value, "..")) {
			suspicious = true
		}
	}
	cw := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	syntax.SplitBraces(cw)
	if suspicious && leftoverBraces(cw.Parts) {
		// A brace expression the parser could not split: bash may still expand it
		// (for example {..,x} or a character range), so its value is unknown.
		return arg{alts: []string{dyn}, dynamic: true}
	}
	var a arg
	a.alts = evalParts(cw.Parts, true, &a)
	return a
}

func leftoverBraces(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "{}") {
				return true
			}
		case *syntax.BraceExp:
			for _, e := range p.Elems {
				if leftoverBraces(e.Parts) {
					return true
				}
			}
		}
	}
	return false
}

func evalParts(parts []syntax.WordPart, first bool, a *arg) []string {
	alts := []string{""}
	appendAll := func(ss []string) {
		if len(alts)*len(ss) > maxAlternatives {
			a.dynamic = true
			for i := range alts {
				alts[i] += dyn
			}
			return
		}
		var next []string
		for _, x := range alts {
			for _, s := range ss {
				next = append(next, x+s)
			}
		}
		alts = next
	}
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if first && i == 0 && strings.HasPrefix(v, "~") {
				v = expandTilde(v, a)
			}
			if strings.ContainsAny(v, "*?[") {
				a.glob = true
			}
			appendAll([]string{shellwords.Unescape(v)})
		case *syntax.SglQuoted:
			if p.Dollar {
				s, err := ansiC(p)
				if err != nil || strings.ContainsRune(s, 0) {
					a.dynamic = true
					s = dyn
				}
				appendAll([]string{s})
				continue
			}
			appendAll([]string{p.Value})
		case *syntax.DblQuoted:
			var b strings.Builder
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(shellwords.UnescapeDouble(l.Value))
					continue
				}
				a.dynamic = true
				b.WriteString(dyn)
			}
			appendAll([]string{b.String()})
		case *syntax.BraceExp:
			if p.Sequence {
				a.dynamic = true
				appendAll([]string{dyn})
				continue
			}
			var elems []string
			for _, e := range p.Elems {
				elems = append(elems, evalParts(e.Parts, false, a)...)
				if len(elems) > maxAlternatives {
					a.dynamic = true
					elems = []string{dyn}
					break
				}
			}
			appendAll(elems)
		default:
			// ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob.
			a.dynamic = true
			appendAll([]string{dyn})
		}
	}
	return alts
}

// ansiC expands a $'...' string. expand.Literal of mvdan.cc/sh v3.12.0 panics on some
// escapes (such as $'\00'), so a panic counts as a value only known at run time.
func ansiC(p *syntax.SglQuoted) (s string, err error) {
	defer func() {
		if recover() != nil {
			s, err = "", errors.New("cannot expand $'...'")
		}
	}()
	return expand.Literal(nil, &syntax.Word{Parts: []syntax.WordPart{p}})
}

// expandTilde expands a leading ~ or ~/ to the sandbox home /root. Other forms (~user,
// ~+, ~-) are marked dynamic.
func expandTilde(v string, a *arg) string {
	rest := v[1:]
	name, tail, _ := strings.Cut(rest, "/")
	if name == "" {
		if strings.Contains(rest, "/") {
			return "/root/" + tail
		}
		return "/root"
	}
	a.dynamic = true
	if strings.Contains(rest, "/") {
		return dyn + "/" + tail
	}
	return dyn
}

// call is an evaluated simple command.
type call struct {
	assigns map[string]arg
	args    []arg
	// src is the parsed command, printed only when a message needs it.
	src syntax.Node
	// stdin is the here-document or here-string that feeds the command; nil when the
	// input is a pipe, a file or nothing, which the rules cannot read.
	stdin *syntax.Word
	// fx follows what the commands of a line, a plan or a fix wrote, downloaded and
	// linked before this one (nil: nothing is followed).
	fx *flow
}

// text renders the command for a message.
func (c call) text() string {
	if c.src == nil {
		return ""
	}
	return printNode(c.src)
}

func (c call) prog() string {
	if len(c.args) == 0 {
		return ""
	}
	return c.args[0].val()
}

// evalCall evaluates a CallExpr.
func evalCall(ce *syntax.CallExpr) call {
	c := call{src: ce}
	for _, as := range ce.Assigns {
		if as.Name == nil {
			continue
		}
		if c.assigns == nil {
			c.assigns = map[string]arg{}
		}
		if as.Array != nil {
			c.assigns[as.Name.Value] = arg{alts: []string{dyn}, dynamic: true}
			continue
		}
		c.assigns[as.Name.Value] = evalWord(as.Value)
	}
	for _, w := range ce.Args {
		c.args = append(c.args, evalWord(w))
	}
	return c
}

// sub makes a call out of already expanded words (the command of find -exec or of a
// wrapper), with the source and flow of c. Dynamic words keep their marker.
func (c call) sub(words []arg) call {
	return call{args: words, src: c.src, fx: c.fx}
}

func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}

// base returns the last path element of a program name.
func base(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// shown renders a value for a message, with runtime parts as $(...).
func shown(s string) string {
	return strings.ReplaceAll(s, dyn, "$(...)")
}
