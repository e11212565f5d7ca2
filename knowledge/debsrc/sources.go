package debsrc

import (
	"cmp"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/mod/module"

	"github.com/eclipse-atesor/atesor-go/internal/deb822"
)

// Source is one stanza of a Sources index, cut down to what resolution needs.
type Source struct {
	Package   string
	Version   string
	Format    string
	Directory string
	// Files are the files of the Checksums-Sha256 field.
	Files []File
	// BuildDepends holds the Build-Depends and Build-Depends-Arch fields, joined by a
	// comma (read them with [BuildDepends]).
	BuildDepends string
	// GoImportPath is the import path Debian builds a Go source under: the first valid
	// path of its Go-Import-Path field (XS-Go-Import-Path in debian/control), or "".
	GoImportPath string
	// Architecture is the Architecture field: the architectures or wildcards (any,
	// linux-any, all, s390x) Debian builds the source's binary packages for.
	Architecture []string
	// Binaries are the binary packages of the Binary field.
	Binaries []string
}

// File is one file of a source package.
type File struct {
	Name   string
	Size   int64
	SHA256 string
}

// origTarball matches the main upstream tarball (not an orig-COMPONENT tarball and not
// a signature): NAME_UPSTREAM.orig.tar.EXT.
var origTarball = regexp.MustCompile(`^[^_/]+_[^_/]+\.orig\.tar(\.[a-z0-9]+)?$`)

// Orig returns the upstream tarball of the source package, if it has one.
func (s Source) Orig() (File, bool) {
	for _, f := range s.Files {
		if origTarball.MatchString(f.Name) {
			return f, true
		}
	}
	return File{}, false
}

// PoolPath is the archive path of a file of the package.
func (s Source) PoolPath(f File) string {
	dir := s.Directory
	if dir == "" && s.Package != "" {
		prefix := s.Package[:1]
		if strings.HasPrefix(s.Package, "lib") && len(s.Package) > 3 {
			prefix = s.Package[:4]
		}
		dir = path.Join("pool/main", prefix, s.Package)
	}
	return path.Join(dir, f.Name)
}

// ParseSources reads a (decompressed) Sources index and calls fn for every stanza
// that names a package; fn returning false stops the scan. Malformed checksum lines
// are skipped; only a read error is returned.
func ParseSources(r io.Reader, fn func(Source) bool) error {
	err := deb822.Read(r, func(p deb822.Paragraph) bool {
		cur := Source{Package: p.Get("Package"), Version: p.Get("Version"), Format: p.Get("Format"), Directory: p.Get("Directory"),
			BuildDepends: joinFields(p.Get("Build-Depends"), p.Get("Build-Depends-Arch")),
			GoImportPath: GoImportPath(cmp.Or(p.Get("Go-Import-Path"), p.Get("XS-Go-Import-Path"))),
			Architecture: archFields(p.Get("Architecture")), Binaries: binaryFields(p.Get("Binary"))}
		if cur.Package == "" {
			return true
		}
		for _, l := range p.Lines("Checksums-Sha256") {
			if f, ok := parseFileLine(l); ok {
				cur.Files = append(cur.Files, f)
			}
		}
		return fn(cur)
	}, "Package", "Version", "Format", "Directory", "Checksums-Sha256", "Build-Depends", "Build-Depends-Arch", "Go-Import-Path", "XS-Go-Import-Path", "Architecture", "Binary")
	if err != nil {
		return fmt.Errorf("read the Sources index: %w", err)
	}
	return nil
}

// parseFileLine parses " SHA256 SIZE NAME" (the checksum in lower-case hex; its
// length is not checked here: a download is compared with it in full).
func parseFileLine(line string) (File, bool) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] == "" || strings.ContainsAny(f[2], "/\\") || f[2] == "." || f[2] == ".." {
		return File{}, false
	}
	for _, c := range f[0] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return File{}, false
		}
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || n < 0 {
		return File{}, false
	}
	return File{Name: f[2], Size: n, SHA256: f[0]}, true
}

// GoImportPath is the first valid import path of a Go-Import-Path field, a
// comma-separated list whose first entry is the one the package builds under
// ("go.etcd.io/etcd, github.com/coreos/etcd"); "" when it has none.
func GoImportPath(field string) string {
	for _, p := range strings.Split(field, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if module.CheckImportPath(p) != nil || strings.HasPrefix(p, "-") {
			return ""
		}
		return p
	}
	return ""
}

// joinFields joins the non-empty relation fields with a comma.
func joinFields(fields ...string) string {
	var out []string
	for _, f := range fields {
		if strings.TrimSpace(f) != "" {
			out = append(out, f)
		}
	}
	return strings.Join(out, ",")
}

// binaryFields splits a Binary field ("a, b,\n c") into package names.
func binaryFields(field string) []string {
	return strings.FieldsFunc(field, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}
