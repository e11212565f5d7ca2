package debsrc

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/decompress"
)

// The packaging of a source package (format 3.0 (quilt): NAME_VERSION.debian.tar.EXT)
// is hostile input like any archive: it is fetched through the verified client (its
// SHA-256 and size from the verified Sources index), cached beside the other pool files,
// and read in memory with bounds on its size, its entries and the one member read. No
// member is written anywhere and nothing in it is run.

const (
	maxPackaging        = 64 << 20 // the packaging tarball's size
	maxPackagingEntries = 20000    // entries looked at before debian/rules
)

// ErrNoPackaging is wrapped by the error for a source package whose packaging carries
// no readable debian/rules (format 1.0's diff, a native package's tarball).
var ErrNoPackaging = errors.New("no debian.tar packaging with debian/rules")

// debianTarball matches a 3.0 (quilt) source package's packaging tarball.
var debianTarball = regexp.MustCompile(`^[^_/]+_[^_/]+\.debian\.tar(\.[a-z0-9]+)?$`)

// Packaging returns the packaging tarball of the source package, if it has one.
func (s Source) Packaging() (File, bool) {
	for _, f := range s.Files {
		if debianTarball.MatchString(f.Name) {
			return f, true
		}
	}
	return File{}, false
}

// Rules returns the debian/rules text of the source package name at version (the full
// Debian version or its upstream part; empty: the index's newest), from its packaging
// tarball, downloaded once and checked against the verified Sources index.
func (r *Resolver) Rules(ctx context.Context, name, version string) (string, error) {
	src, err := r.Lookup(ctx, name, version)
	if err != nil {
		return "", err
	}
	return r.rulesOf(ctx, src)
}

// rulesOf reads debian/rules from the packaging tarball of src, a stanza of the index.
func (r *Resolver) rulesOf(ctx context.Context, src *Source) (string, error) {
	f, ok := src.Packaging()
	if !ok {
		return "", fmt.Errorf("debsrc: %s %s (format %s): %w", src.Package, src.Version, src.Format, ErrNoPackaging)
	}
	if f.Size > maxPackaging {
		return "", fmt.Errorf("debsrc: %s is %d bytes, more than the %d allowed", f.Name, f.Size, maxPackaging)
	}
	c, err := r.open()
	if err != nil {
		return "", err
	}
	r.dl.Lock()
	file, err := c.Pool(ctx, src.PoolPath(f), debarchive.FileHash{SHA256: f.SHA256, Size: f.Size})
	r.dl.Unlock()
	if err != nil {
		return "", err
	}
	fh, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("debsrc: %w", err)
	}
	defer fh.Close()
	text, err := RulesFromPackaging(ctx, io.LimitReader(fh, maxPackaging), f.Name)
	if err != nil {
		return "", fmt.Errorf("debsrc: %s: %w", f.Name, err)
	}
	return text, nil
}

// RulesFromPackaging reads debian/rules from a packaging tarball (its compression named
// by the file name's extension): at most maxPackagingEntries entries are looked at, the
// decompressed stream is bounded, and only the regular file debian/rules is read, cut
// at the bound of what [ConfigureSwitches] reads.
func RulesFromPackaging(ctx context.Context, r io.Reader, name string) (string, error) {
	zr, err := decompress.Reader(path.Ext(name), r)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	// The members before debian/rules (patches, mostly) are skipped through this bound too.
	tr := tar.NewReader(io.LimitReader(zr, 16*maxPackaging))
	for range maxPackagingEntries {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		h, err := tr.Next()
		if err == io.EOF {
			return "", ErrNoPackaging
		}
		if err != nil {
			return "", fmt.Errorf("read the packaging: %w", err)
		}
		if strings.TrimPrefix(path.Clean("/"+h.Name), "/") != "debian/rules" {
			continue
		}
		if h.Typeflag != tar.TypeReg {
			return "", fmt.Errorf("debian/rules is not a regular file: %w", ErrNoPackaging)
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxRulesBytes))
		if err != nil {
			return "", fmt.Errorf("read debian/rules: %w", err)
		}
		return string(data), nil
	}
	return "", fmt.Errorf("no debian/rules among the first %d entries: %w", maxPackagingEntries, ErrNoPackaging)
}
