package riscvisa

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ISA is a parsed RISC-V architecture string: the register width and the set of
// extensions, every implied extension included (so "g" brings i, m, a, f, d, zicsr and
// zifencei, "v" its vector subsets).
type ISA struct {
	// XLEN is 32 or 64.
	XLEN int
	exts map[string]bool
}

// ErrBadISA is wrapped by every error of [ParseISA].
var ErrBadISA = errors.New("not a RISC-V architecture string")

// maxISALen bounds the architecture strings parsed; real ones are a few hundred bytes.
const maxISALen = 4096

var versionSuffix = regexp.MustCompile(`[0-9]+(p[0-9]+)?$`)

// ParseISA parses an architecture string in the forms compilers write and accept:
// "rv64gc", "rv64imafdc_zicsr_zifencei", or the canonical form with versions,
// "rv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0_zicsr2p0". Versions are dropped: a baseline is a
// set of extensions, and the compilers of one distribution agree on their versions.
func ParseISA(s string) (ISA, error) {
	if len(s) > maxISALen {
		return ISA{}, fmt.Errorf("%w: %d bytes", ErrBadISA, len(s))
	}
	l := strings.ToLower(strings.TrimSpace(s))
	var isa ISA
	switch {
	case strings.HasPrefix(l, "rv64"):
		isa.XLEN = 64
	case strings.HasPrefix(l, "rv32"):
		isa.XLEN = 32
	default:
		return ISA{}, fmt.Errorf("%w: %q does not start with rv32 or rv64", ErrBadISA, s)
	}
	isa.exts = map[string]bool{}
	parts := strings.Split(l[4:], "_")
	if parts[0] == "" || !strings.ContainsRune("ieg", rune(parts[0][0])) {
		return ISA{}, fmt.Errorf("%w: %q has no base i, e or g", ErrBadISA, s)
	}
	for _, p := range parts {
		if p == "" {
			continue
		}
		// The base and single-letter extensions, possibly a run of them ("imafdc", or
		// "i2p1" and "m2p0" in their own parts).
		if err := isa.addLetters(p, s); err != nil {
			return ISA{}, err
		}
	}
	return isa, nil
}

// addLetters adds a run of single-letter extensions, each optionally followed by its
// version ("i2p1m2p0", "imafdc").
func (isa *ISA) addLetters(p, whole string) error {
	for len(p) > 0 {
		c := p[0]
		if c == 'z' || c == 's' || c == 'x' {
			// A multi-letter extension runs to the end of its part.
			return isa.addMulti(p, whole)
		}
		if c != 'g' && !strings.ContainsRune(letterOrder, rune(c)) {
			return fmt.Errorf("%w: %q in %q is no single-letter extension", ErrBadISA, c, whole)
		}
		p = p[1:]
		if v := leadingVersion(p); v != "" {
			p = p[len(v):]
		}
		isa.add(string(c))
	}
	return nil
}

// addMulti adds a multi-letter extension ("zba", "zvl128b1p0", "xtheadba"), dropping
// its version. Supervisor names such as "sv39" end in digits of their own, so a
// version is only taken off them in the "XpY" form.
func (isa *ISA) addMulti(p, whole string) error {
	name := p
	if v := versionSuffix.FindString(p); v != "" && (!strings.HasPrefix(p, "sv") || strings.Contains(v, "p")) {
		name = strings.TrimSuffix(p, v)
	}
	if len(name) < 2 {
		return fmt.Errorf("%w: extension %q in %q has no name", ErrBadISA, p, whole)
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return fmt.Errorf("%w: unexpected %q in %q", ErrBadISA, c, whole)
		}
	}
	isa.add(name)
	return nil
}

// letterOrder lists the single-letter extensions in their canonical order.
const letterOrder = "iemafdqlcbkjtpvnh"

var leadingVersionRE = regexp.MustCompile(`^[0-9]+(p[0-9]+)?`)

func leadingVersion(p string) string { return leadingVersionRE.FindString(p) }

