package crates

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/deb822"
)

// Index is the distribution's packaged crates, read from a Packages index's librust-*-dev
// entries and their Provides (librust-itoa-1-dev, librust-itoa-1+std-dev, ... with versions).
type Index struct {
	crates map[string]map[string]*packaged // normalized crate name -> version -> entry
	rustc  string                          // the rustc package's version as a Rust version
}

// packaged is one crate version the distribution has.
type packaged struct {
	version Version
	// pkg is the real package that installs the crate's source; features maps each
	// provided feature (normalized) to the real package that carries it (the same
	// package when the feature needs nothing more, a librust-NAME+FEATURE-dev one when
	// it pulls in more dependencies).
	pkg      string
	features map[string]string
}

// fullName matches the body of a librust name that carries a crate's whole version,
// librust-<crate>-<MAJOR.MINOR.PATCH>[+<feature>]-dev. Crate names have no dots, so
// the version is found unambiguously even for crates whose names end in digits
// (librust-md-5-0.10.6-dev is md-5 0.10.6).
var fullName = regexp.MustCompile(`^([a-z0-9][a-z0-9-]*)-([0-9]+\.[0-9]+\.[0-9]+)$`)

// ParseIndex reads a Packages index (deb822 text whose hash the caller verified).
//
// Debian's packaging of crates (debcargo) names the package of a crate
// librust-<crate>-dev, or librust-<crate>-<semver series>-dev when several series
// are packaged, and makes it provide librust-<crate>-<series>-dev for every prefix of
// the version (1, 1.0, 1.0.14), each with +<feature> variants for the features that
// need no other package; a feature that needs more is a package of its own,
// librust-<crate>+<feature>-dev. Crate and feature names have "_" written as "-". The
// names with the whole version say exactly which crate version a package installs;
// the entry's Version field does not always (an upstream version repackaged as
// 0.4.0~really0.2.4 installs crate version 0.2.4).
func ParseIndex(r io.Reader) (*Index, error) {
	ix := &Index{crates: map[string]map[string]*packaged{}}
	err := deb822.Read(r, func(p deb822.Paragraph) bool {
		pkg := p.Get("Package")
		if pkg == "rustc" {
			ix.rustc = CrateVersion(p.Get("Version"))
			return true
		}
		if !strings.HasPrefix(pkg, "librust-") || !strings.HasSuffix(pkg, "-dev") {
			return true
		}
		names := []string{pkg}
		for _, item := range strings.Split(p.Get("Provides"), ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(item), " ")
			name, _, _ = strings.Cut(name, "(")
			if name != "" {
				names = append(names, name)
			}
		}
		seen := map[string]Version{}
		var partial []string
		for _, name := range names {
			if crate, v, ok := ix.add(pkg, name); ok {
				seen[crate] = v
			} else {
				partial = append(partial, name)
			}
		}
		if len(seen) == 0 {
			if crate, v, ok := ix.addUnversioned(pkg, p.Get("Version")); ok {
				seen[crate] = v
			}
		}
		for _, name := range partial {
			ix.addPartial(pkg, name, seen)
		}
		return true
	}, "Package", "Provides", "Version")
	if err != nil {
		return nil, fmt.Errorf("crates: read the Packages index: %w", err)
	}
	return ix, nil
}

// add records the crate version (and feature) that name stands for, provided by pkg.
// It returns the crate and version when name carried a whole version.
func (ix *Index) add(pkg, name string) (string, Version, bool) {
	body, feature, ok := nameBody(name)
	if !ok {
		return "", Version{}, false
	}
	m := fullName.FindStringSubmatch(body)
	if m == nil {
		return "", Version{}, false
	}
	v, err := ParseVersion(m[2])
	if err != nil {
		return "", Version{}, false
	}
	e := ix.entry(m[1], v)
	if feature == "" {
		// Several packages may claim one version; the choice is kept stable.
		if e.pkg == "" || pkg < e.pkg {
			e.pkg = pkg
		}
	} else if old, ok := e.features[feature]; !ok || pkg < old {
		e.features[feature] = pkg
	}
	return m[1], v, true
}

// nameBody splits librust-BODY[+FEATURE]-dev.
func nameBody(name string) (body, feature string, ok bool) {
	body, ok = strings.CutPrefix(name, "librust-")
	if !ok {
		return "", "", false
	}
	body, ok = strings.CutSuffix(body, "-dev")
	if !ok {
		return "", "", false
	}
	body, feature, _ = strings.Cut(body, "+")
	return body, feature, body != ""
}

