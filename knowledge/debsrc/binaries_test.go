package debsrc_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

func binaryArchive(t *testing.T, deb []byte, served []byte) (*httptest.Server, *atomic.Int32) {
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
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(index))
	w.Close()
	files := map[string][]byte{
		"/dists/trixie/main/binary-amd64/Packages.xz":            buf.Bytes(),
		"/pool/main/libm/libmad/libmad0_0.15.1b-11+b1_amd64.deb": served,
	}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestBinariesOfSourceAndFetch(t *testing.T) {
	deb := []byte("!<arch>\npretend this is a .deb")
	srv, requests := binaryArchive(t, deb, deb)
	cache := t.TempDir()
	b := &debsrc.Binaries{Mirror: srv.URL, Suite: "trixie", Arch: "amd64", CacheDir: cache}
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
	n := requests.Load()
	again := &debsrc.Binaries{Mirror: srv.URL, Suite: "trixie", Arch: "amd64", CacheDir: cache}
	if bins, err := again.OfSource(ctx, "libmad"); err != nil || len(bins) != 1 {
		t.Fatalf("cached index: %v, %v", bins, err)
	}
	if f, err := again.Fetch(ctx, bins[0]); err != nil || f != file {
		t.Fatalf("cached package: %s, %v", f, err)
	}
	if requests.Load() != n {
		t.Errorf("the cached index and package made %d more requests", requests.Load()-n)
	}
}

func TestBinariesFetchRefuses(t *testing.T) {
	deb := []byte("!<arch>\npretend this is a .deb")
	srv, _ := binaryArchive(t, deb, append(bytes.Clone(deb[:len(deb)-1]), 'X'))
	b := &debsrc.Binaries{Mirror: srv.URL, Suite: "trixie", Arch: "amd64", CacheDir: t.TempDir()}
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
	if _, err := (&debsrc.Binaries{Mirror: srv.URL, Suite: "trixie", Arch: "arm64", CacheDir: t.TempDir()}).OfSource(ctx, "libmad"); err == nil {
		t.Error("a missing index gave no error")
	}
}
