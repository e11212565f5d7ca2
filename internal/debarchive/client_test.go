package debarchive_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
)

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

const suite = "trixie"

var (
	sourcesPath = "dists/" + suite + "/main/source/Sources.xz"
	poolPath    = "pool/main/z/zlib/zlib_1.3.orig.tar.gz"
	released    = time.Date(2026, 11, 21, 9, 15, 44, 0, time.UTC)
)

// mirror is a signed archive with one index and one pool file.
func mirror(t *testing.T, signer *debiantest.Signer) *debiantest.Archive {
	t.Helper()
	return debiantest.NewArchive(t, signer, suite, released, map[string][]byte{
		sourcesPath: debiantest.XZ(t, []byte("Package: zlib\n")),
		poolPath:    []byte("the genuine tarball"),
	})
}

func client(a *debiantest.Archive, keyring, cache string) *debarchive.Client {
	return &debarchive.Client{Mirror: a.URL, Suite: suite, CacheDir: cache, Verifier: debarchive.GPGV{Keyrings: []string{keyring}}}
}

// cachedFiles lists the regular files below dir (relative paths).
func cachedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestClientGenuine(t *testing.T) {
	signer := debiantest.NewSigner(t, "Test Archive")
	a := mirror(t, signer)
	cache := t.TempDir()
	ctx := context.Background()
	c := client(a, signer.Keyring, cache)
	idx, err := c.Index(ctx, "main/source/Sources.xz")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(idx); !bytes.Equal(b, a.File(sourcesPath)) {
		t.Errorf("index %s holds %q", idx, b)
	}
	tarball := a.File(poolPath)
	p, err := c.Pool(ctx, poolPath, debarchive.FileHash{SHA256: sum(tarball), Size: int64(len(tarball))})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, tarball) {
		t.Errorf("pool file %s holds %q", p, b)
	}
	// A second client (a second process) uses the verified cache: no request at all.
	n := a.Total()
	again := client(a, signer.Keyring, cache)
	if _, err := again.Index(ctx, "main/source/Sources.xz"); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Pool(ctx, poolPath, debarchive.FileHash{SHA256: sum(tarball), Size: int64(len(tarball))}); err != nil {
		t.Fatal(err)
	}
	if a.Total() != n {
		t.Errorf("the cached files made %d requests", a.Total()-n)
	}
	if _, err := again.Index(ctx, "main/binary-amd64/Packages.xz"); !errors.Is(err, debarchive.ErrUnverified) ||
		!strings.Contains(err.Error(), "not listed") {
		t.Errorf("an index the Release does not list: %v", err)
	}
}

// TestClientRefuses plays the mirror, a proxy or the network as an attacker: each case
// serves something other than the archive's signed state, and the client must refuse
// it with an error naming the file and cache nothing of it.
func TestClientRefuses(t *testing.T) {
	signer := debiantest.NewSigner(t, "Test Archive")
	stranger := debiantest.NewSigner(t, "Someone Else")
	inrelease := "dists/" + suite + "/InRelease"
	tests := []struct {
		name   string
		tamper func(a *debiantest.Archive)
		pool   bool   // fetch the pool file (else the index)
		want   string // in the error
	}{
		{"a tampered Sources.xz", func(a *debiantest.Archive) {
			a.Serve(sourcesPath, debiantest.XZ(t, []byte("Package: zlib\nDirectory: pool/main/e/evil\n")))
		}, false, "Sources.xz"},
		{"a longer Sources.xz", func(a *debiantest.Archive) {
			a.Serve(sourcesPath, append(bytes.Clone(a.File(sourcesPath)), 0))
		}, false, "larger than"},
		{"a tampered tarball", func(a *debiantest.Archive) { a.Serve(poolPath, []byte("the evil tarball!!!")) }, true, poolPath},
		{"a changed InRelease", func(a *debiantest.Archive) {
			a.Serve(inrelease, bytes.Replace(a.File(inrelease), []byte("Suite: trixie"), []byte("Suite: trixiE"), 1))
		}, false, "InRelease"},
		{"an InRelease signed by another key", func(a *debiantest.Archive) {
			a.Serve(inrelease, stranger.ClearSign(t, a.Release(suite, "", released, nil)))
		}, false, "not in the keyring"},
		{"an unsigned Release only", func(a *debiantest.Archive) {
			a.Serve(inrelease, nil)
			a.Serve("dists/"+suite+"/Release", a.Release(suite, "", released, nil))
		}, false, "no signature"},
		{"a Release with another key's Release.gpg", func(a *debiantest.Archive) {
			rel := a.Release(suite, "", released, nil)
			a.Serve(inrelease, nil)
			a.Serve("dists/"+suite+"/Release", rel)
			a.Serve("dists/"+suite+"/Release.gpg", stranger.DetachSign(t, rel))
		}, false, "Release"},
		{"another suite's genuine InRelease", func(a *debiantest.Archive) {
			rel := bytes.ReplaceAll(a.Release(suite, "", released, nil), []byte(": trixie\n"), []byte(": bookworm\n"))
			a.Serve(inrelease, signer.ClearSign(t, rel))
		}, false, "not of trixie"},
		{"an expired InRelease", func(a *debiantest.Archive) {
			a.Serve(inrelease, signer.ClearSign(t, a.Release(suite, "Valid-Until: Sun, 22 Nov 2026 09:15:44 UTC\n", released, nil)))
		}, false, "Valid-Until"},
		{"unsigned checksums after the signature", func(a *debiantest.Archive) {
			evil := debiantest.XZ(t, []byte("Package: evil\n"))
			a.Serve(sourcesPath, evil)
			a.Serve(inrelease, append(bytes.Clone(a.File(inrelease)), []byte("\nSHA256:\n "+sum(evil)+" 9 main/source/Sources.xz\n")...))
		}, false, "outside"},
		{"unsigned text before the signed message", func(a *debiantest.Archive) {
			a.Serve(inrelease, append([]byte("Suite: trixie\n\n"), a.File(inrelease)...))
		}, false, "outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mirror(t, signer)
			tarball := a.File(poolPath)
			genuineInRelease := a.File(inrelease)
			tt.tamper(a)
			cache := t.TempDir()
			c := client(a, signer.Keyring, cache)
			c.Now = func() time.Time { return released.Add(48 * time.Hour) }
			var err error
			if tt.pool {
				_, err = c.Pool(context.Background(), poolPath, debarchive.FileHash{SHA256: sum(tarball), Size: int64(len(tarball))})
			} else {
				_, err = c.Index(context.Background(), "main/source/Sources.xz")
			}
			if err == nil || !errors.Is(err, debarchive.ErrUnverified) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an unverified error naming %q", err, tt.want)
			}
			// Only the genuine InRelease may be kept, when something else was tampered with.
			genuine := bytes.Equal(a.File(inrelease), genuineInRelease)
			for _, f := range cachedFiles(t, cache) {
				if f != filepath.Join("dists", suite, "InRelease") || !genuine {
					t.Errorf("cached after the refusal: %s", f)
				}
			}
		})
	}
}

