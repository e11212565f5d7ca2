package knowledge_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// TestE2ESignedArchive fetches the real suite's InRelease from the configured mirror
// and verifies it with the host's Debian archive keyring; the same file changed by one
// byte of its signed text is refused by that keyring; then a small source package
// resolves through the verified path (InRelease, Sources.xz, the tarball), its tarball
// matching what the signed index says, and so does a riscv64 library package of it (the
// Packages index and the .deb).
func TestE2ESignedArchive(t *testing.T) {
	e2e(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	mirror := debiantest.Mirror(t)
	cache := t.TempDir()
	c := &debarchive.Client{Mirror: mirror, Suite: sandbox.DefaultSuite, CacheDir: cache}
	rel, err := c.Release(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Codename != sandbox.DefaultSuite || len(rel.Files) < 100 || rel.Files["main/source/Sources.xz"].Size == 0 {
		t.Fatalf("the verified Release: suite %q codename %q, %d files, Sources.xz %+v", rel.Suite, rel.Codename, len(rel.Files), rel.Files["main/source/Sources.xz"])
	}
	t.Logf("InRelease of %s (%s) verified, dated %s, %d files", rel.Codename, rel.Suite, rel.Date.Format(time.RFC1123), len(rel.Files))

	genuine, err := os.ReadFile(filepath.Join(cache, "dists", sandbox.DefaultSuite, "InRelease"))
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(genuine, []byte("Codename: "+sandbox.DefaultSuite), []byte("Codename: "+sandbox.DefaultSuite+"x"), 1)
	if bytes.Equal(tampered, genuine) {
		t.Fatal("the InRelease has no Codename line to change")
	}
	if _, err := (debarchive.GPGV{}).Verify(ctx, tampered, nil); !errors.Is(err, debarchive.ErrBadSignature) {
		t.Errorf("the real keyring accepted a changed InRelease: %v", err)
	}

	r := &debsrc.Resolver{Mirror: mirror, Suite: sandbox.DefaultSuite, CacheDir: t.TempDir()}
	res, err := r.Resolve(ctx, "debian:lz4")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(res.Tarball)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	if hex.EncodeToString(h[:]) != res.Origin.SHA256 || int64(len(b)) != res.Origin.Size || !strings.HasPrefix(res.Origin.Path, "pool/main/l/lz4/") {
		t.Errorf("resolved %+v, tarball of %d bytes with SHA-256 %x", res.Origin, len(b), h)
	}
	t.Logf("debian:lz4 %s resolved through the verified path (%d bytes) in %s", res.Origin.Version, res.Origin.Size, time.Since(start).Round(time.Millisecond))

	// The binary packages the export check compares with, through the same client.
	bins := &debsrc.Binaries{Mirror: mirror, Suite: sandbox.DefaultSuite, Arch: "riscv64", CacheDir: t.TempDir()}
	pkgs, err := bins.OfSource(ctx, "lz4")
	if err != nil {
		t.Fatal(err)
	}
	var lib *knowledge.BinaryPackage
	for i := range pkgs {
		if strings.HasPrefix(pkgs[i].Package, "liblz4-") && !strings.HasSuffix(pkgs[i].Package, "-dev") {
			lib = &pkgs[i]
		}
	}
	if lib == nil {
		t.Fatalf("no liblz4 library package among %+v", pkgs)
	}
	deb, err := bins.Fetch(ctx, *lib)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(deb); err != nil || fi.Size() != lib.Size {
		t.Errorf("%s: %v, %v", deb, fi, err)
	}
	t.Logf("%s %s (%d bytes) verified; all in %s", lib.Package, lib.Version, lib.Size, time.Since(start).Round(time.Millisecond))
}
