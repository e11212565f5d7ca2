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
	p, err := r.packagingOf(ctx, src)
	if err != nil {
		return "", err
	}
	return p.Rules, nil
}

// packagingOf reads the packaging tarball of src, a stanza of the index.
func (r *Resolver) packagingOf(ctx context.Context, src *Source) (*PackagingText, error) {
	f, ok := src.Packaging()
	if !ok {
		return nil, fmt.Errorf("debsrc: %s %s (format %s): %w", src.Package, src.Version, src.Format, ErrNoPackaging)
	}
	if f.Size > maxPackaging {
		return nil, fmt.Errorf("debsrc: %s is %d bytes, more than the %d allowed", f.Name, f.Size, maxPackaging)
	}
	c, err := r.open()
	if err != nil {
		return nil, err
	}
	r.dl.Lock()
	file, err := c.Pool(ctx, src.PoolPath(f), debarchive.FileHash{SHA256: f.SHA256, Size: f.Size})
	r.dl.Unlock()
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("debsrc: %w", err)
	}
	defer fh.Close()
	p, err := ReadPackaging(ctx, io.LimitReader(fh, maxPackaging), f.Name)
	if err != nil {
		return nil, fmt.Errorf("debsrc: %s: %w", f.Name, err)
	}
	return p, nil
}

// PackagingText is what is read of a packaging tarball: debian/rules and the patch
// series dpkg-source applies to the upstream tree.
type PackagingText struct {
	// Rules is debian/rules, cut at the bound of what [ConfigureSwitches] reads.
	Rules string
	// Patches are the patches of debian/patches/series, in its order; empty when the
	// packaging has no series.
	Patches []Patch
	// PatchesErr says why the series could not be read (Patches is then empty).
	PatchesErr error
}

// RulesFromPackaging reads debian/rules from a packaging tarball (see [ReadPackaging]).
func RulesFromPackaging(ctx context.Context, r io.Reader, name string) (string, error) {
	p, err := ReadPackaging(ctx, r, name)
	if err != nil {
		return "", err
	}
	return p.Rules, nil
}

// ReadPackaging reads debian/rules and the patch series from a packaging tarball (its
// compression named by the file name's extension): at most maxPackagingEntries entries
// are looked at, the decompressed stream is bounded, only regular files are read, each
// within its bound, and nothing is written anywhere. A tarball without a regular
// debian/rules is an error wrapping [ErrNoPackaging]; a series that cannot be read is
// PackagingText.PatchesErr.
func ReadPackaging(ctx context.Context, r io.Reader, name string) (*PackagingText, error) {
	zr, err := decompress.Reader(path.Ext(name), r)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	tr := tar.NewReader(io.LimitReader(zr, 16*maxPackaging))
	var (
		p        PackagingText
		hasRules bool
		pc       patchCollector
	)
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if n == maxPackagingEntries {
			if !hasRules {
				return nil, fmt.Errorf("no debian/rules among the first %d entries: %w", maxPackagingEntries, ErrNoPackaging)
			}
			pc.fail(fmt.Errorf("the packaging has more than %d entries", maxPackagingEntries))
			break
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if hasRules {
				pc.fail(fmt.Errorf("read the packaging: %w", err))
				break
			}
			return nil, fmt.Errorf("read the packaging: %w", err)
		}
		member := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		switch {
		case member == "debian/rules":
			if h.Typeflag != tar.TypeReg {
				return nil, fmt.Errorf("debian/rules is not a regular file: %w", ErrNoPackaging)
			}
			data, err := io.ReadAll(io.LimitReader(tr, maxRulesBytes))
			if err != nil {
				return nil, fmt.Errorf("read debian/rules: %w", err)
			}
			p.Rules, hasRules = string(data), true
		case strings.HasPrefix(member, patchDir):
			pc.add(h, strings.TrimPrefix(member, patchDir), tr)
		}
	}
	if !hasRules {
		return nil, ErrNoPackaging
	}
	p.Patches, p.PatchesErr = pc.ordered()
	return &p, nil
}
