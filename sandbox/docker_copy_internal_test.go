package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// fakeDocker writes a docker CLI stand-in that serves `cp CONTAINER:PATH -` as GNU tar
// does from root, and `exec CONTAINER test -d PATH` from root too.
func fakeDocker(t *testing.T, root string) *Docker {
	t.Helper()
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("tar is not installed")
	}
	bin := filepath.Join(t.TempDir(), "docker")
	script := fmt.Sprintf(`#!/bin/sh
root=%q
case "$1" in
cp) p="${2#*:}"; cd "$root$(dirname "$p")" && exec tar -cf - "$(basename "$p")" ;;
exec) [ -d "$root$5" ] ;;
*) exit 2 ;;
esac
`, root)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Docker{bin: bin, container: "c", o: buildOptions(nil)}
}

// TestDockerCopyOutStream copies paths outside the bind-mounted workspace through docker
// cp's tar stream: a regular file and a directory come out, without the link to a host
// directory and the FIFO the directory holds; a 2 GiB sparse file (streamed in full by
// tar) is cut at the stream's bound with an error naming the setting; a link alone is
// refused.
func TestDockerCopyOutStream(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "opt", "pkg")
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib", "libx.so"), []byte("elf"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "host")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "opt", "link")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(root, "opt", "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	d := fakeDocker(t, root)
	l := CopyLimits{MaxFileBytes: 1 << 20, MaxTotalBytes: 4 << 20, TotalSetting: "SETTING_T"}

	out := t.TempDir()
	if err := d.copyOutStream(t.Context(), "/opt/pkg/lib/libx.so", filepath.Join(out, "libx.so"), l); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(out, "libx.so")); err != nil || string(data) != "elf" {
		t.Errorf("file: %q %v", data, err)
	}
	if err := d.copyOutStream(t.Context(), "/opt/pkg", filepath.Join(out, "tree"), l); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "tree"))
	if len(entries) != 1 || entries[0].Name() != "lib" {
		t.Errorf("tree holds %v, want lib only", entries)
	}
	start := time.Now()
	err = d.copyOutStream(t.Context(), "/opt/sparse", filepath.Join(out, "sparse"), l)
	var le *CopyLimitError
	if !errors.As(err, &le) || le.Setting != "SETTING_T" {
		t.Errorf("sparse file: %v", err)
	}
	t.Logf("sparse file refused in %s", time.Since(start).Round(time.Millisecond))
	var te *FileTypeError
	if err := d.copyOutStream(t.Context(), "/opt/link", filepath.Join(out, "link"), l); !errors.As(err, &te) {
		t.Errorf("link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(out, "sparse")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sparse file came out: %v", err)
	}
}
