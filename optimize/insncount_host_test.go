package optimize

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// staticELF is an x86-64 executable header without a program interpreter: what a
// statically linked qemu-riscv64 (qemu-user-static's) looks like to the check.
func staticELF() []byte {
	h := make([]byte, 64)
	copy(h, "\x7fELF\x02\x01\x01")
	binary.LittleEndian.PutUint16(h[16:], 2)  // ET_EXEC
	binary.LittleEndian.PutUint16(h[18:], 62) // EM_X86_64
	binary.LittleEndian.PutUint32(h[20:], 1)  // EV_CURRENT
	binary.LittleEndian.PutUint16(h[52:], 64) // e_ehsize
	return h
}

func TestCheckCounter(t *testing.T) {
	sh, err := filepath.EvalSymlinks("/bin/sh") // a dynamically linked program, standing in for qemu-user
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		name  string
		qemu  string // "" none, "static", "dynamic"
		cc    bool
		wants string // "" for no error
	}{
		{"nothing", "", true, "apt-get install -y --no-install-recommends qemu-user"},
		{"only qemu-user-static", "static", true, "statically linked"},
		{"no compiler for the plugin", "dynamic", false, "apt-get install -y gcc"},
		{"all there", "dynamic", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			switch tc.qemu {
			case "static":
				if err := os.WriteFile(filepath.Join(bin, counterQemu), staticELF(), 0o755); err != nil {
					t.Fatal(err)
				}
			case "dynamic":
				if err := os.Symlink(sh, filepath.Join(bin, counterQemu)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.cc {
				if err := os.Symlink(sh, filepath.Join(bin, "cc")); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			err := CheckCounter()
			if tc.wants == "" {
				if err != nil {
					t.Fatalf("CheckCounter() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrNoCounter) || !strings.Contains(err.Error(), tc.wants) {
				t.Errorf("CheckCounter() = %v, want ErrNoCounter saying %q", err, tc.wants)
			}
		})
	}
}
