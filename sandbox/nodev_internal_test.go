package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/eclipse-atesor/atesor-go/internal/e2e"
)

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

// TestOverlayNodev: through an overlay mounted with the run's flags, a device node of the
// lower directory (the cached tree's dev/zero) cannot be opened by the host at all; the
// attack it stops is a library or the dpkg status replaced by a link to dev/zero, read
// until the host's memory is gone.
func TestE2EOverlayNodev(t *testing.T) {
	// It mounts an overlay on the host: end-to-end tier, not the hermetic unit tier.
	e2e.Short(t)
	e2e.Root(t)
	base := t.TempDir()
	lower, upper, work, merged := filepath.Join(base, "lower"), filepath.Join(base, "upper"), filepath.Join(base, "work"), filepath.Join(base, "merged")
	for _, d := range []string{lower, upper, work, merged} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mknodZero(t, filepath.Join(lower, "zero"))
	data := "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work
	// The overlay as it was mounted before: the device reads the host's zeros.
	if err := syscall.Mount("overlay", merged, "overlay", 0, data); err != nil {
		t.Skipf("mount overlay: %v", err)
	}
	f, err := os.Open(filepath.Join(merged, "zero"))
	if err != nil {
		t.Fatalf("without nodev the device should open: %v", err)
	}
	n, _ := f.Read(make([]byte, 4096))
	f.Close()
	if n != 4096 {
		t.Fatalf("read %d bytes of dev/zero", n)
	}
	if err := syscall.Unmount(merged, 0); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("overlay", merged, "overlay", overlayFlags, data); err != nil {
		t.Fatalf("mount overlay nodev: %v", err)
	}
	defer syscall.Unmount(merged, syscall.MNT_DETACH)
	f, err = os.Open(filepath.Join(merged, "zero"))
	if err == nil {
		f.Close()
		t.Fatal("opened a device node through the run's overlay")
	}
	if !errors.Is(err, os.ErrPermission) {
		t.Errorf("err = %v, want permission denied", err)
	}
}
