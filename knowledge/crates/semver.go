package crates

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a crate version as cargo reads it: MAJOR.MINOR.PATCH with an optional
// pre-release; build metadata is dropped because it takes no part in matching.
type Version struct {
	Major, Minor, Patch uint64
	// Pre is the pre-release ("alpha.1"); "" for a release.
	Pre string
}

// maxVersionText bounds a version or requirement text: cargo's longest real ones are
// a few dozen bytes, and a bound keeps a hostile manifest from making the parsers walk
// megabytes.
const maxVersionText = 1024

// maxComparators is cargo's own limit on the comparators of one requirement.
const maxComparators = 32

// ParseVersion reads a full version ("1.0.14", "0.3.0-beta.2", "1.2.3+build.5") with
// cargo's rules: three numeric parts without leading zeros, a pre-release of
// dot-separated alphanumeric identifiers (numeric ones without leading zeros), build
// metadata after "+".
func ParseVersion(s string) (Version, error) {
	if len(s) > maxVersionText {
		return Version{}, fmt.Errorf("crates: version of %d bytes is too long", len(s))
	}
	var v Version
	rest := s
	var err error
	for i, p := range []*uint64{&v.Major, &v.Minor, &v.Patch} {
		if i > 0 {
			if rest, err = dot(rest); err != nil {
				return Version{}, fmt.Errorf("crates: version %q: %w", s, err)
			}
		}
		if *p, rest, err = number(rest); err != nil {
			return Version{}, fmt.Errorf("crates: version %q: %w", s, err)
		}
	}
	if rest, err = preAndBuild(rest, &v.Pre); err != nil {
		return Version{}, fmt.Errorf("crates: version %q: %w", s, err)
	}
	if rest != "" {
		return Version{}, fmt.Errorf("crates: version %q: unexpected %q", s, rest)
	}
	return v, nil
}

