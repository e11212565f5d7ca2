package debsrc

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ulikunitz/xz"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// ErrNoOrig is wrapped by the error for a source package without an upstream tarball.
var ErrNoOrig = errors.New("no upstream .orig tarball")

// UnknownPackageError says that the Sources index has no such package (or not that
// version); Suggestions are close names, or the versions it has.
type UnknownPackageError struct {
	Name, Version, Suite string
	Suggestions          []string
}

func (e *UnknownPackageError) Error() string {
	what := "source package " + e.Name
	if e.Version != "" {
		what += " version " + e.Version
	}
	msg := fmt.Sprintf("debsrc: %s is not in the %s Sources index", what, e.Suite)
	if len(e.Suggestions) > 0 {
		if e.Version != "" {
			msg += "; it has " + strings.Join(e.Suggestions, ", ")
		} else {
			msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
		}
	}
	return msg
}

// Resolver resolves and downloads Debian source packages. The zero value is not
// usable: set Suite and CacheDir (Mirror defaults from [knowledge.DebianMirror]). A
// Resolver reads the index once and is safe for concurrent use.
type Resolver struct {
	// Mirror is the archive's base URL (holding dists/ and pool/).
	Mirror string
	// Suite and Component name the Sources index (trixie, main).
	Suite, Component string
	// CacheDir keeps the index and the tarballs.
	CacheDir string
	// MaxAge is how long a cached index is used without asking the mirror whether it
	// changed (default 24 h).
	MaxAge time.Duration
	// MaxTarball bounds a tarball's size (default 2 GiB).
	MaxTarball int64
	// Client is the HTTP client (default http.DefaultClient).
	Client *http.Client

	once  sync.Once
	index []byte
	err   error
	dl    sync.Mutex
}

// Resolved is a resolved package: what to record and the checked tarball on disk.
type Resolved struct {
	Origin  atesor.DistroSource
	Tarball string
}

// Resolve finds debian:NAME[=VERSION] in the index, downloads its upstream tarball
// (or reuses the cached copy) and checks it. Cached tarballs are checked again.
func (r *Resolver) Resolve(ctx context.Context, spec string) (*Resolved, error) {
	name, version, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	src, err := r.Lookup(ctx, name, version)
	if err != nil {
		return nil, err
	}
	orig, ok := src.Orig()
	if !ok {
		return nil, fmt.Errorf("debsrc: %s %s (format %s) has no upstream tarball (%w): Debian maintains it natively; port its upstream source by URL or path instead",
			src.Package, src.Version, cmp.Or(src.Format, "unknown"), ErrNoOrig)
	}
	origin := atesor.DistroSource{Distro: "debian", Package: src.Package, Version: src.Version, Suite: r.Suite,
		Component: r.component(), Path: src.PoolPath(orig), SHA256: orig.SHA256, Size: orig.Size}
	file, err := r.fetchTarball(ctx, origin)
	if err != nil {
		return nil, err
	}
	return &Resolved{Origin: origin, Tarball: file}, nil
}

// Lookup returns the index stanza of name (of version, when not empty).
func (r *Resolver) Lookup(ctx context.Context, name, version string) (*Source, error) {
	idx, err := r.Index(ctx)
	if err != nil {
		return nil, err
	}
	var found *Source
	var versions []string
	names := map[string]bool{}
	_ = ParseSources(bytes.NewReader(idx), func(s Source) bool {
		if s.Package != name {
			names[s.Package] = true
			return true
		}
		versions = append(versions, s.Version)
		if version == "" || s.Version == version || upstream(s.Version) == version {
			// The last match wins: later stanzas of one suite are newer uploads.
			c := s
			found = &c
		}
		return true
	})
	if found != nil {
		return found, nil
	}
	e := &UnknownPackageError{Name: name, Version: version, Suite: r.Suite}
	if len(versions) > 0 {
		e.Suggestions = versions
	} else {
		e.Suggestions = Suggest(name, names, 5)
	}
	return nil, e
}

// upstream is the upstream part of a Debian version: no epoch, no revision.
func upstream(v string) string {
	if _, after, ok := strings.Cut(v, ":"); ok {
		v = after
	}
	if i := strings.LastIndex(v, "-"); i > 0 {
		v = v[:i]
	}
	return v
}

