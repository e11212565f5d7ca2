package crates

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Resolution is what [Index.Resolve] found.
type Resolution struct {
	Packages []string   // apt package names to install, sorted and unique (librust-itoa-dev, librust-serde-dev, librust-rand-core+std-dev)
	Crates   []Resolved // one per resolved dependency
	Missing  []Missing  // dev dependencies that are not packaged (when dev is true they do not fail Resolve), and the lock-only ones
}

// Resolved is one dependency and the distribution package that supplies it.
// Package is "" for a crate the package vendors ([Manifest.Vendor]).
type Resolved struct{ Name, Req, Package, Version, Manifest string }

// Missing is a dependency, or a feature of one, that the distribution does not package
// at a matching version.
type Missing struct {
	Crate, Req, Kind, Manifest string
	Available                  []string // the versions the distribution has (empty: none at all)
	// Feature is set when the crate is packaged but this feature of it is not.
	Feature string
	// Git is the repository of a git dependency, which no package supplies.
	Git string
	// Target is the [target.X] table the dependency is declared in ("" for all).
	Target string
	// Vendor is the package's vendor directory when the dependency was looked for
	// there (see [Manifest.Vendor]); Available then lists the vendored versions.
	Vendor string
	// LockOnly is set for a dependency the build for the target does not use but
	// cargo's lock-file resolution still asks for: cargo resolves the lock file for
	// every platform, every feature of the workspace members and their dev
	// dependencies, so such a dependency missing from the directory source stops cargo
	// too, unless the manifest stops declaring it.
	LockOnly bool
}

// String says what is missing in one line. Names taken from the package's files
// that hold unprintable characters are quoted, so a message cannot carry terminal
// control sequences.
func (m Missing) String() string {
	name := printable(m.Crate)
	if m.Feature != "" {
		name += " (feature " + printable(m.Feature) + ")"
	}
	req := printable(m.Req)
	if req == "" {
		req = "*"
	}
	where := printable(m.Manifest)
	if m.Target != "" {
		where += " [target." + printable(m.Target) + "]"
	}
	s := fmt.Sprintf("%s %s (%s dependency in %s)", name, req, printable(m.Kind), where)
	switch {
	case m.Vendor != "" && len(m.Available) == 0:
		s += ": it is not among the crates vendored in " + printable(m.Vendor)
	case m.Vendor != "":
		s += ": the crates vendored in " + printable(m.Vendor) + " have only " + strings.Join(m.Available, ", ")
	case m.Git != "":
		s += ": comes from git (" + printable(m.Git) + "), which no distribution package supplies"
	case m.Feature != "":
		s += fmt.Sprintf(": the distribution packages %s %s without this feature", printable(m.Crate), strings.Join(m.Available, ", "))
	case len(m.Available) == 0:
		s += ": the distribution does not package it at all"
	default:
		s += ": the distribution has only " + strings.Join(m.Available, ", ") + m.hint()
	}
	if m.LockOnly {
		s += " (not built for this target, but cargo's lock-file resolution asks for it)"
	}
	return s
}

// hint says how far the distribution's versions are from the requirement: one of the
// same semver series (the requirement only asks for a newer patch or minor, or pins
// another one) is a matter of relaxing the requirement; only other series mean code
// written for another API.
func (m Missing) hint() string {
	req, err := ParseRequirement(m.Req)
	if err != nil || len(req.comps) == 0 {
		return ""
	}
	c := req.comps[0]
	for _, a := range m.Available {
		v, err := ParseVersion(a)
		if err != nil || v.Major != c.major {
			continue
		}
		if c.major > 0 || c.minor == nil || v.Minor == *c.minor {
			return fmt.Sprintf(" (%s is of the same series: the requirement relaxed to %q accepts it)", a, a)
		}
	}
	return " (another series: moving to it may need changes to the code)"
}

