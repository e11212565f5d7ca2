package optimize

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/eclipse-atesor/atesor-go/validate"
)

// CheckMode says how a variant's workload output is compared with the baseline's.
type CheckMode int

// The check modes.
const (
	// CheckMarker compares the ATESOR-CHECK lines a harness prints.
	CheckMarker CheckMode = iota
	// CheckDigest compares the SHA-256 of a program run's standard output.
	CheckDigest
	// CheckShape compares a benchmark's report with the fields that changed between
	// baseline runs (the timings) masked: sizes, names and counts must be equal.
	CheckShape
	// CheckExit only requires the workload (the test suite) to succeed.
	CheckExit
)

// String describes the mode for the report.
func (m CheckMode) String() string {
	switch m {
	case CheckMarker:
		return "the " + validate.CheckMarker + " line equals the baseline's"
	case CheckDigest:
		return "the SHA-256 of the program's standard output equals the baseline's"
	case CheckShape:
		return "the benchmark report equals the baseline's, with the fields that vary between baseline runs (timings) masked"
	default:
		return "the workload (the package's tests) succeeds, as for the baseline"
	}
}

// mask marks a field that varied between baseline runs.
const mask = "*"

// Checker compares workload outputs with the baseline's.
type Checker struct {
	Mode CheckMode
	// want is the expected check string: marker lines, a digest, or the masked template.
	want string
	// template is the field grid of a CheckShape baseline, masked where runs differed.
	template [][]string
}

// NewChecker learns the baseline from its outputs (the stdout of each baseline run; at
// least one). For CheckShape, fields that differ between the runs are masked; when the
// report's layout itself differs between runs, the checker falls back to CheckExit.
func NewChecker(mode CheckMode, baseline []string) *Checker {
	c := &Checker{Mode: mode}
	if len(baseline) == 0 {
		return c
	}
	switch mode {
	case CheckMarker:
		c.want = markerLines(baseline[0])
	case CheckDigest:
		c.want = digest(baseline[0])
	case CheckShape:
		c.template = fields(baseline[0])
		for _, out := range baseline[1:] {
			g := fields(out)
			if !sameGrid(c.template, g) {
				// The report's layout itself varies between baseline runs: it cannot be
				// compared, only the workload's success counts.
				c.Mode, c.template = CheckExit, nil
				return c
			}
			for i := range c.template {
				for j := range c.template[i] {
					if c.template[i][j] != g[i][j] {
						c.template[i][j] = mask
					}
				}
			}
		}
		c.want = render(c.template)
	}
	return c
}

// Want is the expected check string, for the report.
func (c *Checker) Want() string { return c.want }

// Of returns the check string of one output (what the report shows for a variant).
func (c *Checker) Of(out string) string {
	switch c.Mode {
	case CheckMarker:
		return markerLines(out)
	case CheckDigest:
		return digest(out)
	case CheckShape:
		g := fields(out)
		if !sameGrid(c.template, g) {
			return render(g)
		}
		for i := range g {
			for j := range g[i] {
				if c.template[i][j] == mask {
					g[i][j] = mask
				}
			}
		}
		return render(g)
	}
	return ""
}

// Equal reports whether out checks equal to the baseline. For CheckMarker an output
// without a marker line never matches.
func (c *Checker) Equal(out string) bool {
	switch c.Mode {
	case CheckMarker:
		got := markerLines(out)
		return got != "" && got == c.want
	case CheckExit:
		return true
	}
	return c.Of(out) == c.want
}

func markerLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, validate.CheckMarker); i >= 0 {
			keep = append(keep, strings.TrimSpace(l[i:]))
		}
	}
	return strings.Join(keep, "\n")
}

func digest(out string) string {
	sum := sha256.Sum256([]byte(out))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fields splits a report into lines of whitespace-separated fields. A line redrawn with
// carriage returns (a progress display) counts as a terminal shows it: each drawing
// overwrites the line from its first column, so "\r 1#" over "=-name : 10 -> 5" reads
// " 1#ame : 10 -> 5". A progress spinner before the first word goes; empty lines go.
func fields(out string) [][]string {
	var g [][]string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(drawn(l))
		if len(f) > 0 {
			// A progress spinner drawn before the first word (|-name, /-name) turns with
			// time, not with the result.
			if t := strings.TrimLeft(f[0], `|/-\=*+.`); t != "" {
				f[0] = t
			}
			g = append(g, f)
		}
	}
	return g
}

// drawn is what a terminal shows of a line written with carriage returns.
func drawn(l string) string {
	if !strings.Contains(l, "\r") {
		return l
	}
	var screen []rune
	for _, seg := range strings.Split(l, "\r") {
		r := []rune(seg)
		if len(r) >= len(screen) {
			screen = r
			continue
		}
		copy(screen, r)
	}
	return string(screen)
}

// Figures returns what a benchmark report says about speed: the fields that varied
// between the baseline's runs (masked in the check), each with the unit that follows
// it ("130.4 MB/s"). Nil for other check modes, or when out's layout differs.
func (c *Checker) Figures(out string) []string {
	if c.Mode != CheckShape {
		return nil
	}
	g := fields(out)
	if !sameGrid(c.template, g) {
		return nil
	}
	var figs []string
	for i := range g {
		for j := range g[i] {
			if c.template[i][j] != mask {
				continue
			}
			fig := strings.TrimRight(g[i][j], ",;")
			if j+1 < len(g[i]) && c.template[i][j+1] != mask && isUnit(g[i][j+1]) {
				fig += " " + strings.TrimRight(g[i][j+1], ",;")
			}
			figs = append(figs, fig)
		}
	}
	return figs
}

// isUnit reports whether a field reads as a unit (MB/s, ms, it/s), not a number.
func isUnit(f string) bool {
	f = strings.TrimRight(f, ",;")
	if f == "" || len(f) > 8 {
		return false
	}
	for _, r := range f {
		if !unicode.IsLetter(r) && r != '/' && r != '%' {
			return false
		}
	}
	return true
}

// MedianFigures returns, position by position, the median of the runs' figures
// ([Checker.Figures]); nil when a run's figures do not line up with the others'.
func (c *Checker) MedianFigures(outs []string) []string {
	var runs [][]string
	for _, out := range outs {
		f := c.Figures(out)
		if f == nil || (len(runs) > 0 && len(f) != len(runs[0])) {
			return nil
		}
		runs = append(runs, f)
	}
	if len(runs) == 0 {
		return nil
	}
	med := make([]string, len(runs[0]))
	for j := range med {
		col := make([]string, len(runs))
		for i := range runs {
			col[i] = runs[i][j]
		}
		slices.SortFunc(col, func(a, b string) int { return cmp.Compare(leadingNumber(a), leadingNumber(b)) })
		med[j] = col[len(col)/2]
	}
	return med
}

// leadingNumber parses the number a figure starts with (0 when it has none).
func leadingNumber(s string) float64 {
	n, _, _ := strings.Cut(s, " ")
	n = strings.Trim(n, "()")
	v, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return 0
	}
	return v
}

func sameGrid(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
	}
	return true
}

func render(g [][]string) string {
	lines := make([]string, len(g))
	for i, f := range g {
		lines[i] = strings.Join(f, " ")
	}
	return strings.Join(lines, "\n")
}
