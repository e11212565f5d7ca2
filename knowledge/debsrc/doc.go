// Package debsrc resolves Debian source package names to their upstream source
// tarballs: it reads the Sources index of a suite from the configured Debian mirror
// (the Resolver's Mirror, else the host's apt configuration: [knowledge.DebianMirror]),
// finds the package's stanza, downloads the .orig tarball the stanza lists, checks it
// against the index's SHA-256 and size, and caches index and tarball.
//
// A source is written debian:NAME or debian:NAME=VERSION ([ParseSpec]). An unknown name
// yields an [*UnknownPackageError] with close matches; a package whose format has no
// upstream tarball (3.0 (native)) yields an error wrapping [ErrNoOrig].
//
// The same verified archive gives a source package's packaging: [Resolver.Rules] reads
// debian/rules out of its debian.tar (bounded, in memory, never run), and
// [ConfigureSwitches] lists the configure, CMake and meson switches it passes, which the
// export check names when Debian's build exports what a port's does not.
package debsrc
