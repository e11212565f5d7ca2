package debsrc_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

func binaryArchive(t *testing.T, deb []byte, served []byte) (*debiantest.Archive, string) {
	t.Helper()
	index := fmt.Sprintf(`Package: libmad0
Source: libmad (0.15.1b-11)
Version: 0.15.1b-11+b1
Architecture: amd64
Filename: pool/main/libm/libmad/libmad0_0.15.1b-11+b1_amd64.deb
Size: %d
SHA256: %s

Package: madplay
Version: 0.15.2b-1
Architecture: amd64
Filename: pool/main/m/madplay/madplay_0.15.2b-1_amd64.deb
Size: 10
SHA256: 00
`, len(deb), sum(deb))
	signer := debiantest.NewSigner(t, "Test Archive")
	a := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{
		"dists/trixie/main/binary-amd64/Packages.xz":            debiantest.XZ(t, []byte(index)),
		"pool/main/libm/libmad/libmad0_0.15.1b-11+b1_amd64.deb": served,
	})
	return a, signer.Keyring
}

func TestBinariesOfSourceAndFetch(t *testing.T) {
	deb := []byte("!<arch>\npretend this is a .deb")
	a, keyring := binaryArchive(t, deb, deb)
	cache := t.TempDir()
	b := &debsrc.Binaries{Mirror: a.URL, Suite: "trixie", Arch: "amd64", CacheDir: cache, Keyrings: []string{keyring}}
	ctx := context.Background()
	bins, err := b.OfSource(ctx, "libmad")
	if err != nil {
		t.Fatal(err)
	}
	if len(bins) != 1 || bins[0].Package != "libmad0" || knowledge.UpstreamVersion(bins[0].SourceVersion) != "0.15.1b" {
		t.Fatalf("binaries = %+v", bins)
	}
	file, err := b.Fetch(ctx, bins[0])
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, deb) {
		t.Errorf("fetched %q", got)
	}
	n := a.Total()
	again := &debsrc.Binaries{Mirror: a.URL, Suite: "trixie", Arch: "amd64", CacheDir: cache, Keyrings: []string{keyring}}
	if bins, err := again.OfSource(ctx, "libmad"); err != nil || len(bins) != 1 {
		t.Fatalf("cached index: %v, %v", bins, err)
	}
	if f, err := again.Fetch(ctx, bins[0]); err != nil || f != file {
		t.Fatalf("cached package: %s, %v", f, err)
	}
	if a.Total() != n {
		t.Errorf("the cached index and package made %d more requests", a.Total()-n)
	}
}

func TestBinariesFetchRefuses(t *testing.T) {
	deb := []byte("!<arch>\npretend this is a .deb")
	a, keyring := binaryArchive(t, deb, append(bytes.Clone(deb[:len(deb)-1]), 'X'))
	b := &debsrc.Binaries{Mirror: a.URL, Suite: "trixie", Arch: "amd64", CacheDir: t.TempDir(), Keyrings: []string{keyring}}
	ctx := context.Background()
	bins, err := b.OfSource(ctx, "libmad")
	if err != nil || len(bins) != 1 {
		t.Fatalf("%v, %v", bins, err)
	}
	if _, err := b.Fetch(ctx, bins[0]); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("corrupt download: err = %v", err)
	}
	for _, p := range []knowledge.BinaryPackage{
		{Package: "escape", Filename: "pool/../../etc/passwd.deb", SHA256: "00", Size: 1},
		{Package: "nosum", Filename: "pool/main/x/x.deb", Size: 1},
		{Package: "notdeb", Filename: "pool/main/x/x.tar.gz", SHA256: "00", Size: 1},
		{Package: "huge", Filename: "pool/main/x/x.deb", SHA256: "00", Size: 1 << 40},
	} {
		if _, err := b.Fetch(ctx, p); err == nil {
			t.Errorf("%s: fetched", p.Package)
		}
	}
	if _, err := (&debsrc.Binaries{Mirror: a.URL, Suite: "trixie", Arch: "arm64", CacheDir: t.TempDir(), Keyrings: []string{keyring}}).OfSource(ctx, "libmad"); err == nil {
		t.Error("a missing index gave no error")
	}
}

// TestBinariesRefuseTamperedIndex: a genuine signed InRelease, but a Packages index
// that names another .deb (with its own matching hash): the index is refused, no .deb is
// fetched, and nothing of it is cached.
func TestBinariesRefuseTamperedIndex(t *testing.T) {
	deb := []byte("!<arch>\npretend this is a .deb")
	a, keyring := binaryArchive(t, deb, deb)
	evil := []byte("!<arch>\nthe attacker's .deb")
	a.Serve("dists/trixie/main/binary-amd64/Packages.xz", debiantest.XZ(t, []byte(fmt.Sprintf(
		"Package: libmad0\nSource: libmad (0.15.1b-11)\nVersion: 0.15.1b-11+b1\nArchitecture: amd64\nFilename: pool/main/libm/libmad/libmad0_0.15.1b-11+b1_amd64.deb\nSize: %d\nSHA256: %s\n",
		len(evil), sum(evil)))))
	a.Serve("pool/main/libm/libmad/libmad0_0.15.1b-11+b1_amd64.deb", evil)
	cache := t.TempDir()
	b := &debsrc.Binaries{Mirror: a.URL, Suite: "trixie", Arch: "amd64", CacheDir: cache, Keyrings: []string{keyring}}
	bins, err := b.OfSource(context.Background(), "libmad")
	if err == nil || !strings.Contains(err.Error(), "Packages.xz") || !strings.Contains(err.Error(), "signed") {
		t.Fatalf("a tampered Packages index: %+v, %v", bins, err)
	}
	if n := a.Requested("pool/main/libm/libmad/libmad0_0.15.1b-11+b1_amd64.deb"); n != 0 {
		t.Errorf("the .deb of a tampered index was fetched %d times", n)
	}
	if _, err := os.Stat(cache + "/dists/trixie/main/binary-amd64/Packages.xz"); err == nil {
		t.Error("the tampered index was cached")
	}
}
