package debsrc

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
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
// usable: set Suite and CacheDir (Mirror defaults to the host apt configuration's, [knowledge.DebianMirror]). A
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
	// Keyrings are the OpenPGP keyrings the suite's InRelease is verified with
	// (default the Debian archive keyring, /usr/share/keyrings/debian-archive-keyring.gpg).
	Keyrings []string

	once    sync.Once
	index   []byte
	err     error
	dl      sync.Mutex
	archive archive
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
		Component: r.component(), Path: src.PoolPath(orig), SHA256: orig.SHA256, Size: orig.Size,
		GoImportPath: src.GoImportPath, Architectures: src.Architecture}
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

func (r *Resolver) open() (*debarchive.Client, error) {
	return r.archive.open(archiveConfig{mirror: r.Mirror, suite: r.Suite, cacheDir: r.CacheDir, keyrings: r.Keyrings, maxAge: r.MaxAge, http: r.Client})
}

// Index returns the decompressed Sources index, verified against the suite's signed
// InRelease: the cached copy while it matches the InRelease (renewed after MaxAge with a
// conditional request; a verified copy serves when the mirror cannot be reached), else
// the mirror's.
func (r *Resolver) Index(ctx context.Context) ([]byte, error) {
	r.once.Do(func() { r.index, r.err = r.loadIndex(ctx) })
	return r.index, r.err
}

func (r *Resolver) loadIndex(ctx context.Context) ([]byte, error) {
	if r.Suite == "" || r.CacheDir == "" {
		return nil, errors.New("debsrc: the resolver needs a suite and a cache directory")
	}
	c, err := r.open()
	if err != nil {
		return nil, err
	}
	file, err := c.Index(ctx, r.component()+"/source/Sources.xz")
	if err != nil {
		return nil, fmt.Errorf("debsrc: the %s Sources index: %w", r.Suite, err)
	}
	var data []byte
	err = readIndex(file, func(index io.Reader) (err error) {
		data, err = io.ReadAll(io.LimitReader(index, 1<<30))
		return err
	})
	return data, err
}

// fetchTarball returns the cached tarball of o, checked against the SHA-256 and size of
// the verified Sources index, downloading it when missing.
func (r *Resolver) fetchTarball(ctx context.Context, o atesor.DistroSource) (string, error) {
	if limit := cmp.Or(r.MaxTarball, 2<<30); o.Size > limit {
		return "", fmt.Errorf("debsrc: %s is %d bytes, more than the %d allowed (Resolver.MaxTarball)", o.Path, o.Size, limit)
	}
	c, err := r.open()
	if err != nil {
		return "", err
	}
	r.dl.Lock()
	defer r.dl.Unlock()
	return c.Pool(ctx, o.Path, debarchive.FileHash{SHA256: o.SHA256, Size: o.Size})
}
