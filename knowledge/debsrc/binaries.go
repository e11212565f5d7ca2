package debsrc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// Binaries fetches the binary packages of one architecture from a Debian archive: its
// Packages index (dists/SUITE/COMPONENT/binary-ARCH/Packages.xz) and the .deb files it
// lists, each checked against the index's SHA-256 and size. It needs no package manager
// and no foreign architecture in any system: the export check uses it to compare a port
// with the distribution's own build of another architecture. The zero value is not
// usable: set Suite, Arch and CacheDir (Mirror defaults from [knowledge.DebianMirror]).
// Safe for concurrent use.
type Binaries struct {
	// Mirror is the archive's base URL (holding dists/ and pool/).
	Mirror string
	// Suite, Component and Arch name the index: trixie, main, amd64.
	Suite, Component, Arch string
	// CacheDir keeps the index and the packages.
	CacheDir string
	// MaxAge is how long a cached index is used without asking the mirror whether it
	// changed (default 24 h).
	MaxAge time.Duration
	// MaxPackage bounds one package's size (default 512 MiB).
	MaxPackage int64

	mu sync.Mutex
}

// OfSource returns the binary packages of the index built from the source package src,
// in index order. The index is downloaded when the cached copy is missing or older than
// MaxAge (a stale copy is used when the mirror cannot be reached).
func (b *Binaries) OfSource(ctx context.Context, src string) ([]knowledge.BinaryPackage, error) {
	file, err := b.index(ctx)
	if err != nil {
		return nil, err
	}
	var bins []knowledge.BinaryPackage
	err = readIndex(file, func(index io.Reader) (err error) {
		bins, err = knowledge.BinariesOfSource(index, src)
		return err
	})
	if err != nil {
		return nil, err
	}
	return bins, ctx.Err()
}

func (b *Binaries) index(ctx context.Context) (string, error) {
	if b.Suite == "" || b.Arch == "" || b.CacheDir == "" {
		return "", errors.New("debsrc: the binary archive needs a suite, an architecture and a cache directory")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := os.MkdirAll(b.CacheDir, 0o755); err != nil {
		return "", fmt.Errorf("debsrc: cache: %w", err)
	}
	comp := cmp.Or(b.Component, "main")
	file := filepath.Join(b.CacheDir, b.Suite+"-"+comp+"-binary-"+b.Arch+"-Packages.xz")
	rel := fmt.Sprintf("dists/%s/%s/binary-%s/Packages.xz", b.Suite, comp, b.Arch)
	if err := (archive{mirror: b.Mirror}).refreshIndex(ctx, file, rel, b.MaxAge); err != nil {
		return "", fmt.Errorf("debsrc: the %s %s Packages index: %w", b.Suite, b.Arch, err)
	}
	return file, nil
}

// Fetch returns the cached, checked .deb of p (from [Binaries.OfSource]), downloading
// it when missing.
func (b *Binaries) Fetch(ctx context.Context, p knowledge.BinaryPackage) (string, error) {
	clean := path.Clean("/" + p.Filename)
	if p.Filename == "" || p.SHA256 == "" || p.Size <= 0 || !strings.HasPrefix(clean, "/pool/") || !strings.HasSuffix(clean, ".deb") {
		return "", fmt.Errorf("debsrc: the index entry of %s names no pool file with a checksum", p.Package)
	}
	if limit := cmp.Or(b.MaxPackage, 512<<20); p.Size > limit {
		return "", fmt.Errorf("debsrc: %s is %d bytes, more than the %d allowed", p.Package, p.Size, limit)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return archive{mirror: b.Mirror}.fetchChecked(ctx, filepath.Join(b.CacheDir, "pool"), clean[1:], atesor.DistroSource{SHA256: p.SHA256, Size: p.Size}, p.Size)
}
