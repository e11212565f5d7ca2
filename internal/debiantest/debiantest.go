package debiantest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
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

// Mirror returns the Debian mirror: $ATESOR_DEBIAN_MIRROR (read here as the command
// line reads it), else the host's apt configuration ([knowledge.DebianMirror]), failing
// the test with an error that says how to set one when none is configured.
func Mirror(t testing.TB) string {
	t.Helper()
	m, err := knowledge.DebianMirror(os.Getenv(knowledge.DebianMirrorEnv))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// archive is the verified client of the trixie suite on the configured mirror.
func archive(t testing.TB) *debarchive.Client {
	t.Helper()
	clientMu.Lock()
	defer clientMu.Unlock()
	if client == nil {
		client = &debarchive.Client{Mirror: Mirror(t), Suite: "trixie", CacheDir: filepath.Join(CacheDir(), "archive"), MaxAge: indexMaxAge}
	}
	return client
}

var (
	clientMu sync.Mutex
	client   *debarchive.Client
)

// SourceTarball downloads the pool file of a source package of trixie, through the
// verified chain: the suite's InRelease checked with the Debian archive keyring, the
// Sources index against it, the file against the index's SHA-256 and size. It returns
// the path of the cached, checked file.
func SourceTarball(t testing.TB, pkg, file string) string {
	t.Helper()
	fetchMu.Lock()
	defer fetchMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := archive(t)
	idx, err := c.Index(ctx, "main/source/Sources.xz")
	if err != nil {
		t.Fatal(err)
	}
	var want *debsrc.File
	var dir string
	err = debsrc.ParseSources(bytes.NewReader(unxz(t, idx)), func(s debsrc.Source) bool {
		if s.Package != pkg {
			return true
		}
		for _, f := range s.Files {
			if f.Name == file {
				want, dir = &f, path.Dir(s.PoolPath(f))
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if want == nil {
		t.Fatalf("%s of source package %s is not in the trixie Sources index", file, pkg)
	}
	p, err := c.Pool(ctx, dir+"/"+file, debarchive.FileHash{SHA256: want.SHA256, Size: want.Size})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// PackageIndex returns the decompressed trixie Packages index of arch, verified
// against the suite's signed InRelease.
func PackageIndex(t testing.TB, arch string) []byte {
	t.Helper()
	fetchMu.Lock()
	defer fetchMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p, err := archive(t).Index(ctx, "main/binary-"+arch+"/Packages.xz")
	if err != nil {
		t.Fatal(err)
	}
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

func unxz(t testing.TB, p string) []byte {
	t.Helper()
	out, err := exec.Command("xz", "-dc", p).Output()
	if err != nil {
		t.Fatalf("xz -dc %s: %v (install xz-utils)", p, err)
	}
	return out
}
