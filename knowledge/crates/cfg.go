package crates

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Target describes the build target for [target.'cfg(...)'] tables.
type Target struct {
	Triple, Arch, OS, Family, Env string
	PointerWidth                  int
	// Endian, Vendor, ABI and Panic answer target_endian, target_vendor, target_abi
	// and panic; HasAtomic lists the widths of target_has_atomic, Features the
	// target_feature names. Empty: those keys are false (target_abi = "" aside).
	Endian, Vendor, ABI, Panic string
	HasAtomic, Features        []string
	// DebugAssertions answers the bare name debug_assertions. Cargo evaluates target
	// tables with the cfg that plain rustc prints, and that has debug_assertions
	// whatever the profile, so it is true for every cargo build.
	DebugAssertions bool
}

// RISCV64 is riscv64gc-unknown-linux-gnu, with the cfg values rustc prints for it.
var RISCV64 = Target{Triple: "riscv64gc-unknown-linux-gnu", Arch: "riscv64", OS: "linux", Family: "unix", Env: "gnu", PointerWidth: 64,
	Endian: "little", Vendor: "unknown", Panic: "unwind", HasAtomic: []string{"8", "16", "32", "64", "ptr"},
	Features: []string{"a", "c", "d", "f", "m"}, DebugAssertions: true}

// maxCfgDepth bounds the nesting of all(), any() and not(): real expressions nest two
// or three deep, and the bound keeps a hostile one from exhausting the stack.
const maxCfgDepth = 64

// Matches reports whether a [target.X] key applies to t: a cfg(...) expression
// evaluated against t, or a target triple compared with t's. A malformed cfg
// expression is an error (cargo refuses such a manifest too).
func (t Target) Matches(spec string) (bool, error) {
	spec = strings.TrimSpace(spec)
	if !strings.HasPrefix(spec, "cfg(") {
		return spec == t.Triple, nil
	}
	e, err := ParseCfg(spec)
	if err != nil {
		return false, err
	}
	return e.Eval(t), nil
}

// Cfg is a parsed cfg(...) expression.
type Cfg struct {
	kind  cfgKind
	key   string
	value string
	hasV  bool
	args  []Cfg
}

type cfgKind int

const (
	cfgName cfgKind = iota // unix, target_os = "linux"
	cfgAll
	cfgAny
	cfgNot
)

// ParseCfg reads a cfg expression as cargo writes it in a target table key:
// cfg(PRED) where PRED is a name (unix), a name = "value" pair (target_os = "linux"),
// or all(...), any(...), not(...) of predicates.
func ParseCfg(s string) (Cfg, error) {
	if len(s) > maxVersionText*4 {
		return Cfg{}, fmt.Errorf("crates: cfg expression of %d bytes is too long", len(s))
	}
	p := &cfgParser{s: s}
	p.space()
	if !p.word("cfg") || !p.punct('(') {
		return Cfg{}, fmt.Errorf("crates: %q is not a cfg(...) expression", s)
	}
	e, err := p.pred(0)
	if err != nil {
		return Cfg{}, fmt.Errorf("crates: cfg expression %q: %w", s, err)
	}
	if !p.punct(')') {
		return Cfg{}, fmt.Errorf("crates: cfg expression %q: expected ')' at offset %d", s, p.i)
	}
	p.space()
	if p.i != len(p.s) {
		return Cfg{}, fmt.Errorf("crates: cfg expression %q: unexpected %q after the expression", s, p.s[p.i:])
	}
	return e, nil
}

type cfgParser struct {
	s string
	i int
}

func (p *cfgParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *cfgParser) punct(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// word consumes the identifier w when it is the next token.
func (p *cfgParser) word(w string) bool {
	save := p.i
	if id := p.ident(); id == w {
		return true
	}
	p.i = save
	return false
}

func (p *cfgParser) ident() string {
	p.space()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > start && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *cfgParser) pred(depth int) (Cfg, error) {
	if depth > maxCfgDepth {
		return Cfg{}, fmt.Errorf("nested deeper than %d", maxCfgDepth)
	}
	id := p.ident()
	if id == "" {
		if p.i >= len(p.s) {
			return Cfg{}, errors.New("unexpected end")
		}
		return Cfg{}, fmt.Errorf("unexpected %q at offset %d", p.s[p.i:p.i+1], p.i)
	}
	kinds := map[string]cfgKind{"all": cfgAll, "any": cfgAny, "not": cfgNot}
	if k, ok := kinds[id]; ok && p.punct('(') {
		e := Cfg{kind: k}
		for !p.punct(')') {
			if len(e.args) > 0 && !p.punct(',') {
				return Cfg{}, fmt.Errorf("expected ',' or ')' at offset %d", p.i)
			}
			if p.punct(')') { // a trailing comma
				break
			}
			a, err := p.pred(depth + 1)
			if err != nil {
				return Cfg{}, err
			}
			e.args = append(e.args, a)
		}
		if k == cfgNot && len(e.args) != 1 {
			return Cfg{}, fmt.Errorf("not() takes one predicate, not %d", len(e.args))
		}
		return e, nil
	}
	e := Cfg{kind: cfgName, key: id}
	if p.punct('=') {
		v, err := p.str()
		if err != nil {
			return Cfg{}, err
		}
		e.value, e.hasV = v, true
	}
	return e, nil
}

// str reads a double-quoted string; Rust's escapes are read by strconv.Unquote, which
// accepts the ones a cfg value uses.
func (p *cfgParser) str() (string, error) {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", fmt.Errorf("expected a quoted value at offset %d", p.i)
	}
	j := p.i + 1
	for j < len(p.s) && p.s[j] != '"' {
		if p.s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(p.s) {
		return "", errors.New("an unterminated string")
	}
	v, err := strconv.Unquote(p.s[p.i : j+1])
	if err != nil {
		return "", fmt.Errorf("the string %s: %w", p.s[p.i:j+1], err)
	}
	p.i = j + 1
	return v, nil
}

// Eval evaluates the expression for t. A name or key that t does not answer is
// false, as cargo treats a cfg that rustc does not set for the target (feature = "..."
// in a target table, test, a custom --cfg, an unknown key): unset.
func (e Cfg) Eval(t Target) bool {
	switch e.kind {
	case cfgAll:
		for _, a := range e.args {
			if !a.Eval(t) {
				return false
			}
		}
		return true
	case cfgAny:
		for _, a := range e.args {
			if a.Eval(t) {
				return true
			}
		}
		return false
	case cfgNot:
		return !e.args[0].Eval(t)
	}
	if !e.hasV {
		switch e.key {
		case "unix", "windows": // the bare names rustc sets from the target family
			return e.key == t.Family
		case "debug_assertions":
			return t.DebugAssertions
		}
		return false
	}
	switch e.key {
	case "target_arch":
		return e.value == t.Arch
	case "target_os":
		return e.value == t.OS
	case "target_family":
		return e.value == t.Family
	case "target_env":
		return e.value == t.Env
	case "target_vendor":
		return e.value == t.Vendor
	case "target_endian":
		return e.value == t.Endian
	case "target_pointer_width":
		return t.PointerWidth > 0 && e.value == strconv.Itoa(t.PointerWidth)
	case "target_abi":
		return e.value == t.ABI
	case "panic":
		return t.Panic != "" && e.value == t.Panic
	case "target_has_atomic":
		return slices.Contains(t.HasAtomic, e.value)
	case "target_feature":
		return slices.Contains(t.Features, e.value)
	}
	return false
}
