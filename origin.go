package atesor

// DistroSource records how a distribution package name (debian:NAME[=VERSION]) was
// resolved to an upstream source tarball: which index entry, which file and the checksum
// the index gives for it. It holds no mirror address, only archive-relative paths, so a
// report means the same on every machine.
type DistroSource struct {
	// Distro is the distribution, "debian".
	Distro string `json:"distro"`
	// Package and Version are the source package and its full version in the index.
	Package string `json:"package"`
	Version string `json:"version"`
	// Suite and Component name the Sources index that was read (trixie, main).
	Suite     string `json:"suite"`
	Component string `json:"component"`
	// Path is the tarball's path in the archive (pool/main/z/zlib/zlib_1.3.orig.tar.gz).
	Path string `json:"path"`
	// SHA256 and Size are the tarball's checksum and size as the index lists them; the
	// downloaded file was checked against both.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// GoImportPath is the import path the distribution builds a Go source under (its
	// Go-Import-Path field); a port of Go packages with no go.mod takes it as the
	// module path.
	GoImportPath string `json:"go_import_path,omitempty"`
	// Architectures is the source's Architecture field: the architectures or wildcards
	// (any, linux-any, all, s390x) the distribution builds its binary packages for.
	Architectures []string `json:"architectures,omitempty"`
}
