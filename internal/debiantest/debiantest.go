package debiantest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// indexMaxAge is how long a downloaded index is reused; pool files never change.
const indexMaxAge = 12 * time.Hour

// minPackages is fewer packages than any real trixie architecture index lists.
const minPackages = 1000

var fetchMu sync.Mutex

// CacheDir is where downloads are kept.
func CacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "atesor-tests", "debian")
	}
	return filepath.Join(os.TempDir(), "atesor-tests", "debian")
}

// Mirror returns the Debian mirror from [knowledge.DebianMirror], failing the test with
// an error that says how to set one when none is configured.
func Mirror(t testing.TB) string {
	t.Helper()
	m, err := knowledge.DebianMirror()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// SourceTarball downloads the pool file of a source package of trixie and checks it
// against the SHA-256 in dists/trixie/main/source/Sources.xz. It returns the path of the
// cached, checked file.
func SourceTarball(t testing.TB, pkg, file string) string {
	t.Helper()
	fetchMu.Lock()
	defer fetchMu.Unlock()
	mirror := Mirror(t)
	sources := cached(t, mirror+"/dists/trixie/main/source/Sources.xz", "trixie-Sources.xz", indexMaxAge)
	want, dir, err := SourceEntry(bytes.NewReader(unxz(t, sources)), pkg, file)
	if err != nil {
		t.Fatal(err)
	}
	p := cached(t, mirror+"/"+dir+"/"+file, file, 0)
	if got := fileSHA256(t, p); got != want {
		os.Remove(p)
		t.Fatalf("%s: SHA-256 %s, Sources.xz says %s", file, got, want)
	}
	return p
}

// PackageIndex returns the decompressed trixie Packages index of arch.
func PackageIndex(t testing.TB, arch string) []byte {
	t.Helper()
	fetchMu.Lock()
	defer fetchMu.Unlock()
	mirror := Mirror(t)
	p := cached(t, mirror+"/dists/trixie/main/binary-"+arch+"/Packages.xz", "trixie-Packages-"+arch+".xz", indexMaxAge)
	return unxz(t, p)
}

// Packages returns the names of the real packages in the trixie Packages index of arch
// and the virtual names they provide. It fails the test when the index lists fewer
// packages than any real one does.
func Packages(t testing.TB, arch string) (names, provided map[string]bool) {
	t.Helper()
	names, provided, err := PackageNames(bytes.NewReader(PackageIndex(t, arch)))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < minPackages {
		t.Fatalf("the trixie %s index lists only %d packages", arch, len(names))
	}
	return names, provided
}

func cached(t testing.TB, url, name string, maxAge time.Duration) string {
	t.Helper()
	dir := CacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if fi, err := os.Stat(p); err == nil && (maxAge == 0 || time.Since(fi.ModTime()) < maxAge) {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("download %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download %s: %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(dir, name+".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(tmp, resp.Body); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		t.Fatalf("download %s: %v", url, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func unxz(t testing.TB, p string) []byte {
	t.Helper()
	out, err := exec.Command("xz", "-dc", p).Output()
	if err != nil {
		t.Fatalf("xz -dc %s: %v (install xz-utils)", p, err)
	}
	return out
}

func fileSHA256(t testing.TB, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
