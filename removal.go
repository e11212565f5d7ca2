package atesor

import (
	"fmt"
	"strings"
)

// RemovalKind says how a fix took code away from the package.
type RemovalKind string

// The kinds of removal the tracker records.
const (
	// RemovalDeleted is a source or build file of the original tree that no longer exists.
	RemovalDeleted RemovalKind = "deleted"
	// RemovalEmptied is a source file left with no code lines.
	RemovalEmptied RemovalKind = "emptied"
	// RemovalCut is a source file that lost most of its code lines.
	RemovalCut RemovalKind = "cut"
	// RemovalDropped is a source file a build file's source list no longer names.
	RemovalDropped RemovalKind = "dropped_from_build"
)

// Removal is one piece of the original package a fix took away, measured against the
// original tree.
type Removal struct {
	// Fix is the number (FixAttempt.Attempt) of the fix after which it was first seen.
	Fix  int         `json:"fix"`
	Kind RemovalKind `json:"kind"`
	// File is the repository path of the file removed, emptied, cut or dropped.
	File string `json:"file"`
	// Lines is the file's number of non-blank lines in the original tree; LinesLeft is
	// what is left now.
	Lines     int `json:"lines,omitempty"`
	LinesLeft int `json:"lines_left,omitempty"`
	// BuildFile is the build file whose source list dropped File.
	BuildFile string `json:"build_file,omitempty"`
}

// String says what was removed in the words of the report and the recipe:
// "removed: src/simd.c (212 lines)".
func (r Removal) String() string {
	switch r.Kind {
	case RemovalDeleted:
		return fmt.Sprintf("removed: %s (%d lines)", r.File, r.Lines)
	case RemovalEmptied:
		return fmt.Sprintf("emptied: %s (%d lines)", r.File, r.Lines)
	case RemovalCut:
		return fmt.Sprintf("cut: %s (%d of %d lines left)", r.File, r.LinesLeft, r.Lines)
	case RemovalDropped:
		return fmt.Sprintf("dropped from the build: %s (no longer listed in %s)", r.File, r.BuildFile)
	}
	return fmt.Sprintf("%s: %s", r.Kind, r.File)
}

// SourceFile is one code or build file of the original tree, as the removal tracker
// remembers it: its non-blank line count and, for a build file, the source files it
// names.
type SourceFile struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
	// Sources are the source file names a build file mentions.
	Sources []string `json:"sources,omitempty"`
}

// ExportCheck is the export completeness of a port's primary libraries: the global
// functions they define against what the package promises (the functions its public
// headers declare and, for a source from Debian's archive, the symbols the
// distribution's own build exports).
type ExportCheck struct {
	// Libraries are the libraries whose defined symbols were read (repository paths).
	Libraries []string `json:"libraries"`
	// Defined is the number of distinct global symbols they define.
	Defined int `json:"defined"`
	// HeadersFrom says which headers were read: "installed" (install staging) or
	// "source" (the public headers next to the library's sources).
	HeadersFrom string `json:"headers_from,omitempty"`
	// Headers are the public headers whose declarations GCC listed.
	Headers []string `json:"headers,omitempty"`
	// Declared is the number of functions the headers declare.
	Declared int `json:"declared"`
	// MissingDeclared are functions the headers declare that no library defines.
	MissingDeclared []string `json:"missing_declared,omitempty"`
	// Distribution names the distribution packages compared ("zlib1g 1:1.3-1 riscv64").
	Distribution string `json:"distribution,omitempty"`
	// DistributionSymbols is the number of symbols the distribution's build exports for
	// the libraries built here; Excused counts the architecture-specific ones left out.
	DistributionSymbols int `json:"distribution_symbols,omitempty"`
	Excused             int `json:"excused,omitempty"`
	// MissingDistribution are symbols the distribution's build exports that no library
	// here defines.
	MissingDistribution []string `json:"missing_distribution,omitempty"`
	// DistributionSwitches are the configure, CMake or meson switches the distribution's
	// packaging passes (read from its debian/rules), when some of its symbols are missing
	// here and the packaging could be read.
	DistributionSwitches []string `json:"distribution_switches,omitempty"`
	// Explained says, for every missing function, what the tree shows about it: where it
	// is defined or declared and why this build lacks it. Only a [FindingHollowed]
	// function fails verification.
	Explained []MissingExport `json:"explained,omitempty"`
	// Notes say what could not be checked and why.
	Notes []string `json:"notes,omitempty"`
}