// String writes the version as cargo does.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare orders versions by semver precedence: -1 when v is lower than w, 0 when
// equal, 1 when higher. A release is higher than its pre-releases.
func (v Version) Compare(w Version) int {
	for _, d := range [][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return comparePre(v.Pre, w.Pre)
}

// comparePre orders pre-releases: none is highest; identifiers compare one by one,
// numeric ones by value and below alphanumeric ones, alphanumeric ones by ASCII; a
// shorter list that is a prefix of a longer one is lower.
func comparePre(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i, x := range as {
		if i >= len(bs) {
			return 1
		}
		y := bs[i]
		xn, yn := allDigits(x), allDigits(y)
		var c int
		switch {
		case xn && yn:
			// Without leading zeros, the longer number is the larger.
			c = cmp.Compare(len(x), len(y))
			if c == 0 {
				c = strings.Compare(x, y)
			}
		case xn:
			return -1
		case yn:
			return 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	if len(as) < len(bs) {
		return -1
	}
	return 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// op is a comparator's operator.
type op int

const (
	opCaret     op = iota // ^1.2 and the default 1.2
	opTilde               // ~1.2
	opExact               // =1.2
	opWildcard            // 1.* and 1.2.*
	opGreater             // >1.2
	opGreaterEq           // >=1.2
	opLess                // <1.2
	opLessEq              // <=1.2
)

// comparator is one term of a requirement; minor and patch are nil when left out.
type comparator struct {
	op           op
	major        uint64
	minor, patch *uint64
	pre          string
	wildcard     bool
}

// Requirement is a cargo version requirement: comparators joined by commas, all of
// which a version must meet. The zero value (and "" or "*") matches every release.
type Requirement struct {
	comps []comparator
}

// ParseRequirement reads a requirement as cargo does: "1.2.3" and "^1.2.3" (caret,
// the default), "~1.2", "=1.2.3", "1.*" and "1.2.x" (wildcards), ">=1.2, <2"
// (comparison lists, at most 32), pre-releases only on a full version. An empty text
// is cargo's default for a dependency without a version: any release.
func ParseRequirement(s string) (Requirement, error) {
	if len(s) > maxVersionText {
		return Requirement{}, fmt.Errorf("crates: requirement of %d bytes is too long", len(s))
	}
	text := strings.TrimLeft(s, " ")
	if text == "" {
		return Requirement{}, nil
	}
	if rest, ok := wildcard(text); ok {
		if strings.TrimLeft(rest, " ") == "" {
			return Requirement{}, nil
		}
		return Requirement{}, fmt.Errorf("crates: requirement %q: a wildcard must be the only comparator", s)
	}
	var r Requirement
	for {
		c, rest, err := parseComparator(text)
		if err != nil {
			return Requirement{}, fmt.Errorf("crates: requirement %q: %w", s, err)
		}
		r.comps = append(r.comps, c)
		if rest == "" {
			return r, nil
		}
		if rest[0] != ',' {
			return Requirement{}, fmt.Errorf("crates: requirement %q: expected a comma before %q", s, rest)
		}
		if len(r.comps) == maxComparators {
			return Requirement{}, fmt.Errorf("crates: requirement %q has more than %d comparators", s, maxComparators)
		}
		text = strings.TrimLeft(rest[1:], " ")
	}
}

func parseComparator(text string) (comparator, string, error) {
	var c comparator
	rest := text
	explicit := true
	switch {
	case strings.HasPrefix(rest, ">="):
		c.op, rest = opGreaterEq, rest[2:]
	case strings.HasPrefix(rest, "<="):
		c.op, rest = opLessEq, rest[2:]
	case strings.HasPrefix(rest, ">"):
		c.op, rest = opGreater, rest[1:]
	case strings.HasPrefix(rest, "<"):
		c.op, rest = opLess, rest[1:]
	case strings.HasPrefix(rest, "="):
		c.op, rest = opExact, rest[1:]
	case strings.HasPrefix(rest, "~"):
		c.op, rest = opTilde, rest[1:]
	case strings.HasPrefix(rest, "^"):
		c.op, rest = opCaret, rest[1:]
	default:
		c.op, explicit = opCaret, false
	}
	rest = strings.TrimLeft(rest, " ")
	var err error
	if c.major, rest, err = number(rest); err != nil {
		return c, "", err
	}
	if r, ok := strings.CutPrefix(rest, "."); ok {
		if r2, ok := wildcard(r); ok {
			c.wildcard, rest = true, r2
			if !explicit {
				c.op = opWildcard
			}
		} else {
			var n uint64
			if n, rest, err = number(r); err != nil {
				return c, "", err
			}
			c.minor = &n
		}
	}
	if r, ok := strings.CutPrefix(rest, "."); ok {
		if r2, ok := wildcard(r); ok {
			c.wildcard, rest = true, r2
			if !explicit {
				c.op = opWildcard
			}
		} else if c.wildcard {
			return c, "", errors.New("a version part after a wildcard")
		} else {
			var n uint64
			if n, rest, err = number(r); err != nil {
				return c, "", err
			}
			c.patch = &n
		}
	}
	if c.patch != nil {
		if rest, err = preAndBuild(rest, &c.pre); err != nil {
			return c, "", err
		}
	}
	return c, strings.TrimLeft(rest, " "), nil
}

// wildcard strips a leading "*", "x" or "X".
func wildcard(s string) (string, bool) {
	if s != "" && (s[0] == '*' || s[0] == 'x' || s[0] == 'X') {
		return s[1:], true
	}
	return s, false
}

// number reads a numeric part: digits, no leading zero, no overflow of 64 bits.
func number(s string) (uint64, string, error) {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 {
		if s == "" {
			return 0, "", errors.New("a number is missing at the end")
		}
		return 0, "", fmt.Errorf("unexpected %q where a number belongs", s[:1])
	}
	if n > 1 && s[0] == '0' {
		return 0, "", fmt.Errorf("%s has a leading zero", s[:n])
	}
	v, err := strconv.ParseUint(s[:n], 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("%s is too large", s[:n])
	}
	return v, s[n:], nil
}

func dot(s string) (string, error) {
	if r, ok := strings.CutPrefix(s, "."); ok {
		return r, nil
	}
	if s == "" {
		return "", errors.New("a version part is missing")
	}
	return "", fmt.Errorf("unexpected %q where a dot belongs", s[:1])
}

// preAndBuild reads an optional "-PRE" into pre and skips an optional "+BUILD".
func preAndBuild(s string, pre *string) (string, error) {
	var err error
	if r, ok := strings.CutPrefix(s, "-"); ok {
		if *pre, s, err = identifiers(r, true); err != nil {
			return "", fmt.Errorf("pre-release: %w", err)
		}
	}
	if r, ok := strings.CutPrefix(s, "+"); ok {
		if _, s, err = identifiers(r, false); err != nil {
			return "", fmt.Errorf("build metadata: %w", err)
		}
	}
	return s, nil
}

// identifiers reads dot-separated identifiers of [0-9A-Za-z-]; numeric pre-release
// identifiers may not have leading zeros.
func identifiers(s string, pre bool) (string, string, error) {
	end, start := 0, 0
	for {
		i := start
		for i < len(s) && (s[i] == '-' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		seg := s[start:i]
		if seg == "" {
			return "", "", errors.New("an empty identifier")
		}
		if pre && len(seg) > 1 && seg[0] == '0' && allDigits(seg) {
			return "", "", fmt.Errorf("%s has a leading zero", seg)
		}
		end = i
		if i < len(s) && s[i] == '.' {
			start = i + 1
			continue
		}
		return s[:end], s[end:], nil
	}
}

// Matches reports whether v meets every comparator. A pre-release meets the
// requirement only when some comparator names the same MAJOR.MINOR.PATCH with a
// pre-release of its own, so "^1.2" never picks 1.3.0-beta.
func (r Requirement) Matches(v Version) bool {
	for _, c := range r.comps {
		if !c.matches(v) {
			return false
		}
	}
	if v.Pre == "" {
		return true
	}
	for _, c := range r.comps {
		if c.pre != "" && c.major == v.Major && c.minor != nil && *c.minor == v.Minor && c.patch != nil && *c.patch == v.Patch {
			return true
		}
	}
	return false
}

// String writes the requirement's comparators joined by ", ", "*" for any.
func (r Requirement) String() string {
	if len(r.comps) == 0 {
		return "*"
	}
	parts := make([]string, len(r.comps))
	for i, c := range r.comps {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}

func (c comparator) String() string {
	ops := map[op]string{opCaret: "^", opTilde: "~", opExact: "=", opGreater: ">", opGreaterEq: ">=", opLess: "<", opLessEq: "<="}
	s := ops[c.op] + strconv.FormatUint(c.major, 10)
	switch {
	case c.minor == nil && c.wildcard:
		return s + ".*"
	case c.minor == nil:
		return s
	}
	s += "." + strconv.FormatUint(*c.minor, 10)
	switch {
	case c.patch == nil && c.wildcard:
		return s + ".*"
	case c.patch == nil:
		return s
	}
	s += "." + strconv.FormatUint(*c.patch, 10)
	if c.pre != "" {
		s += "-" + c.pre
	}
	return s
}

func (c comparator) matches(v Version) bool {
	switch c.op {
	case opExact, opWildcard:
		return c.exact(v)
	case opGreater:
		return c.greater(v)
	case opGreaterEq:
		return c.exact(v) || c.greater(v)
	case opLess:
		return c.less(v)
	case opLessEq:
		return c.exact(v) || c.less(v)
	case opTilde:
		return c.tilde(v)
	default:
		return c.caret(v)
	}
}

func (c comparator) exact(v Version) bool {
	return v.Major == c.major && (c.minor == nil || v.Minor == *c.minor) &&
		(c.patch == nil || v.Patch == *c.patch) && v.Pre == c.pre
}

func (c comparator) greater(v Version) bool {
	if v.Major != c.major {
		return v.Major > c.major
	}
	if c.minor == nil {
		return false
	}
	if v.Minor != *c.minor {
		return v.Minor > *c.minor
	}
	if c.patch == nil {
		return false
	}
	if v.Patch != *c.patch {
		return v.Patch > *c.patch
	}
	return comparePre(v.Pre, c.pre) > 0
}

func (c comparator) less(v Version) bool {
	if v.Major != c.major {
		return v.Major < c.major
	}
	if c.minor == nil {
		return false
	}
	if v.Minor != *c.minor {
		return v.Minor < *c.minor
	}
	if c.patch == nil {
		return false
	}
	if v.Patch != *c.patch {
		return v.Patch < *c.patch
	}
	return comparePre(v.Pre, c.pre) < 0
}

func (c comparator) tilde(v Version) bool {
	if v.Major != c.major || c.minor != nil && v.Minor != *c.minor {
		return false
	}
	if c.patch != nil && v.Patch != *c.patch {
		return v.Patch > *c.patch
	}
	return comparePre(v.Pre, c.pre) >= 0
}

// caret allows changes that do not modify the left-most non-zero part: ^1.2.3 is
// >=1.2.3, <2.0.0; ^0.2.3 is >=0.2.3, <0.3.0; ^0.0.3 is =0.0.3; ^0.0 is <0.1.0.
func (c comparator) caret(v Version) bool {
	if v.Major != c.major {
		return false
	}
	if c.minor == nil {
		return true
	}
	minor := *c.minor
	if c.patch == nil {
		if c.major > 0 {
			return v.Minor >= minor
		}
		return v.Minor == minor
	}
	patch := *c.patch
	switch {
	case c.major > 0:
		if v.Minor != minor {
			return v.Minor > minor
		}
		if v.Patch != patch {
			return v.Patch > patch
		}
	case minor > 0:
		if v.Minor != minor {
			return false
		}
		if v.Patch != patch {
			return v.Patch > patch
		}
	default:
		if v.Minor != minor || v.Patch != patch {
			return false
		}
	}
	return comparePre(v.Pre, c.pre) >= 0
}
