package debsrc_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// sourcesIndex is the Sources index of the test archive, listing tarball.
func sourcesIndex(tarball []byte) string {
	return fmt.Sprintf(`Package: zlib
Binary: zlib1g, zlib1g-dev
Version: 1:1.3.dfsg+really1.3.1-1
Architecture: any all
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
}

const sourcesXZ = "dists/trixie/main/source/Sources.xz"

// newArchive serves a signed Debian archive: an InRelease signed by a throwaway key
// (its keyring returned), the Sources index and the pool files it lists; corrupt serves
// the tarballs with their last byte changed.
func newArchive(t *testing.T, tarball []byte, corrupt bool) (*debiantest.Archive, string) {
	t.Helper()
	served := tarball
	if corrupt {
		served = append(bytes.Clone(tarball[:len(tarball)-1]), 'X')
	}
	signer := debiantest.NewSigner(t, "Test Archive")
	a := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{
		sourcesXZ: debiantest.XZ(t, []byte(sourcesIndex(tarball))),
		"pool/main/z/zlib/zlib_1.3.dfsg+really1.3.1.orig.tar.gz": served,
		"pool/main/l/lz4/lz4_1.10.0.orig.tar.gz":                 served,
	})
	return a, signer.Keyring
}

func TestResolve(t *testing.T) {
	tarball := []byte("pretend this is a gzip tarball")
	a, keyring := newArchive(t, tarball, false)
	cache := t.TempDir()
	r := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: cache, Keyrings: []string{keyring}}
	got, err := r.Resolve(context.Background(), "debian:zlib")
	if err != nil {
		t.Fatal(err)
	}
	want := atesor.DistroSource{Distro: "debian", Package: "zlib", Version: "1:1.3.dfsg+really1.3.1-1", Suite: "trixie",
		Component: "main", Path: "pool/main/z/zlib/zlib_1.3.dfsg+really1.3.1.orig.tar.gz", SHA256: sum(tarball), Size: int64(len(tarball)),
		Architectures: []string{"any", "all"}}
	if d := cmp.Diff(want, got.Origin); d != "" {
		t.Errorf("origin (-want +got):\n%s", d)
	}
	if b, err := os.ReadFile(got.Tarball); err != nil || !bytes.Equal(b, tarball) {
		t.Errorf("tarball %s: %q, %v", got.Tarball, b, err)
	}
	if strings.Contains(fmt.Sprint(got.Origin), a.URL) {
		t.Errorf("the origin records the mirror: %+v", got.Origin)
	}
	n := a.Total()
	// A second resolver (a second process) uses the cached index and tarball.
	r2 := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: cache, Keyrings: []string{keyring}}
	for _, spec := range []string{"debian:zlib", "debian:zlib=1.3.dfsg+really1.3.1", "debian:zlib=1:1.3.dfsg+really1.3.1-1"} {
		again, err := r2.Resolve(context.Background(), spec)
		if err != nil || again.Tarball != got.Tarball {
			t.Fatalf("%s: %v, %v", spec, again, err)
		}
	}
	if a.Total() != n {
		t.Errorf("cached resolution made %d requests", a.Total()-n)
	}
}

func TestResolveErrors(t *testing.T) {
	a, keyring := newArchive(t, []byte("tarball"), false)
	r := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: t.TempDir(), Keyrings: []string{keyring}}
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

// TestResolveRefusesTamperedTarball: the mirror serves a genuine signed InRelease and
// Sources index, but a tarball other than the one the index lists.
func TestResolveRefusesTamperedTarball(t *testing.T) {
	a, keyring := newArchive(t, []byte("the real tarball"), true)
	cache := t.TempDir()
	r := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: cache, Keyrings: []string{keyring}}
	_, err := r.Resolve(context.Background(), "debian:lz4")
	if err == nil || !strings.Contains(err.Error(), "SHA-256") || !strings.Contains(err.Error(), "lz4_1.10.0.orig.tar.gz") {
		t.Fatalf("a tampered tarball resolved: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(cache, "pool", "main", "l", "lz4")); len(entries) != 0 {
		t.Errorf("a tampered download was kept: %v", entries)
	}
}

// TestResolveRefusesTamperedIndex: a genuine signed InRelease, but a Sources.xz that
// points zlib at another tarball (the attacker's, with its own matching hash). Nothing
// is resolved, nothing of the index is cached, and the error names the index.
func TestResolveRefusesTamperedIndex(t *testing.T) {
	genuine := []byte("the real tarball")
	a, keyring := newArchive(t, genuine, false)
	evil := []byte("the attacker's tarball")
	a.Serve(sourcesXZ, debiantest.XZ(t, []byte(sourcesIndex(evil))))
	a.Serve("pool/main/z/zlib/zlib_1.3.dfsg+really1.3.1.orig.tar.gz", evil)
	cache := t.TempDir()
	r := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: cache, Keyrings: []string{keyring}}
	got, err := r.Resolve(context.Background(), "debian:zlib")
	if err == nil || !strings.Contains(err.Error(), "Sources.xz") || !strings.Contains(err.Error(), "signed") {
		t.Fatalf("a tampered index resolved: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(cache, filepath.FromSlash(sourcesXZ))); err == nil {
		t.Error("the tampered index was cached")
	}
	if n := a.Requested("pool/main/z/zlib/zlib_1.3.dfsg+really1.3.1.orig.tar.gz"); n != 0 {
		t.Errorf("the tarball of a tampered index was fetched %d times", n)
	}
	// Without a signature by a key of the keyring there is no index at all.
	other := debiantest.NewSigner(t, "Someone Else")
	r = &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: t.TempDir(), Keyrings: []string{other.Keyring}}
	if _, err := r.Resolve(context.Background(), "debian:zlib"); err == nil || !strings.Contains(err.Error(), "InRelease") {
		t.Errorf("an InRelease signed by a key outside the keyring: %v", err)
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

// goSources are trixie's stanza of a Go source (trimmed) and hostile variants.
const goSources = `Package: golang-github-pmezard-go-difflib
Binary: golang-github-pmezard-go-difflib-dev
Version: 1.0.0-3
Build-Depends: debhelper-compat (= 13), dh-golang, golang-any
Format: 3.0 (quilt)
Checksums-Sha256:
 28f3dc1b5c0efd61203ab07233f774740d3bf08da4d8153fb5310db6cea0ebda 11398 golang-github-pmezard-go-difflib_1.0.0.orig.tar.gz
Homepage: https://github.com/pmezard/go-difflib
Go-Import-Path: github.com/pmezard/go-difflib
Directory: pool/main/g/golang-github-pmezard-go-difflib

Package: etcd
Version: 3.5.16-4
Go-Import-Path: go.etcd.io/etcd, github.com/coreos/etcd

Package: fdroidcl
Version: 0.7.0-6
Go-Import-Path: mvdan.cc/fdroidcl,

Package: old-control-field
Version: 1.0-1
XS-Go-Import-Path: example.org/old

Package: hostile
Version: 1.0-1
Go-Import-Path: example.org/x; reboot

Package: option
Version: 1.0-1
Go-Import-Path: -modfile=/etc/passwd

Package: zlib
Version: 1:1.3.dfsg+really1.3.1-1
`

func TestParseSourcesGoImportPath(t *testing.T) {
	got := map[string]string{}
	if err := debsrc.ParseSources(strings.NewReader(goSources), func(s debsrc.Source) bool {
		got[s.Package] = s.GoImportPath
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"golang-github-pmezard-go-difflib": "github.com/pmezard/go-difflib",
		"etcd":                             "go.etcd.io/etcd",
		"fdroidcl":                         "mvdan.cc/fdroidcl",
		"old-control-field":                "example.org/old",
		"hostile":                          "",
		"option":                           "",
		"zlib":                             "",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Go import paths (-want +got):\n%s", d)
	}
}

func TestResolveRecordsGoImportPath(t *testing.T) {
	tarball := []byte("pretend this is a gzip tarball")
	index := strings.Replace(goSources, "28f3dc1b5c0efd61203ab07233f774740d3bf08da4d8153fb5310db6cea0ebda 11398",
		fmt.Sprintf("%s %d", sum(tarball), len(tarball)), 1)
	signer := debiantest.NewSigner(t, "Test Archive")
	a := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{
		sourcesXZ: debiantest.XZ(t, []byte(index)),
		"pool/main/g/golang-github-pmezard-go-difflib/golang-github-pmezard-go-difflib_1.0.0.orig.tar.gz": tarball,
	})
	r := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: t.TempDir(), Keyrings: []string{signer.Keyring}}
	got, err := r.Resolve(t.Context(), "debian:golang-github-pmezard-go-difflib")
	if err != nil {
		t.Fatal(err)
	}
	if got.Origin.GoImportPath != "github.com/pmezard/go-difflib" {
		t.Errorf("origin %+v, want the Go-Import-Path recorded", got.Origin)
	}
}