// TestClientRechecksCache: a cached index changed on disk is not used (downloaded
// again), a cached InRelease that no longer verifies is dropped, an InRelease older
// than the one verified before is refused, and the Release + Release.gpg pair serves
// when the mirror has no InRelease.
func TestClientRechecksCache(t *testing.T) {
	signer := debiantest.NewSigner(t, "Test Archive")
	ctx := context.Background()
	a := mirror(t, signer)
	cache := t.TempDir()
	idx, err := client(a, signer.Keyring, cache).Index(ctx, "main/source/Sources.xz")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, []byte("changed on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := a.Requested(sourcesPath)
	if idx, err = client(a, signer.Keyring, cache).Index(ctx, "main/source/Sources.xz"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(idx); !bytes.Equal(b, a.File(sourcesPath)) || a.Requested(sourcesPath) != before+1 {
		t.Errorf("a changed cached index: %q after %d requests", b, a.Requested(sourcesPath)-before)
	}

	// The cached InRelease changed on disk: dropped and fetched again.
	cachedIR := filepath.Join(cache, "dists", suite, "InRelease")
	ir, _ := os.ReadFile(cachedIR)
	os.WriteFile(cachedIR, bytes.Replace(ir, []byte("Label: Debian"), []byte("Label: Debiax"), 1), 0o644)
	n := a.Requested("dists/" + suite + "/InRelease")
	if _, err := client(a, signer.Keyring, cache).Release(ctx); err != nil {
		t.Fatal(err)
	}
	if a.Requested("dists/"+suite+"/InRelease") != n+1 {
		t.Error("a cached InRelease that does not verify was used")
	}

	// A rollback: an older, genuinely signed InRelease once the newer one is known.
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(cachedIR, old, old) // due for a refresh
	a.Serve("dists/"+suite+"/InRelease", signer.ClearSign(t, a.Release(suite, "", released.Add(-30*24*time.Hour), nil)))
	if _, err := client(a, signer.Keyring, cache).Release(ctx); !errors.Is(err, debarchive.ErrUnverified) || !strings.Contains(err.Error(), "older") {
		t.Errorf("rollback: %v", err)
	}

	// Release and its detached signature.
	b := mirror(t, signer)
	rel := b.Release(suite, "", released, nil)
	b.Serve("dists/"+suite+"/InRelease", nil)
	b.Serve("dists/"+suite+"/Release", rel)
	b.Serve("dists/"+suite+"/Release.gpg", signer.DetachSign(t, rel))
	cache2 := t.TempDir()
	if _, err := client(b, signer.Keyring, cache2).Index(ctx, "main/source/Sources.xz"); err != nil {
		t.Fatalf("Release + Release.gpg: %v", err)
	}
	if _, err := client(b, signer.Keyring, cache2).Index(ctx, "main/source/Sources.xz"); err != nil {
		t.Fatalf("the cached Release + Release.gpg: %v", err)
	}
}

// TestOpen: the settings become a client the one way: the mirror without its trailing
// slash, keyrings as a gpgv verifier, none as the default one.
func TestOpen(t *testing.T) {
	c, err := debarchive.Open(debarchive.Settings{Mirror: "http://m.invalid/debian/", Suite: "trixie", CacheDir: t.TempDir(), Keyrings: []string{"/k.gpg"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Mirror != "http://m.invalid/debian" || c.Suite != "trixie" {
		t.Errorf("client = %q %q", c.Mirror, c.Suite)
	}
	if g, ok := c.Verifier.(debarchive.GPGV); !ok || len(g.Keyrings) != 1 {
		t.Errorf("verifier = %#v", c.Verifier)
	}
	if c, err := debarchive.Open(debarchive.Settings{Mirror: "http://m.invalid/debian", Suite: "trixie", CacheDir: t.TempDir()}); err != nil || c.Verifier != nil {
		t.Errorf("no keyrings: %v, verifier %#v", err, c.Verifier)
	}
}

// TestClientLookupIndex: a mirror that serves the suite's newest InRelease but keeps an
// older Contents file, which the signed InRelease of the suite's other name (stable for
// trixie) lists, gives that file to LookupIndex and not to Index; a file neither
// Release lists, or another codename's Release, is still refused.
func TestClientLookupIndex(t *testing.T) {
	signer := debiantest.NewSigner(t, "Test Archive")
	const contents = "main/Contents-riscv64.gz"
	older, newer := []byte("usr/include/zlib.h  libdevel/zlib1g-dev\n"), []byte("usr/include/zlib.h  libdevel/zlib1g-dev\nusr/bin/x  utils/x\n")
	earlier := released.Add(-60 * 24 * time.Hour)
	// named signs a Release of the files for suite name, codename trixie.
	named := func(a *debiantest.Archive, name, codename string, date time.Time, content []byte) []byte {
		rel := a.Release(suite, "", date, map[string][]byte{"dists/" + suite + "/" + contents: content})
		rel = bytes.Replace(rel, []byte("Suite: trixie\n"), []byte("Suite: "+name+"\n"), 1)
		rel = bytes.Replace(rel, []byte("Codename: trixie\n"), []byte("Codename: "+codename+"\n"), 1)
		return signer.ClearSign(t, rel)
	}
	tests := []struct {
		name      string
		served    []byte // at both names' Contents path
		stable    []byte // dists/stable/InRelease; nil: none
		want      []byte // LookupIndex's file; nil: an unverified error
		wantDated time.Time
	}{
		{"the suite's own file", newer, nil, newer, released},
		{"an older file the other name's Release lists", older, []byte("older"), older, earlier},
		{"a file no Release lists", []byte("evil"), []byte("older"), nil, time.Time{}},
		{"the other name's Release of another codename", older, []byte("bookworm"), nil, time.Time{}},
		{"no Release of the other name", older, nil, nil, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := debiantest.NewArchive(t, signer, suite, released, map[string][]byte{"dists/" + suite + "/" + contents: newer})
			a.Serve("dists/"+suite+"/InRelease", named(a, "stable", "trixie", released, newer))
			a.Serve("dists/"+suite+"/"+contents, tt.served)
			a.Serve("dists/stable/"+contents, tt.served)
			switch string(tt.stable) {
			case "older":
				a.Serve("dists/stable/InRelease", named(a, "stable", "trixie", earlier, older))
			case "bookworm":
				a.Serve("dists/stable/InRelease", named(a, "stable", "bookworm", earlier, older))
			}
			c := client(a, signer.Keyring, t.TempDir())
			c.Now = func() time.Time { return released.Add(48 * time.Hour) }
			file, hash, dated, err := c.LookupIndex(context.Background(), contents)
			if tt.want == nil {
				if err == nil || !errors.Is(err, debarchive.ErrUnverified) {
					t.Fatalf("LookupIndex = %s, %v; want an unverified error", file, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(file); !bytes.Equal(b, tt.want) {
				t.Errorf("LookupIndex's file holds %q, want %q", b, tt.want)
			}
			if hash.SHA256 != sum(tt.want) || !dated.Equal(tt.wantDated) {
				t.Errorf("LookupIndex's hash %s, dated %s; want %s, %s", hash.SHA256, dated, sum(tt.want), tt.wantDated)
			}
			if _, err := c.Index(context.Background(), contents); (err == nil) != bytes.Equal(tt.want, newer) {
				t.Errorf("Index after LookupIndex: %v", err)
			}
		})
	}
}
