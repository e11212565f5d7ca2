package debsrc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// Binaries fetches the binary packages of one architecture from a Debian archive: its
// Packages index (dists/SUITE/COMPONENT/binary-ARCH/Packages.xz) and the .deb files it
// lists, each checked against the index's SHA-256 and size. It needs no package manager
// and no foreign architecture in any system: the export check uses it to compare a port
// with the distribution's own build of another architecture. The zero value is not
// usable: set Suite, Arch and CacheDir (Mirror defaults to the host apt
// configuration's, [knowledge.DebianMirror]).
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
	// Keyrings are the OpenPGP keyrings the suite's InRelease is verified with
	// (default the Debian archive keyring).
	Keyrings []string

	mu      sync.Mutex
	archive archive
}

func (b *Binaries) open() (*debarchive.Client, error) {
	return b.archive.open(archiveConfig{mirror: b.Mirror, suite: b.Suite, cacheDir: b.CacheDir, keyrings: b.Keyrings, maxAge: b.MaxAge})
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
	c, err := b.open()
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	comp := cmp.Or(b.Component, "main")
	file, err := c.Index(ctx, comp+"/binary-"+b.Arch+"/Packages.xz")
	if err != nil {
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
	c, err := b.open()
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return c.Pool(ctx, clean[1:], debarchive.FileHash{SHA256: p.SHA256, Size: p.Size})
}
