package debsrc

// Fetching files of a Debian archive into a cache: the indexes (refreshed by age with a
// conditional request) and the pool files they list (checked by SHA-256 and size). The
// source resolver and the binary-package fetcher share them.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ulikunitz/xz"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/freshfile"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// downloadTimeout bounds one download from the archive.
const downloadTimeout = 30 * time.Minute

// archive names a Debian archive and how to reach it.
type archive struct {
	mirror string       // base URL; "" means the host's apt configuration
	client *http.Client // nil means http.DefaultClient
}

// base returns the archive's base URL, without a trailing slash.
func (a archive) base() (string, error) {
	if a.mirror != "" {
		return strings.TrimRight(a.mirror, "/"), nil
	}
	return knowledge.DebianMirror()
}

// refreshIndex keeps file a copy of the index at rel (below the base URL) no older than
// maxAge (default 24 h): a missing copy is downloaded, an old one renewed with a
// conditional request, and an old one kept when the mirror cannot be reached.
func (a archive) refreshIndex(ctx context.Context, file, rel string, maxAge time.Duration) error {
	if freshfile.Fresh(file, maxAge) {
		return nil // no need to know the mirror
	}
	m, err := a.base()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	_, err = freshfile.Refresh(ctx, a.client, m+"/"+rel, file, maxAge, 1<<30)
	return err
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

// fetchChecked returns the cached pool file rel (below the base URL) in dir, downloading
// it when missing or not what the index says (want), at most limit bytes.
func (a archive) fetchChecked(ctx context.Context, dir, rel string, want atesor.DistroSource, limit int64) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("debsrc: cache: %w", err)
	}
	file := filepath.Join(dir, filepath.Base(rel))
	if checkFile(file, want) == nil {
		return file, nil
	}
	m, err := a.base()
	if err != nil {
		return "", fmt.Errorf("debsrc: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	check := func(tmp string) error { return checkFile(tmp, want) }
	if err := freshfile.DownloadChecked(ctx, a.client, m+"/"+rel, file, limit, check); err != nil {
		return "", fmt.Errorf("debsrc: download %s: %w", rel, err)
	}
	return file, nil
}

// checkFile checks a file's size and SHA-256 against the index.
func checkFile(file string, o atesor.DistroSource) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != o.SHA256 || n != o.Size {
		return fmt.Errorf("SHA-256 %s and size %d, but the index says %s and %d: the download is corrupt or the mirror is out of date; retry later", got, n, o.SHA256, o.Size)
	}
	return nil
}