// printable returns s, or s quoted when it holds a character that is not printable.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// MissingError is Resolve's error for a normal or build dependency the distribution does not
// package at a matching version; its message names each crate, the requirement and the versions
// the distribution has, and says what the porter can do. The pipeline classes it "dependency".
type MissingError struct{ Missing []Missing }

// Error lists the missing dependencies and what the porter can do.
func (e *MissingError) Error() string {
	var b strings.Builder
	if len(e.Missing) == 1 {
		b.WriteString("crates: the distribution does not package a dependency this package needs: ")
		b.WriteString(e.Missing[0].String())
	} else {
		fmt.Fprintf(&b, "crates: the distribution does not package %d dependencies this package needs:", len(e.Missing))
		for _, m := range e.Missing {
			b.WriteString("\n  ")
			b.WriteString(m.String())
		}
	}
	b.WriteString("\nrelax the requirement to a version the distribution has, vendor the crate into the source (cargo vendor), or run with a crates registry reachable")
	return b.String()
}

// Resolve maps the manifest's dependencies for target to distribution packages: normal and
// build dependencies always, dev dependencies when dev is true, optional ones only when a
// feature that is on turns them on, the +feature packages for the features asked for.
//
// For each dependency it picks the highest packaged version that meets the
// requirement (a pre-release only when the requirement names one), the package that
// installs it, and the packages of the features asked for (with "default" unless
// default-features = false, when the distribution has such a feature). Because cargo
// resolves its lock file for every platform, every feature of the members and their
// dev dependencies, Packages also holds the packages of the dependencies the build
// does not use (other targets, optional ones that are off, dev ones when dev is false)
// where the distribution has them, and Missing lists those it has not, marked
// LockOnly. A normal or build dependency (or a feature of one) the build uses and the
// distribution lacks, and any git dependency the build uses, make a *MissingError,
// returned with the rest of the resolution.
//
// Resolve ignores a vendor directory the package configures ([Manifest.Vendor]): a
// caller that sets the package's own cargo configuration aside uses the
// distribution's crates; one that keeps it asks [Manifest.ResolveVendored].
func (ix *Index) Resolve(m *Manifest, t Target, dev bool) (*Resolution, error) {
	return ix.resolve(m, t, dev, false)
}

// ResolveVendored is Resolve against the crates the package vendors inside its tree
// (cargo reads those while the package's own configuration is in place), with the
// same rules: Packages stays empty, Crates have no Package, and a crate the vendor
// directory lacks, or has only at other versions, is what is missing.
func (m *Manifest) ResolveVendored(t Target, dev bool) (*Resolution, error) {
	if m.vendored == nil {
		return nil, fmt.Errorf("crates: the package vendors no crates inside its tree (vendor directory %q)", m.Vendor)
	}
	return (*Index)(nil).resolve(m, t, dev, true)
}

