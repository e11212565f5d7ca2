// Package debiantest fetches files from Debian's archive for end-to-end tests, through
// the verified client of internal/debarchive: upstream source tarballs checked against
// trixie's Sources index, and the package index of an architecture (with the names it
// lists and provides), both checked against the suite's InRelease and the Debian archive
// keyring. The mirror is ATESOR_DEBIAN_MIRROR, else the host's apt configuration ([Mirror];
// [knowledge.DebianMirror]); downloads are cached under the user cache directory so
// repeated runs fetch nothing.
//
// For unit tests it also serves signed archives of its own ([NewArchive]): an httptest
// mirror whose InRelease is signed by a throwaway key made with gpg at test time
// ([NewSigner]; the test is skipped when gpg is not installed), so the verification
// path runs with a genuine signature and a test can tamper with what the mirror serves.
//
// It imports only the standard library, internal/debarchive, knowledge and
// knowledge/debsrc (whose Sources parser it uses), so the tests of every package from
// knowledge up can use it. To unpack a tarball, use internal/archive's Extract.
package debiantest
