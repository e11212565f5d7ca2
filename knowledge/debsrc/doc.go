// Package debsrc resolves Debian source package names to their upstream source
// tarballs: it reads the Sources index of a suite from the configured Debian mirror
// (the Resolver's Mirror, else the host's apt configuration: [knowledge.DebianMirror]),
// finds the package's stanza, downloads the .orig tarball the stanza lists, checks it
// against the index's SHA-256 and size, and caches index and tarball.
//
// A source is written debian:NAME or debian:NAME=VERSION ([ParseSpec]). An unknown name
// yields an [*UnknownPackageError] with close matches; a package whose format has no
// upstream tarball (3.0 (native)) yields an error wrapping [ErrNoOrig].
package debsrc
