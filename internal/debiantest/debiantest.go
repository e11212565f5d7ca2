// Package debiantest fetches files from Debian's archive for end-to-end tests: upstream
// source tarballs checked against the SHA-256 of trixie's Sources index, and the package
// index of an architecture. The mirror comes from the host's apt configuration (or
// ATESOR_DEBIAN_MIRROR); downloads are cached under the user cache directory so repeated
// runs fetch nothing.
package debiantest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/sandbox"
)

var fetchMu sync.Mutex

// CacheDir is where downloads are kept.
func CacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "atesor-tests", "debian")
	}
	return filepath.Join(os.TempDir(), "atesor-tests", "debian")
}

// Mirror returns the Debian mirror or skips the test when none is configured.
func Mirror(t testing.TB) string {
	t.Helper()
	m := sandbox.DebianMirror()
	if m == "" {
		t.Skip("no Debian mirror in the host's apt configuration; set ATESOR_DEBIAN_MIRROR")
	}
	return m
}

// SourceTarball downloads pool/main/<dir>/<pkg>/<file> for a source package of trixie
// and checks it against the SHA-256 in dists/trixie/main/source/Sources.xz. It returns
// the path of the cached, checked file.
func SourceTarball(t testing.TB, pkg, file string) string {
	t.Helper()
	fetchMu.Lock()
	defer fetchMu.Unlock()
	mirror := Mirror(t)
	sources := cached(t, mirror+"/dists/trixie/main/source/Sources.xz", "trixie-Sources.xz", 12*time.Hour)
	text := unxz(t, sources)
	want, dir, err := SourceEntry(bytes.NewReader(text), pkg, file)
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
	p := cached(t, mirror+"/dists/trixie/main/binary-"+arch+"/Packages.xz", "trixie-Packages-"+arch+".xz", 12*time.Hour)
	return unxz(t, p)
}

// SourceEntry finds the SHA-256 and pool directory of file in a Sources index.
func SourceEntry(r io.Reader, pkg, file string) (sha, dir string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var cur, curDir string
	inSHA := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			cur, curDir, inSHA = "", "", false
		case strings.HasPrefix(line, "Package: "):
			cur = strings.TrimPrefix(line, "Package: ")
		case strings.HasPrefix(line, "Directory: "):
			curDir = strings.TrimPrefix(line, "Directory: ")
		case strings.HasPrefix(line, "Checksums-Sha256:"):
			inSHA = true
		case inSHA && strings.HasPrefix(line, " "):
			f := strings.Fields(line)
			if cur == pkg && len(f) == 3 && f[2] == file {
				sha = f[0]
			}
		default:
			inSHA = false
		}
		if sha != "" && curDir != "" && cur == pkg {
			return sha, curDir, nil
		}
	}
	if sha != "" {
		return sha, path.Join("pool/main", pkg[:1], pkg), nil
	}
	return "", "", fmt.Errorf("%s of source package %s is not in the Sources index", file, pkg)
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
	tmp.Close()
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
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