func (r *Resolver) component() string { return cmp.Or(r.Component, "main") }

func (r *Resolver) mirror() (string, error) {
	if r.Mirror != "" {
		return strings.TrimRight(r.Mirror, "/"), nil
	}
	return knowledge.DebianMirror()
}

// Index returns the decompressed Sources index, downloading it when the cached copy is
// missing or older than MaxAge (a conditional request, so an unchanged index is not
// fetched again; a stale copy is used when the mirror cannot be reached).
func (r *Resolver) Index(ctx context.Context) ([]byte, error) {
	r.once.Do(func() { r.index, r.err = r.loadIndex(ctx) })
	return r.index, r.err
}

func (r *Resolver) loadIndex(ctx context.Context) ([]byte, error) {
	if r.Suite == "" || r.CacheDir == "" {
		return nil, errors.New("debsrc: the resolver needs a suite and a cache directory")
	}
	if err := os.MkdirAll(r.CacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("debsrc: cache: %w", err)
	}
	file := filepath.Join(r.CacheDir, r.Suite+"-"+r.component()+"-Sources.xz")
	fi, statErr := os.Stat(file)
	if statErr != nil || time.Since(fi.ModTime()) > cmp.Or(r.MaxAge, 24*time.Hour) {
		m, err := r.mirror()
		if err != nil {
			return nil, fmt.Errorf("debsrc: %w", err)
		}
		var since time.Time
		if statErr == nil {
			since = fi.ModTime()
		}
		url := fmt.Sprintf("%s/dists/%s/%s/source/Sources.xz", m, r.Suite, r.component())
		if err := r.download(ctx, url, file, since, 1<<30); err != nil && statErr != nil {
			return nil, fmt.Errorf("debsrc: the %s Sources index: %w", r.Suite, err)
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("debsrc: %w", err)
	}
	defer f.Close()
	zr, err := xz.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		os.Remove(file)
		return nil, fmt.Errorf("debsrc: %s is not xz (removed; the next run downloads it again): %w", file, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, 1<<30))
	if err != nil {
		os.Remove(file)
		return nil, fmt.Errorf("debsrc: decompress %s (removed; the next run downloads it again): %w", file, err)
	}
	return data, nil
}

// fetchTarball returns the cached, checked tarball of o, downloading it when missing.
func (r *Resolver) fetchTarball(ctx context.Context, o atesor.DistroSource) (string, error) {
	r.dl.Lock()
	defer r.dl.Unlock()
	dir := filepath.Join(r.CacheDir, "pool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("debsrc: cache: %w", err)
	}
	file := filepath.Join(dir, filepath.Base(o.Path))
	if checkFile(file, o) == nil {
		return file, nil
	}
	m, err := r.mirror()
	if err != nil {
		return "", fmt.Errorf("debsrc: %w", err)
	}
	tmp := file + ".part-" + strconv.Itoa(os.Getpid())
	defer os.Remove(tmp)
	if err := r.download(ctx, m+"/"+o.Path, tmp, time.Time{}, cmp.Or(r.MaxTarball, 2<<30)); err != nil {
		return "", fmt.Errorf("debsrc: download %s: %w", o.Path, err)
	}
	if err := checkFile(tmp, o); err != nil {
		return "", fmt.Errorf("debsrc: %s: %w", o.Path, err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return "", fmt.Errorf("debsrc: %w", err)
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
		return fmt.Errorf("SHA-256 %s and size %d, but the Sources index says %s and %d: the download is corrupt or the mirror is out of date; retry later", got, n, o.SHA256, o.Size)
	}
	return nil
}

// download fetches url into file through a temporary file, bounded to limit bytes.
// With since set it asks If-Modified-Since; a 304 only renews the file's time.
func (r *Resolver) download(ctx context.Context, url, file string, since time.Time, limit int64) error {
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if !since.IsZero() {
		req.Header.Set("If-Modified-Since", since.UTC().Format(http.TimeFormat))
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	now := time.Now()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return os.Chtimes(file, now, now)
	case http.StatusOK:
	default:
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, limit+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n > limit {
		return fmt.Errorf("larger than %d bytes", limit)
	}
	return os.Rename(tmp.Name(), file)
}
