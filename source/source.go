package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/procowner"
)

// Source is a package source resolved on the host: for a directory the directory
// itself, for a tarball (local or downloaded) its unpacked tree and SHA-256. A git
// source is cloned inside the sandbox and has no host tree until [Source.PrepareTree]
// makes the directory its clone is copied out to. Close removes what Resolve and
// PrepareTree made.
type Source struct {
	// Raw is the source as it was given (credentials included: use [RedactURL] to show it).
	Raw string
	// Kind is how it is given.
	Kind Kind
	// Dir is the tree on the host; "" for a git source until PrepareTree.
	Dir string
	// SHA256 is the hex SHA-256 of a tarball, "" for other kinds.
	SHA256 string
	// Epoch is the SOURCE_DATE_EPOCH of a tarball or directory: the newest modification
	// time of its entries (0: unknown). A git source's is its commit's date, known only
	// once it is cloned.
	Epoch int64

	tmp []string // temporary directories to remove
}

// Options are the inputs of [Resolve] besides the source itself.
type Options struct {
	// DownloadDir keeps downloaded tarballs, named after a hash of the URL, so that a
	// URL resolved twice (a recipe-cache check and the run that follows it, a resumed
	// run) is fetched once. Empty: a directory under os.TempDir.
	DownloadDir string
	// DownloadMaxBytes bounds a downloaded tarball (zero: 4 GiB) and DownloadStall how
	// long its download may receive nothing (zero: one minute).
	DownloadMaxBytes int64
	DownloadStall    time.Duration
	// ExtractMaxBytes and ExtractMaxEntries bound what unpacking a tarball writes (zero:
	// 16 GiB and one million entries; negative: no bound).
	ExtractMaxBytes   int64
	ExtractMaxEntries int
}

// The name prefixes of the host temporary directories Resolve (an unpacked tarball) and
// PrepareTree (a clone copied out) make in os.TempDir. Each records its owner (see
// [procowner]), so the directories of a process killed before it removed them can be
// reclaimed by the next run.
const (
	TempPrefix     = "atesor-src-"
	TreeTempPrefix = "atesor-tree-"
)

// Resolve identifies a source string and gets it onto the host: it checks that a local
// source exists, downloads a tarball URL (bounded in size and stall time, see the
// ATESOR_DOWNLOAD_* variables), hashes and unpacks tarballs (within the extraction
// bounds) and finds the source's date. A git URL is only identified. The caller closes
// the result. Errors may name the source as given: pass them through [RedactError].
func Resolve(ctx context.Context, raw string, o Options) (*Source, error) {
	s := &Source{Raw: raw, Kind: KindOf(raw)}
	switch s.Kind {
	case Git:
		return s, nil
	case Dir:
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
		s.Dir = abs
		s.Epoch, _ = treeEpoch(abs)
		return s, nil
	}
	tmp, err := procowner.MkdirTemp("", TempPrefix)
	if err != nil {
		return nil, err
	}
	s.tmp = append(s.tmp, tmp)
	file := raw
	if s.Kind == URL {
		if file, err = fetchCached(ctx, o.downloadDir(), raw, downloadLimits{MaxBytes: o.DownloadMaxBytes, Stall: o.DownloadStall}); err != nil {
			s.Close()
			return nil, err
		}
	}
	if s.SHA256, err = fileSHA256(file); err != nil {
		s.Close()
		return nil, fmt.Errorf("source %s: %w", raw, err)
	}
	s.Epoch, _ = archiveEpoch(ctx, file)
	s.Dir = filepath.Join(tmp, "tree")
	if err := os.Mkdir(s.Dir, 0o755); err != nil {
		s.Close()
		return nil, err
	}
	if err := archive.Extract(ctx, file, s.Dir, archive.Limits{MaxBytes: o.ExtractMaxBytes, MaxEntries: o.ExtractMaxEntries}.Resolve()); err != nil {
		s.Close()
		return nil, fmt.Errorf("source %s: %w", raw, err)
	}
	return s, nil
}

// PrepareTree makes an empty host directory for the tree of a git source (its clone,
// copied out of the sandbox), sets Dir to it and returns it. Close removes it.
func (s *Source) PrepareTree() (string, error) {
	tmp, err := procowner.MkdirTemp("", TreeTempPrefix)
	if err != nil {
		return "", err
	}
	s.tmp = append(s.tmp, tmp)
	s.Dir = filepath.Join(tmp, "tree")
	return s.Dir, nil
}

// Close removes the temporary directories of the source (an unpacked tarball, a copied
// out clone); a directory source is left alone. It may be called more than once.
func (s *Source) Close() error {
	var first error
	for _, d := range s.tmp {
		if err := os.RemoveAll(d); err != nil && first == nil {
			first = err
		}
	}
	s.tmp = nil
	return first
}

func (o Options) downloadDir() string {
	if o.DownloadDir != "" {
		return o.DownloadDir
	}
	return filepath.Join(os.TempDir(), "atesor-downloads")
}

// fetchCached downloads url once into dir and returns the file. The file is named after
// a hash of the URL and written through a temporary file, so a partial download never
// looks complete.
func fetchCached(ctx context.Context, dir, url string, l downloadLimits) (string, error) {
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
	if err := download(ctx, url, tmp.Name(), l); err != nil {
		return "", err
	}
	if err := tmp.Commit(); err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	return dest, nil
}