// ExportFinding is what a missing function's place in the tree says about it.
type ExportFinding string

// The findings on a missing function.
const (
	// FindingHollowed: its definition was in a file a fix deleted, emptied, cut, dropped
	// from the build or otherwise changed, or it is defined nowhere after fixes removed
	// code. The port removed what it could not port: verification fails.
	FindingHollowed ExportFinding = "hollowed"
	// FindingOtherArch: it is defined only in another architecture's code (assembly, or
	// sources selected for x86, ARM, ...).
	FindingOtherArch ExportFinding = "other_architecture"
	// FindingOptionOff: its declaration or definition sits behind a configure, CMake or
	// meson option (or a feature macro) that is off in this build.
	FindingOptionOff ExportFinding = "option_off"
	// FindingDistributionOnly: the distribution's build exports it, and nothing in the
	// tree says why this one does not; the distribution configures differently.
	FindingDistributionOnly ExportFinding = "distribution_only"
	// FindingUnexplained: nothing found explains the difference.
	FindingUnexplained ExportFinding = "unexplained"
)

// MissingExport is one function the port's libraries lack, with its explanation.
type MissingExport struct {
	Name    string        `json:"name"`
	Finding ExportFinding `json:"finding"`
	// Reason says in words what was found, naming files, options and fixes.
	Reason string `json:"reason"`
	// Where are the repository files that define or declare it.
	Where []string `json:"where,omitempty"`
	// Switches are, for a [FindingDistributionOnly] function, the distribution's
	// configure switches that plausibly enable it (evidence, not a verdict).
	Switches []string `json:"switches,omitempty"`
}

// Hollowed lists the missing functions whose absence a fix is responsible for.
func (e *ExportCheck) Hollowed() []string {
	if e == nil {
		return nil
	}
	var out []string
	for _, m := range e.Explained {
		if m.Finding == FindingHollowed {
			out = append(out, m.Name)
		}
	}
	return out
}

// Checked reports whether anything was compared: declarations or distribution symbols.
func (e *ExportCheck) Checked() bool {
	return e != nil && len(e.Libraries) > 0 && (e.Declared > 0 || e.DistributionSymbols > 0)
}

// Missing lists every missing function, header declarations first, without duplicates.
func (e *ExportCheck) Missing() []string {
	if e == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range [][]string{e.MissingDeclared, e.MissingDistribution} {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// Complete reports whether the check compared something and found nothing missing.
func (e *ExportCheck) Complete() bool {
	return e.Checked() && len(e.Missing()) == 0
}

// Summary says in one line what the check found.
func (e *ExportCheck) Summary() string {
	if e == nil {
		return "not checked"
	}
	if !e.Checked() {
		why := "nothing to compare"
		if len(e.Notes) > 0 {
			why = strings.Join(e.Notes, "; ")
		}
		return "not checked: " + why
	}
	var parts []string
	if e.Declared > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d functions declared in %d public headers defined",
			e.Declared-len(e.MissingDeclared), e.Declared, len(e.Headers)))
	}
	if e.DistributionSymbols > 0 {
		p := fmt.Sprintf("%d of %d symbols of %s exported", e.DistributionSymbols-len(e.MissingDistribution), e.DistributionSymbols, e.Distribution)
		if e.Excused > 0 {
			p += fmt.Sprintf(" (%d architecture-specific excused)", e.Excused)
		}
		parts = append(parts, p)
	}
	s := strings.Join(parts, "; ")
	if m := e.Missing(); len(m) > 0 {
		names := m
		more := ""
		if len(names) > 20 {
			names, more = names[:20], fmt.Sprintf(", and %d more", len(m)-20)
		}
		s += "; missing: " + strings.Join(names, ", ") + more
		if len(e.Explained) > 0 {
			s += " (" + e.findingCounts() + ")"
		}
	}
	return s
}

// findingCounts counts the explained missing functions by finding, in the order of
// the findings' severity: "1 hollowed, 2 other_architecture".
func (e *ExportCheck) findingCounts() string {
	n := map[ExportFinding]int{}
	for _, m := range e.Explained {
		n[m.Finding]++
	}
	var parts []string
	for _, f := range []ExportFinding{FindingHollowed, FindingOtherArch, FindingOptionOff, FindingDistributionOnly, FindingUnexplained} {
		if n[f] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[f], f))
		}
	}
	return strings.Join(parts, ", ")
}
