package optimize

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

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
// carriage returns (a progress display) counts as its last drawing, without the spinner
// characters before its first word; empty lines go.
func fields(out string) [][]string {
	var g [][]string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); i >= 0 {
			l = l[i+1:]
		}
		f := strings.Fields(l)
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
