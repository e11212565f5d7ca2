package crates_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/deb822"
	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/internal/decompress"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// TestE2ETrixieCrates loads the real riscv64 Packages index of the suite through the
// verified archive client, resolves a manifest with common dependencies against it,
// and checks with the real .debs that each chosen package installs the crate version
// the index's names say, at the path cargo's directory source reads. A real
// program's manifest whose dependencies the distribution lacks fails with the crates
// named.
func TestE2ETrixieCrates(t *testing.T) {
	e2e.Long(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	c, err := debarchive.Open(debarchive.Settings{Mirror: debiantest.Mirror(t), Suite: sandbox.DefaultSuite,
		CacheDir: filepath.Join(debiantest.CacheDir(), "archive"), MaxAge: 12 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ix, err := crates.LoadIndex(ctx, c, "main", "riscv64")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the %s riscv64 index packages %d crates, rustc %s (loaded in %s)", sandbox.DefaultSuite, ix.Len(), ix.Rustc(), time.Since(start).Round(time.Millisecond))
	if ix.Len() < 1500 {
		t.Errorf("only %d crates", ix.Len())
	}
	if ok, err := crates.RustVersionMet("1.80", ix.Rustc()); err != nil || !ok {
		t.Errorf("rustc %q: %v %v", ix.Rustc(), ok, err)
	}

	manifest := `[package]
name = "e2e"
version = "0.1.0"
[dependencies]
itoa = "1"
serde = { version = "1.0.100", features = ["derive"] }
rand = "0.8"
clap = { version = "4", features = ["derive"] }
syn = { version = "1", features = ["full"] }
md-5 = "0.10"
[target.'cfg(unix)'.dependencies]
libc = "0.2"
[dev-dependencies]
tempfile = "3"
`
	m, err := crates.ReadManifest(func(rel string) ([]byte, error) {
		if rel == "Cargo.toml" {
			return []byte(manifest), nil
		}
		return nil, os.ErrNotExist
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Resolve(m, crates.RISCV64, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("install: %s", strings.Join(res.Packages, " "))
	if len(res.Crates) != 8 || len(res.Missing) != 0 {
		t.Errorf("crates %+v, missing %+v", res.Crates, res.Missing)
	}

	entries := indexEntries(t, ctx, c)
	for _, r := range res.Crates {
		e, ok := entries[r.Package]
		if !ok {
			t.Errorf("%s: the package %s is not in the index", r.Name, r.Package)
			continue
		}
		deb, err := c.Pool(ctx, e.Get("Filename"), debarchive.FileHash{SHA256: e.Get("SHA256"), Size: atoi(e.Get("Size"))})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(ctx, "dpkg-deb", "--contents", deb).Output()
		if err != nil {
			t.Fatalf("dpkg-deb --contents %s: %v", deb, err)
		}
		want := "./usr/share/cargo/registry/" + r.Name + "-" + r.Version + "/Cargo.toml"
		if !strings.Contains(string(out), want) {
			t.Errorf("%s %s: %s does not install %s", r.Name, r.Version, r.Package, want)
		}
	}

	delta, err := crates.ReadManifestFS(os.DirFS("testdata/git-delta-0.18.2"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ix.Resolve(delta, crates.RISCV64, false)
	var me *crates.MissingError
	if !errors.As(err, &me) || !slices.ContainsFunc(me.Missing, func(x crates.Missing) bool { return x.Crate == "terminal-colorsaurus" && len(x.Available) == 0 }) {
		t.Errorf("git-delta: %v", err)
	}
	t.Logf("git-delta 0.18.2 against %s:\n%v", sandbox.DefaultSuite, err)
}

// indexEntries reads the librust paragraphs of the verified index by package name.
func indexEntries(t *testing.T, ctx context.Context, c *debarchive.Client) map[string]deb822.Paragraph {
	t.Helper()
	file, err := c.Index(ctx, "main/binary-riscv64/Packages.xz")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := decompress.Reader(".xz", bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]deb822.Paragraph{}
	err = deb822.Read(zr, func(p deb822.Paragraph) bool {
		if strings.HasPrefix(p.Get("Package"), "librust-") {
			out[p.Get("Package")] = p
		}
		return true
	}, "Package", "Filename", "SHA256", "Size")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