func (ix *Index) resolve(m *Manifest, t Target, dev, vendored bool) (*Resolution, error) {
	res := &Resolution{}
	pkgs := map[string]bool{}
	var fatal []Missing
	miss := func(x Missing, used bool) {
		x.LockOnly = !used
		if used && x.Kind != KindDev {
			fatal = append(fatal, x)
		} else {
			res.Missing = append(res.Missing, x)
		}
	}
	for _, d := range m.Dependencies {
		applies := true
		if d.Target != "" {
			ok, err := t.Matches(d.Target)
			if err != nil {
				return nil, fmt.Errorf("crates: %s: %w", d.Manifest, err)
			}
			applies = ok
		}
		id := depID(d)
		build, lock := m.build[id], m.lock[id]
		on := !d.Optional || build.on
		used := applies && on && m.compiles(d.Manifest) && (d.Kind != KindDev || dev)
		if !used && !(!d.Optional || lock.on) {
			continue // an optional dependency no feature of any member turns on
		}
		req, err := ParseRequirement(d.Req)
		if err != nil {
			return nil, fmt.Errorf("crates: %s: dependency %s: %w", d.Manifest, d.Name, err)
		}
		if vendored {
			m.fromVendor(res, d.Name, d.Req, req, d.Kind, d.Manifest, d.Target, used, miss)
			continue
		}
		base := Missing{Crate: d.Name, Req: d.Req, Kind: d.Kind, Manifest: d.Manifest, Target: d.Target, Available: ix.Versions(d.Name)}
		e := ix.pick(d.Name, req)
		if e == nil {
			miss(base, used)
			continue
		}
		pkgs[e.pkg] = true
		if used {
			res.Crates = append(res.Crates, Resolved{Name: d.Name, Req: d.Req, Package: e.pkg, Version: e.version.String(), Manifest: d.Manifest})
		}
		// The features the build asks for must be there; those only the lock file
		// asks for are installed when packaged.
		asked := func(s depState) []string {
			fs := append(slices.Clone(d.Features), s.extra...)
			return uniqueSorted(fs)
		}
		need := map[string]bool{}
		if used {
			for _, f := range asked(build) {
				need[f] = true
			}
		}
		all := append(asked(build), asked(lock)...)
		if d.DefaultFeatures {
			if p, ok := e.features["default"]; ok {
				pkgs[p] = true
			}
		}
		for _, f := range uniqueSorted(all) {
			if p, ok := e.features[Normalize(f)]; ok {
				pkgs[p] = true
				continue
			}
			x := base
			x.Feature, x.Available = f, []string{e.version.String()}
			miss(x, need[f])
		}
	}
	for _, g := range m.Git {
		applies := true
		if g.Target != "" {
			ok, err := t.Matches(g.Target)
			if err != nil {
				return nil, fmt.Errorf("crates: %s: %w", g.Manifest, err)
			}
			applies = ok
		}
		on := !g.Optional || m.build[depID(Dependency{Manifest: g.Manifest, Kind: g.Kind, Target: g.Target, Name: cmpOr(g.key, g.Name)})].on
		used := applies && on && m.compiles(g.Manifest) && (g.Kind != KindDev || dev)
		if vendored {
			// cargo vendor copies git dependencies as well.
			m.fromVendor(res, g.Name, "", Requirement{}, g.Kind, g.Manifest, g.Target, used, miss)
			continue
		}
		miss(Missing{Crate: g.Name, Kind: g.Kind, Manifest: g.Manifest, Target: g.Target, Git: g.URL}, used)
	}
	for p := range pkgs {
		res.Packages = append(res.Packages, p)
	}
	sort.Strings(res.Packages)
	if len(fatal) > 0 {
		return res, &MissingError{Missing: fatal}
	}
	return res, nil
}

// fromVendor resolves one dependency against the package's vendored crates, which
// carry all their features: a match is a Resolved without a package.
func (m *Manifest) fromVendor(res *Resolution, name, reqText string, req Requirement, kind, manifest, target string, used bool, miss func(Missing, bool)) {
	vs := m.vendored[Normalize(name)]
	for _, v := range vs {
		if req.Matches(v) {
			if used {
				res.Crates = append(res.Crates, Resolved{Name: name, Req: reqText, Version: v.String(), Manifest: manifest})
			}
			return
		}
	}
	x := Missing{Crate: name, Req: reqText, Kind: kind, Manifest: manifest, Target: target, Vendor: m.Vendor}
	for _, v := range vs {
		x.Available = append(x.Available, v.String())
	}
	miss(x, used)
}

// compiles reports whether the build compiles the crate of the manifest file.
func (m *Manifest) compiles(file string) bool {
	return m.built == nil || m.built[file]
}

// pick returns the highest packaged version of crate that meets req.
func (ix *Index) pick(crate string, req Requirement) *packaged {
	for _, e := range ix.sorted(crate) {
		if req.Matches(e.version) {
			return e
		}
	}
	return nil
}
