package debarchive

import (
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
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/freshfile"
)

// ErrUnverified is wrapped by the error for a file whose content the signed chain does
// not vouch for: a bad or missing signature, another suite's Release, an expired or
// rolled-back Release, a hash or size mismatch, an index the Release does not list.
var ErrUnverified = errors.New("not verified against the suite's signed Release")

// Timeouts of one download: the Release files are small, indexes and pool files not.
const (
	releaseTimeout  = 2 * time.Minute
	downloadTimeout = 30 * time.Minute
	maxRelease      = 16 << 20 // an InRelease is about 150 KB
)

// Client reads one suite of one Debian archive. The zero value is not usable: set
// Mirror, Suite and CacheDir. A Client verifies the suite's Release once and is safe
// for concurrent use; processes may share a cache directory (files are replaced
// atomically).
type Client struct {
	// Mirror is the archive's base URL (the directory holding dists/ and pool/).
	Mirror string
	// Suite is the suite or codename (trixie, stable).
	Suite string
	// CacheDir keeps the verified files, laid out as on the mirror (dists/SUITE/...,
	// pool/...).
	CacheDir string
	// MaxAge is how long a verified Release is used without asking the mirror whether
	// it changed (a conditional request). Default 24 h, the cadence of apt list
	// refreshes.
	MaxAge time.Duration
	// Verifier checks signatures (default [GPGV] with the Debian archive keyring).
	Verifier Verifier
	// HTTP is the HTTP client (default http.DefaultClient).
	HTTP *http.Client
	// Now is the clock Valid-Until is checked against (default time.Now).
	Now func() time.Time

	mu  sync.Mutex
	rel *Release
}

// Settings say which archive a [Client] reads and how, in the terms its users take
// from their callers (the source resolver, the binary-package fetcher, the Contents
// index): [Open] turns them into a client the one way.
type Settings struct {
	// Mirror is the archive's base URL; empty: the host's apt configuration's
	// ([FindMirror]).
	Mirror string
	// Suite and CacheDir are the Client's.
	Suite, CacheDir string
	// Keyrings are the OpenPGP keyrings InRelease is verified with (empty:
	// [DefaultKeyring]).
	Keyrings []string
	// MaxAge and HTTP are the Client's (zero: their defaults).
	MaxAge time.Duration
	HTTP   *http.Client
}

// Open returns the client of s, its mirror found when s names none.
func Open(s Settings) (*Client, error) {
	m, err := FindMirror(s.Mirror)
	if err != nil {
		return nil, err
	}
	var v Verifier
	if len(s.Keyrings) > 0 {
		v = GPGV{Keyrings: s.Keyrings}
	}
	return &Client{Mirror: m, Suite: s.Suite, CacheDir: s.CacheDir, MaxAge: s.MaxAge, Verifier: v, HTTP: s.HTTP}, nil
}

func (c *Client) verifier() Verifier {
	if c.Verifier != nil {
		return c.Verifier
	}
	return GPGV{}
}

func (c *Client) base() string { return strings.TrimRight(c.Mirror, "/") }

func (c *Client) distsDir() string { return filepath.Join(c.CacheDir, "dists", c.Suite) }

func (c *Client) check() error {
	if c.Mirror == "" || c.Suite == "" || c.CacheDir == "" {
		return errors.New("debarchive: the client needs a mirror, a suite and a cache directory")
	}
	if !safeRel(c.Suite) || strings.Contains(c.Suite, "/") {
		return fmt.Errorf("debarchive: %q is not a suite name", c.Suite)
	}
	return nil
}

// Release returns the suite's verified Release: the cached InRelease (or Release and
// Release.gpg) while it is younger than MaxAge, else the mirror's, asked for with a
// conditional request; a verified cached copy serves when the mirror cannot be reached.
// Every copy is verified before it is used, the cached one included.
func (c *Client) Release(ctx context.Context) (*Release, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rel != nil {
		return c.rel, nil
	}
	rel, err := c.loadRelease(ctx)
	if err != nil {
		return nil, err
	}
	c.rel = rel
	return rel, nil
}

