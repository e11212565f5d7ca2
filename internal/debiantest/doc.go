// Package debiantest fetches files from Debian's archive for end-to-end tests: upstream
// source tarballs checked against the SHA-256 of trixie's Sources index, and the package
// index of an architecture (with the names it lists and provides). The mirror comes
// from [knowledge.DebianMirror] (ATESOR_DEBIAN_MIRROR, else the host's apt
// configuration); downloads are cached under the user cache directory so repeated runs
// fetch nothing.
//
// It imports only the standard library, knowledge and knowledge/debsrc (whose Sources
// parser it uses), so the end-to-end tests of every
// package from knowledge up can use it. To unpack a tarball, use sandbox.Extract from an
// external test package.
package debiantest
