package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func tarNames(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}

func TestWriteTarGzIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	for p, c := range map[string]string{"usr/lib/libx.so.1": "elf", "usr/include/x.h": "int x;"} {
		full := filepath.Join(dir, p)
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("libx.so.1", filepath.Join(dir, "usr/lib/libx.so")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	a, b := filepath.Join(out, "a.tar.gz"), filepath.Join(out, "b.tar.gz")
	epoch := time.Unix(1700000000, 0)
	if err := writeTarGz(a, dir, epoch); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, "usr/include/x.h"), now, now)
	if err := writeTarGz(b, dir, epoch); err != nil {
		t.Fatal(err)
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Error("the same tree gave two different tarballs")
	}
	want := []string{"usr/", "usr/include/", "usr/include/x.h", "usr/lib/", "usr/lib/libx.so", "usr/lib/libx.so.1"}
	if diff := cmp.Diff(want, tarNames(t, a)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestIsDevFile(t *testing.T) {
	for p, want := range map[string]bool{
		"usr/local/include/zlib.h":                      true,
		"usr/local/include/cjson/cJSON.h":               true,
		"usr/local/lib/pkgconfig/zlib.pc":               true,
		"usr/local/lib/cmake/cJSON/cJSONConfig.cmake":   true,
		"usr/local/lib/cmake/cJSON/cjson-release.cmake": true,
		"usr/local/lib/libz.so.1.3.1":                   false,
		"usr/local/share/man/man3/zlib.3":               false,
		"usr/local/share/doc/x/notes.pc":                false,
		"usr/local/bin/lz4":                             false,
	} {
		if got := isDevFile(p); got != want {
			t.Errorf("isDevFile(%q) = %t, want %t", p, got, want)
		}
	}
}

// TestWriteTarGzLinks: an install tree holding links to host paths (absolute, or
// climbing out of the tree) and a FIFO gives a tarball with only the regular files and
// the link that stays inside, so unpacking it writes nowhere but its own tree.
func TestWriteTarGzLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "usr/lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "usr/lib/libx.so.1"), []byte("elf"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"usr/lib/libx.so": "libx.so.1", "usr/lib/ssh": "/root/.ssh", "usr/lib/up": "../../../etc", "usr/lib/top": "../../..",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "usr/lib/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.tar.gz")
	if err := writeTarGz(out, dir, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	want := []string{"usr/", "usr/lib/", "usr/lib/libx.so", "usr/lib/libx.so.1"}
	if diff := cmp.Diff(want, tarNames(t, out)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}