func (c *Client) loadRelease(ctx context.Context) (*Release, error) {
	dir := c.distsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("debarchive: cache: %w", err)
	}
	inrelease := filepath.Join(dir, "InRelease")
	cached, cachedErr := c.cachedRelease(ctx)
	if cachedErr != nil && !errors.Is(cachedErr, os.ErrNotExist) {
		// A cached copy that no longer verifies (a keyring update dropped its key, or
		// it was changed on disk) is not used and not trusted for the rollback check.
		os.Remove(inrelease)
		os.Remove(filepath.Join(dir, "Release"))
		os.Remove(filepath.Join(dir, "Release.gpg"))
		cached = nil
	}
	if cached != nil && freshfile.Fresh(c.cachedReleaseFile(), c.MaxAge) {
		return cached, nil
	}
	url := c.base() + "/dists/" + c.Suite + "/InRelease"
	var since time.Time
	if cached != nil {
		if fi, err := os.Stat(c.cachedReleaseFile()); err == nil && filepath.Base(c.cachedReleaseFile()) == "InRelease" {
			since = fi.ModTime()
		}
	}
	var got *Release
	dctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	changed, err := freshfile.RefreshChecked(dctx, c.HTTP, url, inrelease, since, maxRelease, func(tmp string) error {
		data, err := os.ReadFile(tmp)
		if err != nil {
			return err
		}
		got, err = c.verifyRelease(ctx, "dists/"+c.Suite+"/InRelease", data, nil, cached)
		return err
	})
	var ce *freshfile.CheckError
	switch {
	case errors.As(err, &ce):
		return nil, ce.Err
	case err == nil && changed:
		os.Remove(filepath.Join(dir, "Release")) // the InRelease supersedes them
		os.Remove(filepath.Join(dir, "Release.gpg"))
		return got, nil
	case err == nil:
		return cached, nil // not modified: the verified copy, its time renewed
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case strings.Contains(err.Error(), "HTTP 404"):
		// No InRelease: the older pair of a Release file and its detached signature.
		rel, derr := c.fetchDetached(ctx, cached)
		if derr == nil {
			return rel, nil
		}
		if cached != nil && !errors.Is(derr, ErrUnverified) {
			return cached, nil
		}
		return nil, derr
	case cached != nil:
		return cached, nil // the mirror cannot be reached: the verified copy serves
	}
	return nil, fmt.Errorf("debarchive: download %s: %w", url, err)
}

// cachedReleaseFile is the cached file the Release came from (InRelease, else Release).
func (c *Client) cachedReleaseFile() string {
	p := filepath.Join(c.distsDir(), "InRelease")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return filepath.Join(c.distsDir(), "Release")
}

// cachedRelease verifies the cached Release; os.ErrNotExist when there is none.
func (c *Client) cachedRelease(ctx context.Context) (*Release, error) {
	dir := c.distsDir()
	if data, err := os.ReadFile(filepath.Join(dir, "InRelease")); err == nil {
		return c.verifyRelease(ctx, "dists/"+c.Suite+"/InRelease (cached)", data, nil, nil)
	}
	data, err := os.ReadFile(filepath.Join(dir, "Release"))
	if err != nil {
		return nil, os.ErrNotExist
	}
	sig, err := os.ReadFile(filepath.Join(dir, "Release.gpg"))
	if err != nil {
		return nil, fmt.Errorf("debarchive: the cached Release has no Release.gpg: %w", ErrUnverified)
	}
	return c.verifyRelease(ctx, "dists/"+c.Suite+"/Release (cached)", data, sig, nil)
}

// fetchDetached downloads Release and Release.gpg, verifies them, and caches both.
func (c *Client) fetchDetached(ctx context.Context, previous *Release) (*Release, error) {
	base := c.base() + "/dists/" + c.Suite + "/"
	dctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	data, err := c.get(dctx, base+"Release", maxRelease)
	if err != nil {
		return nil, fmt.Errorf("debarchive: the suite %s has neither InRelease nor Release: %w", c.Suite, err)
	}
	sig, err := c.get(dctx, base+"Release.gpg", 1<<20)
	if err != nil {
		return nil, fmt.Errorf("debarchive: dists/%s/Release has no signature (Release.gpg: %v): %w", c.Suite, err, ErrUnverified)
	}
	rel, err := c.verifyRelease(ctx, "dists/"+c.Suite+"/Release", data, sig, previous)
	if err != nil {
		return nil, err
	}
	dir := c.distsDir()
	if err := atomicfile.WriteFile(filepath.Join(dir, "Release.gpg"), sig, 0o644); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "Release"), data, 0o644); err != nil {
		return nil, err
	}
	return rel, nil
}