// addPartial records the feature of a name without a whole version
// (librust-web-sys-0.3+audiobuffer-dev, whose package provides no name with 0.3.64)
// for the crate version the same entry was found to install (seen), when the name's
// crate and version prefix agree with it.
func (ix *Index) addPartial(pkg, name string, seen map[string]Version) {
	body, feature, ok := nameBody(name)
	if !ok || feature == "" {
		return
	}
	v, ok := seen[body]
	if !ok {
		i := strings.LastIndexByte(body, '-')
		if i <= 0 {
			return
		}
		crate, series := body[:i], body[i+1:]
		if v, ok = seen[crate]; !ok || (v.String() != series && !strings.HasPrefix(v.String(), series+".")) {
			return
		}
		body = crate
	}
	e := ix.entry(body, v)
	if _, ok := e.features[feature]; !ok {
		e.features[feature] = pkg
	}
}

// addUnversioned records a librust package whose names carry no whole version (a few
// of Debian's: librust-mdbook-dev provides nothing, librust-web-sys-dev only its 0.3
// series), taking the version from its Version field.
func (ix *Index) addUnversioned(pkg, debVersion string) (string, Version, bool) {
	body, feature, ok := nameBody(pkg)
	if !ok || feature != "" {
		return "", Version{}, false
	}
	v, err := ParseVersion(CrateVersion(debVersion))
	if err != nil {
		return "", Version{}, false
	}
	// A package of one series is named after it (librust-syn-1-dev): the crate is the
	// name without a suffix the version starts with.
	if i := strings.LastIndexByte(body, '-'); i > 0 {
		series := body[i+1:]
		if v.String() == series || strings.HasPrefix(v.String(), series+".") {
			body = body[:i]
		}
	}
	if e := ix.entry(body, v); e.pkg == "" {
		e.pkg = pkg
	}
	return body, v, true
}

func (ix *Index) entry(crate string, v Version) *packaged {
	byVersion := ix.crates[crate]
	if byVersion == nil {
		byVersion = map[string]*packaged{}
		ix.crates[crate] = byVersion
	}
	e := byVersion[v.String()]
	if e == nil {
		e = &packaged{version: v, features: map[string]string{}}
		byVersion[v.String()] = e
	}
	return e
}

// Normalize writes a crate or feature name as Debian's package names do: lower case,
// "_" as "-" (crates.io treats the two as the same).
func Normalize(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "-")
}

// Versions lists the distribution's versions of a crate, highest first.
func (ix *Index) Versions(crate string) []string {
	es := ix.sorted(crate)
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.version.String()
	}
	return out
}

// Rustc returns the version of the distribution's rustc (1.85.1 for the package
// version 1.85.1+dfsg1-1), "" when the index has no rustc package.
func (ix *Index) Rustc() string { return ix.rustc }

// RustVersionMet reports whether a compiler of version have is at least the
// rust-version need ("1.70", "1.74.1"), as cargo compares them.
func RustVersionMet(need, have string) (bool, error) {
	n, err := ParseVersion(fullVersion(need))
	if err != nil {
		return false, fmt.Errorf("crates: rust-version %q: %w", need, err)
	}
	h, err := ParseVersion(fullVersion(have))
	if err != nil {
		return false, fmt.Errorf("crates: rustc version %q: %w", have, err)
	}
	return h.Compare(n) >= 0, nil
}

// Len returns the number of crates the index has.
func (ix *Index) Len() int { return len(ix.crates) }

func (ix *Index) sorted(crate string) []*packaged {
	var es []*packaged
	for _, e := range ix.crates[Normalize(crate)] {
		if e.pkg != "" { // a feature package without its crate's package is of no use
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].version.Compare(es[j].version) > 0 })
	return es
}

// CrateVersion maps a Debian version of a crate's package to the crate version:
// without the epoch and the Debian revision, and without the suffixes Debian adds to
// the upstream version ("+dfsg", "~deb13u1"): 1.0.14-1 is 1.0.14, 0.8.5+dfsg-2 is
// 0.8.5, 2:1.2.3-1+b1 is 1.2.3.
func CrateVersion(debian string) string {
	v := debian
	if i := strings.IndexByte(v, ':'); i >= 0 {
		v = v[i+1:]
	}
	if i := strings.LastIndexByte(v, '-'); i >= 0 {
		v = v[:i]
	}
	if i := strings.IndexAny(v, "+~"); i >= 0 {
		v = v[:i]
	}
	return v
}