// add adds ext and everything it implies.
func (isa *ISA) add(ext string) {
	if isa.exts[ext] {
		return
	}
	// "g" is only shorthand for its extensions; the set holds those.
	if ext != "g" {
		isa.exts[ext] = true
	}
	// The compressed subsets that "c" brings depend on the float extensions present;
	// expanded adds them once the whole string is read.
	for _, e := range implies[ext] {
		isa.add(e)
	}
}

// implies lists what each extension brings with it, as the ISA manual and the compilers
// define it. Extensions not listed imply nothing here.
var implies = map[string][]string{
	"g":       {"i", "m", "a", "f", "d", "zicsr", "zifencei"},
	"m":       {"zmmul"},
	"a":       {"zaamo", "zalrsc"},
	"f":       {"zicsr"},
	"d":       {"f"},
	"c":       {"zca"},
	"b":       {"zba", "zbb", "zbs"},
	"v":       {"zve64d", "zvl128b"},
	"zve64d":  {"zve64f", "d"},
	"zve64f":  {"zve32f", "zve64x"},
	"zve64x":  {"zve32x", "zvl64b"},
	"zve32f":  {"zve32x", "f"},
	"zve32x":  {"zvl32b", "zicsr"},
	"zvl128b": {"zvl64b"},
	"zvl64b":  {"zvl32b"},
	"zcb":     {"zca"},
	"zcd":     {"zca", "d"},
	"zfh":     {"zfhmin"},
	"zfhmin":  {"f"},
	"zfa":     {"f"},
	"zvfhmin": {"zve32f"},
	"zvfh":    {"zvfhmin", "zfhmin"},
	"zvbb":    {"zvkb"},
	"zvkb":    {"zve32x"},
	"zk":      {"zkn", "zkr", "zkt"},
	"zkn":     {"zbkb", "zbkc", "zbkx", "zkne", "zknd", "zknh"},
}

// expanded returns the extension set with the compressed subsets that "c" implies
// given the float extensions (zcd with d; zcf with f on rv32).
func (isa ISA) expanded() map[string]bool {
	out := make(map[string]bool, len(isa.exts)+2)
	for e := range isa.exts {
		out[e] = true
	}
	if out["c"] {
		if out["d"] {
			out["zcd"] = true
		}
		if out["f"] && isa.XLEN == 32 {
			out["zcf"] = true
		}
	}
	return out
}

// Has reports whether the ISA includes ext (directly or implied).
func (isa ISA) Has(ext string) bool { return isa.expanded()[strings.ToLower(ext)] }

// Extensions returns every extension of the ISA, implied ones included, sorted.
func (isa ISA) Extensions() []string {
	var out []string
	for e := range isa.expanded() {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

// Union returns the ISA that needs everything a or b needs (for a static archive whose
// members were compiled with different flags).
func Union(a, b ISA) ISA {
	if a.exts == nil {
		return b
	}
	if b.exts == nil {
		return a
	}
	u := ISA{XLEN: max(a.XLEN, b.XLEN), exts: map[string]bool{}}
	for e := range a.exts {
		u.exts[e] = true
	}
	for e := range b.exts {
		u.exts[e] = true
	}
	return u
}

// String returns the ISA as an architecture string: rv<XLEN>, then the single-letter
// extensions in the canonical order, then the others sorted, separated by underscores.
func (isa ISA) String() string {
	if isa.exts == nil {
		return ""
	}
	exts := isa.expanded()
	var letters strings.Builder
	for _, c := range letterOrder {
		if exts[string(c)] {
			letters.WriteRune(c)
		}
	}
	var multi []string
	for e := range exts {
		if len(e) > 1 {
			multi = append(multi, e)
		}
	}
	sort.Strings(multi)
	s := fmt.Sprintf("rv%d%s", isa.XLEN, letters.String())
	if len(multi) > 0 {
		s += "_" + strings.Join(multi, "_")
	}
	return s
}