// verifyRelease checks the signature and then what the signed text says: the suite
// asked for, not expired, not older than the Release verified before.
func (c *Client) verifyRelease(ctx context.Context, name string, data, sig []byte, previous *Release) (*Release, error) {
	if sig == nil && !wholeClearsigned(data) {
		// Text outside the signed message is never read, but it is refused (as apt
		// does) so that no reader of the file is misled and nothing unsigned is cached.
		return nil, fmt.Errorf("debarchive: %s from %s has text outside its signed message (%w)", name, c.Mirror, ErrUnverified)
	}
	text, err := c.verifier().Verify(ctx, data, sig)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("debarchive: %s from %s: %w (%w); the mirror, a proxy or the network changed it, or the keyring is out of date", name, c.Mirror, err, ErrUnverified)
	}
	rel, err := ParseRelease(text)
	if err != nil {
		return nil, fmt.Errorf("debarchive: %s: %w (%w)", name, err, ErrUnverified)
	}
	if !rel.names(c.Suite) {
		return nil, fmt.Errorf("debarchive: %s is the Release of suite %q (codename %q), not of %s: the mirror serves another suite's signed file (%w)",
			name, rel.Suite, rel.Codename, c.Suite, ErrUnverified)
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	if !rel.ValidUntil.IsZero() && now.After(rel.ValidUntil) {
		return nil, fmt.Errorf("debarchive: %s expired on %s (Valid-Until): the mirror serves an outdated archive (%w)",
			name, rel.ValidUntil.Format(time.RFC1123), ErrUnverified)
	}
	if previous != nil && rel.Date.Before(previous.Date) {
		return nil, fmt.Errorf("debarchive: %s is dated %s, older than the %s verified before: the mirror serves an older state of the archive (%w)",
			name, rel.Date.Format(time.RFC1123), previous.Date.Format(time.RFC1123), ErrUnverified)
	}
	return rel, nil
}

// wholeClearsigned reports whether data is one clear-signed message and nothing else.
func wholeClearsigned(data []byte) bool {
	d := bytes.TrimSpace(data)
	return bytes.HasPrefix(d, []byte("-----BEGIN PGP SIGNED MESSAGE-----\n")) && bytes.HasSuffix(d, []byte("\n-----END PGP SIGNATURE-----")) &&
		bytes.Count(d, []byte("-----BEGIN PGP SIGNED MESSAGE-----")) == 1 && bytes.Count(d, []byte("-----BEGIN PGP SIGNATURE-----")) == 1
}

// Index returns the cached, verified copy of the index rel (its path below
// dists/SUITE/, such as main/source/Sources.xz), downloading it when missing or not
// what the Release lists. The copy is checked against the Release's SHA-256 and size on
// every call.
func (c *Client) Index(ctx context.Context, rel string) (string, error) {
	r, err := c.Release(ctx)
	if err != nil {
		return "", err
	}
	want, ok := r.Files[rel]
	if !ok || !safeRel(rel) {
		return "", fmt.Errorf("debarchive: dists/%s/%s is not listed in the suite's signed Release, so it cannot be verified (%w)", c.Suite, rel, ErrUnverified)
	}
	name := "dists/" + c.Suite + "/" + rel
	urls := []string{c.base() + "/" + name}
	if r.ByHash {
		// The file by its hash cannot be a newer one than the Release lists (the plain
		// path can, while the mirror updates).
		urls = []string{c.base() + "/dists/" + c.Suite + "/" + path.Dir(rel) + "/by-hash/SHA256/" + want.SHA256, urls[0]}
	}
	return c.fetch(ctx, name, urls, filepath.Join(c.CacheDir, filepath.FromSlash(name)), want)
}

