package debsrc

// Reading a Debian archive: the source resolver and the binary-package fetcher both go
// through internal/debarchive, so every index and pool file is verified the same way.

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/ulikunitz/xz"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
)

// archive is the Debian archive a Resolver or Binaries reads, through the one verified
// client of internal/debarchive: the suite's signed InRelease checked with the archive
// keyring, the index checked against it, each pool file against the index.
type archive struct {
	mu     sync.Mutex
	client *debarchive.Client
}

// archiveConfig says which archive to open.
type archiveConfig struct {
	mirror, suite, cacheDir string
	keyrings                []string
	maxAge                  time.Duration
	http                    *http.Client
}

// open returns the archive's client, made on first use (the mirror defaults to the
// host's apt configuration's, [knowledge.DebianMirror]).
func (a *archive) open(cfg archiveConfig) (*debarchive.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.client != nil {
		return a.client, nil
	}
	c, err := debarchive.Open(debarchive.Settings{Mirror: cfg.mirror, Suite: cfg.suite, CacheDir: cfg.cacheDir,
		Keyrings: cfg.keyrings, MaxAge: cfg.maxAge, HTTP: cfg.http})
	if err != nil {
		return nil, fmt.Errorf("debsrc: %w", err)
	}
	a.client = c
	return c, nil
}

// readIndex passes the decompressed content of the cached xz index file to read. A copy
// that is not xz, or that read fails on, is removed, so the next run downloads it again.
func readIndex(file string, read func(io.Reader) error) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("debsrc: %w", err)
	}
	defer f.Close()
	zr, err := xz.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		os.Remove(file)
		return fmt.Errorf("debsrc: %s is not xz (removed; the next run downloads it again): %w", file, err)
	}
	if err := read(zr); err != nil {
		os.Remove(file)
		return fmt.Errorf("debsrc: read %s (removed; the next run downloads it again): %w", file, err)
	}
	return nil
}
