package crates_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
)

func TestLoadIndex(t *testing.T) {
	text, err := os.ReadFile("testdata/Packages")
	if err != nil {
		t.Fatal(err)
	}
	const rel = "dists/trixie/main/binary-riscv64/Packages.xz"
	signer := debiantest.NewSigner(t, "Test Archive")
	a := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{rel: debiantest.XZ(t, text)})
	open := func(cache string) *debarchive.Client {
		c, err := debarchive.Open(debarchive.Settings{Mirror: a.URL, Suite: "trixie", CacheDir: cache, Keyrings: []string{signer.Keyring}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	cache := t.TempDir()
	ix, err := crates.LoadIndex(ctx, open(cache), "main", "riscv64")
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Versions("syn"); !slices.Equal(got, []string{"2.0.98", "1.0.109"}) {
		t.Errorf("syn versions %v", got)
	}
	// A second loader reads the verified copy in the cache.
	n := a.Total()
	if _, err := crates.LoadIndex(ctx, open(cache), "", "riscv64"); err != nil {
		t.Fatal(err)
	}
	if a.Total() != n {
		t.Errorf("the cached index made %d more requests", a.Total()-n)
	}

	// An index the signed InRelease does not vouch for is refused.
	a.Serve(rel, debiantest.XZ(t, append(text, "\nPackage: librust-evil-dev\nProvides: librust-evil-6.6.6-dev\n"...)))
	if _, err := crates.LoadIndex(ctx, open(t.TempDir()), "main", "riscv64"); !errors.Is(err, debarchive.ErrUnverified) {
		t.Errorf("a tampered index: %v", err)
	}
	// An architecture the archive lacks is an error that names the index.
	if _, err := crates.LoadIndex(ctx, open(t.TempDir()), "main", "s390x"); err == nil {
		t.Error("a missing index loads")
	}
	if _, err := crates.LoadIndex(ctx, open(t.TempDir()), "main", ""); err == nil {
		t.Error("no architecture loads")
	}
}