// LookupIndex is [Client.Index] for an index that is only looked things up in (the
// Contents files: which package holds a file), where an older signed state of the
// suite answers as well as the newest. When the mirror serves the index at its path
// but not the file the suite's Release lists, the Release of the suite's other name
// (stable for trixie, trixie for stable: a signed Release of the same codename, which
// a mirror or caching proxy may keep in step with the index when the suite's own is
// newer) is asked for it. A file no signed Release of the codename lists is never
// returned. It also returns the hash the file was checked against and that Release's
// date.
//
// Not for indexes a build is made from (Sources, Packages): there an older state is a
// rollback, which [Client.Index] refuses.
func (c *Client) LookupIndex(ctx context.Context, rel string) (string, FileHash, time.Time, error) {
	r, err := c.Release(ctx)
	if err != nil {
		return "", FileHash{}, time.Time{}, err
	}
	file, err := c.Index(ctx, rel)
	if err == nil {
		return file, r.Files[rel], r.Date, nil
	}
	other := r.Suite
	if other == c.Suite {
		other = r.Codename
	}
	if !errors.Is(err, ErrUnverified) || other == "" || other == c.Suite {
		return "", FileHash{}, time.Time{}, err
	}
	alias := &Client{Mirror: c.Mirror, Suite: other, CacheDir: c.CacheDir, MaxAge: c.MaxAge, Verifier: c.Verifier, HTTP: c.HTTP, Now: c.Now}
	ar, aerr := alias.Release(ctx)
	switch {
	case aerr != nil:
		return "", FileHash{}, time.Time{}, fmt.Errorf("%w; the suite's other name %s: %w", err, other, aerr)
	case ar.Codename != r.Codename:
		return "", FileHash{}, time.Time{}, fmt.Errorf("%w; dists/%s/InRelease is of codename %q, not %q (%w)", err, other, ar.Codename, r.Codename, ErrUnverified)
	}
	file, aerr = alias.Index(ctx, rel)
	if aerr != nil {
		return "", FileHash{}, time.Time{}, fmt.Errorf("%w; the suite's other name %s: %w", err, other, aerr)
	}
	return file, ar.Files[rel], ar.Date, nil
}

// Pool returns the cached, verified copy of the pool file rel (pool/main/z/zlib/...),
// downloading it when missing or not what want says; want comes from a verified index
// (a Sources or Packages entry).
func (c *Client) Pool(ctx context.Context, rel string, want FileHash) (string, error) {
	if err := c.check(); err != nil {
		return "", err
	}
	if !safeRel(rel) || !strings.HasPrefix(rel, "pool/") {
		return "", fmt.Errorf("debarchive: %q is not a file of the archive's pool", rel)
	}
	if !isSHA256(want.SHA256) || want.Size < 0 {
		return "", fmt.Errorf("debarchive: %s has no SHA-256 in its index entry (%w)", rel, ErrUnverified)
	}
	return c.fetch(ctx, rel, []string{c.base() + "/" + rel}, filepath.Join(c.CacheDir, filepath.FromSlash(rel)), want)
}

// fetch returns file when it holds want, else downloads the first of urls that serves
// it, checks it and renames it into place.
func (c *Client) fetch(ctx context.Context, name string, urls []string, file string, want FileHash) (string, error) {
	if err := checkFile(file, want); err == nil {
		return file, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", fmt.Errorf("debarchive: cache: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	var last error
	for _, u := range urls {
		err := freshfile.DownloadChecked(dctx, c.HTTP, u, file, max(want.Size, 1), func(tmp string) error {
			return checkFile(tmp, want)
		})
		var ce *freshfile.CheckError
		switch {
		case err == nil:
			return file, nil
		case errors.As(err, &ce):
			return "", fmt.Errorf("debarchive: %s from %s: %w; nothing was kept (%w)", name, c.Mirror, ce.Err, ErrUnverified)
		case strings.Contains(err.Error(), "larger than"):
			return "", fmt.Errorf("debarchive: %s from %s is larger than the %d bytes the signed index lists; nothing was kept (%w)", name, c.Mirror, want.Size, ErrUnverified)
		case ctx.Err() != nil:
			return "", ctx.Err()
		}
		last = err
	}
	return "", fmt.Errorf("debarchive: download %s from %s: %w", name, c.Mirror, last)
}

// checkFile checks a file's size and SHA-256.
func checkFile(file string, want FileHash) error {
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
	if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 || n != want.Size {
		return fmt.Errorf("SHA-256 %s and size %d, but the signed index says %s and %d", got, n, want.SHA256, want.Size)
	}
	return nil
}

// get reads a small file from the mirror.
func (c *Client) get(ctx context.Context, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := cmp.Or(c.HTTP, http.DefaultClient).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}
