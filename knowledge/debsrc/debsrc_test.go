package debsrc_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// archive is a fake Debian archive: a Sources index and the pool files it lists.
type archive struct {
	files    map[string][]byte
	requests atomic.Int32
}

func newArchive(t *testing.T, tarball []byte, corrupt bool) (*archive, *httptest.Server) {
	t.Helper()
	served := tarball
	if corrupt {
		served = append(bytes.Clone(tarball[:len(tarball)-1]), 'X')
	}
	sources := fmt.Sprintf(`Package: zlib
Binary: zlib1g, zlib1g-dev
Version: 1:1.3.dfsg+really1.3.1-1
Format: 3.0 (quilt)
Directory: pool/main/z/zlib
Checksums-Sha256:
 %s %d zlib_1.3.dfsg+really1.3.1.orig.tar.gz
 %s 5 zlib_1.3.dfsg+really1.3.1-1.debian.tar.xz

Package: lz4
Version: 1.10.0-4
Format: 3.0 (quilt)
Directory: pool/main/l/lz4
Checksums-Sha256:
 %s %d lz4_1.10.0.orig.tar.gz

Package: debian-keyring
Version: 2025.01
Format: 3.0 (native)
Directory: pool/main/d/debian-keyring
Checksums-Sha256:
 %s 5 debian-keyring_2025.01.tar.xz

Package: zlibc
Version: 0.9k-4
Directory: pool/main/z/zlibc
`, sum(tarball), len(tarball), sum([]byte("debia")), sum(tarball), len(tarball), sum([]byte("nativ")))
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(sources))
	w.Close()
	a := &archive{files: map[string][]byte{
		"/dists/trixie/main/source/Sources.xz":                    buf.Bytes(),
		"/pool/main/z/zlib/zlib_1.3.dfsg+really1.3.1.orig.tar.gz": served,
		"/pool/main/l/lz4/lz4_1.10.0.orig.tar.gz":                 served,
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.requests.Add(1)
		b, ok := a.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return a, srv
}

func TestResolve(t *testing.T) {
	tarball := []byte("pretend this is a gzip tarball")
	a, srv := newArchive(t, tarball, false)
	cache := t.TempDir()
	r := &debsrc.Resolver{Mirror: srv.URL, Suite: "trixie", CacheDir: cache}
	got, err := r.Resolve(context.Background(), "debian:zlib")
	if err != nil {
		t.Fatal(err)
	}
	want := atesor.DistroSource{Distro: "debian", Package: "zlib", Version: "1:1.3.dfsg+really1.3.1-1", Suite: "trixie",
		Component: "main", Path: "pool/main/z/zlib/zlib_1.3.dfsg+really1.3.1.orig.tar.gz", SHA256: sum(tarball), Size: int64(len(tarball))}
	if d := cmp.Diff(want, got.Origin); d != "" {
		t.Errorf("origin (-want +got):\n%s", d)
	}
	if b, err := os.ReadFile(got.Tarball); err != nil || !bytes.Equal(b, tarball) {
		t.Errorf("tarball %s: %q, %v", got.Tarball, b, err)
	}
	if strings.Contains(fmt.Sprint(got.Origin), srv.URL) {
		t.Errorf("the origin records the mirror: %+v", got.Origin)
	}
	n := a.requests.Load()
	// A second resolver (a second process) uses the cached index and tarball.
	r2 := &debsrc.Resolver{Mirror: srv.URL, Suite: "trixie", CacheDir: cache}
	for _, spec := range []string{"debian:zlib", "debian:zlib=1.3.dfsg+really1.3.1", "debian:zlib=1:1.3.dfsg+really1.3.1-1"} {
		again, err := r2.Resolve(context.Background(), spec)
		if err != nil || again.Tarball != got.Tarball {
			t.Fatalf("%s: %v, %v", spec, again, err)
		}
	}
	if a.requests.Load() != n {
		t.Errorf("cached resolution made %d requests", a.requests.Load()-n)
	}
}

func TestResolveErrors(t *testing.T) {
	_, srv := newArchive(t, []byte("tarball"), false)
	r := &debsrc.Resolver{Mirror: srv.URL, Suite: "trixie", CacheDir: t.TempDir()}
	ctx := context.Background()

	_, err := r.Resolve(ctx, "debian:zlb")
	var unknown *debsrc.UnknownPackageError
	if !errors.As(err, &unknown) || !cmp.Equal(unknown.Suggestions, []string{"zlib", "zlibc"}) {
		t.Errorf("unknown name: %v (%#v)", err, unknown)
	}
	if err == nil || !strings.Contains(err.Error(), "did you mean zlib") {
		t.Errorf("unknown name error does not suggest zlib: %v", err)
	}
	_, err = r.Resolve(ctx, "debian:zlib=9.9")
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "it has 1:1.3.dfsg+really1.3.1-1") {
		t.Errorf("unknown version: %v", err)
	}
	_, err = r.Resolve(ctx, "debian:debian-keyring")
	if !errors.Is(err, debsrc.ErrNoOrig) || !strings.Contains(err.Error(), "3.0 (native)") {
		t.Errorf("native package: %v", err)
	}
	_, err = r.Resolve(ctx, "debian:zlibc")
	if !errors.Is(err, debsrc.ErrNoOrig) {
		t.Errorf("package without files: %v", err)
	}
	if _, err := r.Resolve(ctx, "debian:../../etc"); err == nil {
		t.Error("a path as a name resolved")
	}
}

