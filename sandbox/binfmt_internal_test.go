package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestNewDockerRegistersNothing: on a host where qemu-riscv64 is not registered, the
// docker constructor says so (ErrBinfmtMissing) and writes nothing into binfmt_misc,
// even as root: registering an interpreter for the whole host is the caller's explicit
// step (SetupBinfmt).
func TestNewDockerRegistersNothing(t *testing.T) {
	dir := t.TempDir() // stands in for /proc/sys/fs/binfmt_misc: mounted, nothing registered
	register := filepath.Join(dir, "register")
	if err := os.WriteFile(register, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := binfmtDir
	binfmtDir = dir
	t.Cleanup(func() { binfmtDir = old })
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := NewDocker(context.Background(), atesor.Platform{Name: "debian", Profile: "debian"},
		WithDockerBinary(filepath.Join(bin, "docker")), WithWorkdir(t.TempDir()))
	if !errors.Is(err, ErrBinfmtMissing) {
		t.Errorf("NewDocker: %v, want ErrBinfmtMissing", err)
	}
	if data, _ := os.ReadFile(register); len(data) > 0 {
		t.Errorf("the constructor registered an interpreter: %q", data)
	}
	if _, err := os.Stat(binfmtEntry()); err == nil {
		t.Error("the constructor made a qemu-riscv64 entry")
	}
}

// TestProvisionRegistersNothing: provisioning (and so NewRootfs) only checks that
// qemu-riscv64 is registered: on a host where it is not, it fails with ErrBinfmtMissing
// (or earlier, for a missing host tool) and writes nothing into binfmt_misc.
func TestProvisionRegistersNothing(t *testing.T) {
	dir := t.TempDir() // stands in for /proc/sys/fs/binfmt_misc: mounted, nothing registered
	register := filepath.Join(dir, "register")
	if err := os.WriteFile(register, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := binfmtDir
	binfmtDir = dir
	t.Cleanup(func() { binfmtDir = old })
	if err := checkBinfmt(); !errors.Is(err, ErrBinfmtMissing) {
		t.Errorf("checkBinfmt: %v, want ErrBinfmtMissing", err)
	}
	_, err := Provision(context.Background(), atesor.Platform{Name: "debian", Profile: "debian"}, WithHome(t.TempDir()))
	var missing *MissingToolError
	if !errors.Is(err, ErrBinfmtMissing) && !errors.As(err, &missing) {
		t.Errorf("Provision: %v, want ErrBinfmtMissing or a missing host tool", err)
	}
	if data, _ := os.ReadFile(register); len(data) > 0 {
		t.Errorf("provisioning registered an interpreter: %q", data)
	}
	if _, err := os.Stat(binfmtEntry()); err == nil {
		t.Error("provisioning made a qemu-riscv64 entry")
	}
}
