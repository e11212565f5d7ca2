package debsrc

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
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

func (r *Resolver) archive() archive { return archive{mirror: r.Mirror, client: r.Client} }

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
	rel := fmt.Sprintf("dists/%s/%s/source/Sources.xz", r.Suite, r.component())
	if err := r.archive().refreshIndex(ctx, file, rel, r.MaxAge); err != nil {
		return nil, fmt.Errorf("debsrc: the %s Sources index: %w", r.Suite, err)
	}
	var data []byte
	err := readIndex(file, func(index io.Reader) (err error) {
		data, err = io.ReadAll(io.LimitReader(index, 1<<30))
		return err
	})
	return data, err
}

// fetchTarball returns the cached, checked tarball of o, downloading it when missing.
func (r *Resolver) fetchTarball(ctx context.Context, o atesor.DistroSource) (string, error) {
	r.dl.Lock()
	defer r.dl.Unlock()
	return r.archive().fetchChecked(ctx, filepath.Join(r.CacheDir, "pool"), o.Path, o, cmp.Or(r.MaxTarball, 2<<30))
}
