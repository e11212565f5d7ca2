// Package debarchive is the one client of a Debian archive that Atesor's host side
// uses: a mirror and a suite, the suite's signed InRelease (or Release with its detached
// Release.gpg) verified with the Debian archive keyring, and the index files (Sources,
// Packages, Contents) and pool files (upstream tarballs, .debs) it vouches for, each
// checked against the SHA-256 and size that the signed data lists.
//
// The chain is the one apt follows: the keyring vouches for InRelease, InRelease for the
// indexes, an index for the pool files. A mirror, a proxy or whoever answers on the
// mirror's address can then decide nothing about what is ported or what a port is
// compared with; all it can do is fail to serve. A missing or bad signature, a suite
// other than the one asked for, an expired Valid-Until, an InRelease older than one
// verified before, and a file whose hash or size differs are errors that name the file,
// and none of that content is cached: a download is checked before it is renamed into
// the cache, and a cached copy is checked again against the current InRelease on every
// use.
//
// Signatures are checked by the host's gpgv (the verifier apt itself has used for
// years) against /usr/share/keyrings/debian-archive-keyring.gpg from the
// debian-archive-keyring package. A Go OpenPGP implementation would spare the process
// start, but its acceptance rules (expired and revoked keys, weak digests, several
// signatures) would be a second opinion next to apt's; gpgv's status output gives apt's
// rules directly.
//
// The Alpine profile is not covered: the Alpine minirootfs is checked only against the
// .sha256 file published next to it on the same mirror, which detects a broken download
// but not a mirror that serves both; apk inside the sandbox checks its own APKINDEX with
// the keys that minirootfs carries. Alpine downloads on the host are unverified.
package debarchive
