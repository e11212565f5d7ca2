package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/procowner"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// source is a package source resolved on the host: for a directory the directory
// itself, for a tarball (local or downloaded) its unpacked tree and SHA-256; a git source
// is cloned inside the sandbox by the init node and has no host tree until then.
type source struct {
	raw     string
	kind    SourceKind
	hostDir string // the tree on the host, "" for git until init copies it out
	sha256  string
	tmp     string // a temporary directory to remove
	epoch   int64  // SOURCE_DATE_EPOCH of a tarball or directory (0: unknown)
}

func (s *source) cleanup() {
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// The host temporary directories of a run: an unpacked source tarball, a clone copied
// out for detection, the Go wrappers. Each records its owner (see [procowner]) so that
// those of a process killed before it removed them are reclaimed by the next run.
const (
	tempSource     = "atesor-src-"
	tempTree       = "atesor-tree-"
	tempGoWrappers = "atesor-go-wrappers-"
)

// reclaimTempDirs removes the temporary directories of runs whose process is gone (it
// was killed or crashed before it removed them), and says so.
func (p *Pipeline) reclaimTempDirs() {
	for _, prefix := range []string{tempSource, tempTree, tempGoWrappers} {
		removed, err := procowner.RemoveStale(filepath.Join(os.TempDir(), prefix+"*"))
		for _, st := range removed {
			p.cfg.Logger.Warn("reclaimed the temporary directory of a run that ended without removing it (killed or crashed)", "dir", st.Dir, "owner", st.Owner.PID)
			if p.opts.events != nil {
				p.opts.events(atesor.Event{Kind: atesor.EventInfo, Line: fmt.Sprintf("reclaimed %s, left behind by %s (killed or crashed)", st.Dir, st.Owner)})
			}
		}
		if err != nil {
			p.cfg.Logger.Warn("could not remove the temporary directory of a run that is gone", "err", err)
		}
	}
}

// identifySource resolves a source string: it checks that a local source exists,
// downloads a tarball URL, hashes and unpacks tarballs.
func identifySource(ctx context.Context, raw string) (*source, error) {
	s := &source{raw: raw, kind: KindOf(raw)}
	switch s.kind {
	case SourceGit:
		return s, nil
	case SourceDir:
		abs, err := filepath.Abs(raw)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w (give a directory, a source tarball or a git URL)", raw, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("source %s is a file but not a known archive (.tar.gz, .tar.xz, .tar.bz2, .zip)", raw)
		}
		s.hostDir = abs
		s.epoch, _ = sandbox.TreeEpoch(abs)
		return s, nil
	}
	tmp, err := procowner.MkdirTemp("", tempSource)
	if err != nil {
		return nil, err
	}
	s.tmp = tmp
	archive := raw
	if s.kind == SourceURL {
		if archive, err = fetchCached(ctx, raw); err != nil {
			s.cleanup()
			return nil, err
		}
	}
	if s.sha256, err = fileSHA256(archive); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("source %s: %w", raw, err)
	}
	s.epoch, _ = sandbox.ArchiveEpoch(ctx, archive)
	s.hostDir = filepath.Join(tmp, "tree")
	if err := os.Mkdir(s.hostDir, 0o755); err != nil {
		s.cleanup()
		return nil, err
	}
	if err := sandbox.Extract(ctx, archive, s.hostDir); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("source %s: %w", raw, err)
	}
	return s, nil
}

// downloadsDir keeps downloaded tarballs, so the recipe-cache check and the run that
// follows it (and a resumed run) fetch a URL once.
func downloadsDir() string {
	if home, err := memory.Home(); err == nil {
		return filepath.Join(home, "downloads")
	}
	return filepath.Join(os.TempDir(), "atesor-downloads")
}

// fetchCached downloads url once into the downloads directory and returns the file. The
// file is named after a hash of the URL and written through a temporary file, so a
// partial download never looks complete.
func fetchCached(ctx context.Context, url string) (string, error) {
	dir := downloadsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	sum := sha256.Sum256([]byte(url))
	dest := filepath.Join(dir, hex.EncodeToString(sum[:8])+"-"+path.Base(strings.SplitN(url, "?", 2)[0]))
	if _, err := os.Stat(dest); err == nil {
		return dest, nil
	}
	// A temporary file of this download's own (two ports of one URL at once, in one
	// process or two, each get one), renamed into place when complete.
	tmp, err := atomicfile.Create(dest, 0o644)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	defer tmp.Abort()
	if err := download(ctx, url, tmp.Name()); err != nil {
		return "", err
	}
	if err := tmp.Commit(); err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	return dest, nil
}

// download fetches url to dest, bounded in size and stall time (see
// [sandbox.DefaultDownloadLimits] for the defaults and the variables that raise them).
func download(ctx context.Context, url, dest string) error {
	return sandbox.Download(ctx, url, dest, sandbox.DefaultDownloadLimits())
}
