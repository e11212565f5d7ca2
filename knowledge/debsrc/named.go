package debsrc

import (
	"path"
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// Finding the Debian source package a port's source corresponds to: the run's origin
// (a debian:NAME source), a Debian .orig tarball by its file name, or an upstream
// release NAME-VERSION by its name, which Debian's source package of that name and
// upstream version matches. The export check compares with that package's build, and
// the scripted repairs configure the way it does.

var (
	// origTarballName is a Debian source tarball's name: <source>_<version>.orig.tar.<ext>.
	origTarballName = regexp.MustCompile(`^([a-z0-9][a-z0-9+.-]+)_(?:[0-9]+:)?([0-9][^_/]*)\.orig\.tar\.[a-z0-9]+$`)
	// upstreamTarball is an upstream release's name: NAME-VERSION, as a tarball
	// (.tar.EXT, .tgz) or a directory, the version starting with a digit.
	upstreamTarball = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9+.]*(?:-[A-Za-z][A-Za-z0-9+.]*)*)-([0-9][A-Za-z0-9.+~]*)$`)
	tarballExt      = regexp.MustCompile(`\.(?:tar(?:\.[a-z0-9]+)?|tgz)$`)
)

// OrigNamed names the Debian source package and upstream version of a source that is
// a Debian .orig tarball (a path or URL), or "", "".
func OrigNamed(source string) (name, version string) {
	m := origTarballName.FindStringSubmatch(path.Base(strings.TrimRight(source, "/")))
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

// UpstreamNamed names the Debian source package and upstream version an upstream
// tarball or directory would have (zlib-1.3.1.tar.gz: zlib, 1.3.1), or "", "".
// Debian names a source package in lower case; one named otherwise simply is not found.
func UpstreamNamed(source string) (name, version string) {
	m := upstreamTarball.FindStringSubmatch(tarballExt.ReplaceAllString(path.Base(strings.TrimRight(source, "/")), ""))
	if m == nil {
		return "", ""
	}
	return strings.ToLower(m[1]), m[2]
}

// Counterpart is the Debian source package a port's source corresponds to.
type Counterpart struct {
	// Package and Version are the source package and the upstream version to look up.
	Package, Version string
	// Suite is the origin's suite; empty: the caller's default.
	Suite string
	// ByName is true when only the source's name and version say so (an upstream
	// tarball): the archive may have no such package.
	ByName bool
}

// CounterpartOf finds the Debian source package of a port's source: the origin when
// it is a Debian package (its upstream version), else a Debian .orig tarball's name,
// else an upstream release's NAME-VERSION. ok is false when the source names none.
func CounterpartOf(source string, origin *atesor.DistroSource) (c Counterpart, ok bool) {
	if o := origin; o != nil && o.Distro == "debian" && o.Package != "" {
		return Counterpart{Package: o.Package, Version: knowledge.UpstreamVersion(o.Version), Suite: o.Suite}, true
	}
	if n, v := OrigNamed(source); n != "" {
		return Counterpart{Package: n, Version: v}, true
	}
	if n, v := UpstreamNamed(source); n != "" {
		return Counterpart{Package: n, Version: v, ByName: true}, true
	}
	return Counterpart{}, false
}
