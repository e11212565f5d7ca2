package provision

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestDropDevices(t *testing.T) {
	root := t.TempDir()
	dev := filepath.Join(root, "dev")
	if err := os.MkdirAll(filepath.Join(dev, "pts"), 0o755); err != nil {
		t.Fatal(err)
	}
	mknodZero(t, filepath.Join(dev, "zero"))
	if err := os.WriteFile(filepath.Join(dev, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/fd", filepath.Join(dev, "fd")); err != nil {
		t.Fatal(err)
	}
	if err := dropDevices(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dev, "zero")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dev/zero still there: %v", err)
	}
	for _, p := range []string{"keep", "fd", "pts"} {
		if _, err := os.Lstat(filepath.Join(dev, p)); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if err := dropDevices(filepath.Join(root, "missing")); err != nil {
		t.Errorf("missing directory: %v", err)
	}
}

// mknodZero makes a character device like /dev/zero at p, or skips the test.
func mknodZero(t *testing.T, p string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|5); err != nil {
		t.Skipf("mknod: %v", err)
	}
}