func TestResolveChecksSHA256(t *testing.T) {
	_, srv := newArchive(t, []byte("the real tarball"), true)
	cache := t.TempDir()
	r := &debsrc.Resolver{Mirror: srv.URL, Suite: "trixie", CacheDir: cache}
	_, err := r.Resolve(context.Background(), "debian:lz4")
	if err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a corrupt download resolved: %v", err)
	}
	entries, _ := os.ReadDir(cache + "/pool")
	if len(entries) != 0 {
		t.Errorf("a corrupt download was kept: %v", entries)
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in, name, version string
		ok                bool
	}{
		{"debian:zlib", "zlib", "", true},
		{" debian:libpng1.6=1.6.48-1 ", "libpng1.6", "1.6.48-1", true},
		{"debian:g++-14", "g++-14", "", true},
		{"debian:zlib=1:1.3-1", "zlib", "1:1.3-1", true},
		{"debian:", "", "", false},
		{"debian:Zlib", "", "", false},
		{"debian:z", "", "", false},
		{"debian:../x", "", "", false},
		{"debian:zlib=", "", "", false},
		{"debian:zlib=../../x", "", "", false},
		{"zlib", "", "", false},
	}
	for _, tt := range tests {
		name, version, err := debsrc.ParseSpec(tt.in)
		if name != tt.name || version != tt.version || (err == nil) != tt.ok {
			t.Errorf("ParseSpec(%q) = %q, %q, %v", tt.in, name, version, err)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := map[string]bool{"zlib": true, "lz4": true, "libpng1.6": true, "xxhash": true, "zlibc": true, "python-zlib": true}
	tests := []struct {
		name string
		want []string
	}{
		{"zlb", []string{"zlib", "zlibc"}},
		{"zlib", []string{"zlibc", "python-zlib"}},
		{"libpng", []string{"libpng1.6"}},
		{"qqqqqqq", []string{}},
	}
	for _, tt := range tests {
		if got := debsrc.Suggest(tt.name, known, 3); !cmp.Equal(got, tt.want) {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestOrig(t *testing.T) {
	s := debsrc.Source{Package: "libfoo", Files: []debsrc.File{
		{Name: "libfoo_1.0.orig.tar.gz.asc"}, {Name: "libfoo_1.0.orig-docs.tar.gz"}, {Name: "libfoo_1.0.orig.tar.xz"}}}
	f, ok := s.Orig()
	if !ok || f.Name != "libfoo_1.0.orig.tar.xz" {
		t.Errorf("Orig = %v, %v", f, ok)
	}
	if p := s.PoolPath(f); p != "pool/main/libf/libfoo/libfoo_1.0.orig.tar.xz" {
		t.Errorf("PoolPath = %s", p)
	}
}

// FuzzParseSources checks that any index text parses without a panic and that no file
// name it yields can leave a directory.
func FuzzParseSources(f *testing.F) {
	f.Add("Package: a\nChecksums-Sha256:\n " + strings.Repeat("a", 64) + " 3 a_1.orig.tar.gz\n\n")
	f.Add("Package: ../x\nDirectory: /etc\n")
	f.Fuzz(func(t *testing.T, index string) {
		_ = debsrc.ParseSources(strings.NewReader(index), func(s debsrc.Source) bool {
			for _, file := range s.Files {
				if strings.ContainsAny(file.Name, "/\\") || file.Name == ".." || file.Size < 0 {
					t.Errorf("unsafe file %+v", file)
				}
			}
			return true
		})
		if name, _, err := debsrc.ParseSpec(index); err == nil && strings.ContainsAny(name, "/\\ ") {
			t.Errorf("ParseSpec accepted %q", name)
		}
	})
}
