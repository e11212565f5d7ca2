package repair

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestOpenContentsVerified reads the Contents index through the signed chain: a
// genuine archive gives the providers (and a second open loads the saved cut-down index
// without a request for the Contents files); a Contents file other than the one the
// InRelease lists (here naming an attacker's package as the provider of zlib.h) is
// refused with an error naming it, and nothing of it is cached.
func TestOpenContentsVerified(t *testing.T) {
	signer := debiantest.NewSigner(t, "Test Archive")
	const arch = "dists/trixie/main/Contents-riscv64.gz"
	genuine := gz(t, "usr/include/zlib.h  libdevel/zlib1g-dev\nusr/bin/bison  devel/bison\n")
	a := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{
		arch:                                genuine,
		"dists/trixie/main/Contents-all.gz": gz(t, "usr/share/pkgconfig/bash-completion.pc  shells/bash-completion\n"),
	})
	opts := ContentsOptions{Mirror: a.URL, Suite: "trixie", Arch: "riscv64", Triplet: "riscv64-linux-gnu", CacheDir: t.TempDir(),
		Keyrings: []string{signer.Keyring}}
	ctx := context.Background()
	c, err := OpenContents(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"zlib1g-dev"}, c.Providers(KindHeader, "zlib.h")); d != "" {
		t.Errorf("zlib.h providers (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"bash-completion"}, c.Providers(KindPkgConfig, "bash-completion")); d != "" {
		t.Errorf("bash-completion.pc providers (-want +got):\n%s", d)
	}
	n := a.Requested(arch)
	if c, err := OpenContents(ctx, opts); err != nil || c.Len() == 0 || a.Requested(arch) != n {
		t.Errorf("second open: %v, %d names, %d more requests", err, c.Len(), a.Requested(arch)-n)
	}

	a.Serve(arch, gz(t, "usr/include/zlib.h  libdevel/evil-dev\n"))
	opts.CacheDir = t.TempDir()
	_, err = OpenContents(ctx, opts)
	if err == nil || !strings.Contains(err.Error(), "Contents-riscv64.gz") || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a tampered Contents index: %v", err)
	}
	if _, err := os.Stat(filepath.Join(opts.CacheDir, "dists", "trixie", "main", "Contents-riscv64.gz")); err == nil {
		t.Error("the tampered Contents index was cached")
	}
}
