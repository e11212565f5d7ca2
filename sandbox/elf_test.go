package sandbox_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// arMember returns the 60-byte ar header of a member of n bytes.
func arMember(name string, n int) string {
	return fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", n)
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join("..", "testdata", "elf", name)
}

func TestInspectELFFixtures(t *testing.T) {
	loader := "/lib/ld-linux-riscv64-lp64d.so.1"
	tests := []struct {
		file                          string
		kind                          atesor.ArtifactKind
		riscv, static, stripped       bool
		machine, abi, interp, needed0 string
		members                       int
		wantErr                       bool
	}{
		{file: "x86_64-hello", kind: atesor.KindExecutable, machine: "EM_X86_64", interp: "/lib64/ld-linux-x86-64.so.2", stripped: true, needed0: "libc.so.6"},
		{file: "aarch64-hello", kind: atesor.KindExecutable, machine: "EM_AARCH64", interp: "/lib/ld-linux-aarch64.so.1", stripped: true, needed0: "libc.so.6"},
		{file: "riscv64-glibc-hello", kind: atesor.KindExecutable, riscv: true, machine: "EM_RISCV", abi: "lp64d", interp: loader, stripped: true, needed0: "libc.so.6"},
		{file: "riscv64-glibc-hello-unstripped", kind: atesor.KindExecutable, riscv: true, machine: "EM_RISCV", abi: "lp64d", interp: loader, needed0: "libc.so.6"},
		{file: "riscv64-static-hello", kind: atesor.KindExecutable, riscv: true, static: true, machine: "EM_RISCV", abi: "lp64d", stripped: true},
		{file: "libriscv64-add.so", kind: atesor.KindSharedLibrary, riscv: true, machine: "EM_RISCV", abi: "lp64d", stripped: true},
		{file: "riscv64-add.o", kind: atesor.KindObject, riscv: true, static: true, machine: "EM_RISCV", abi: "lp64d"},
		{file: "libriscv64-math.a", kind: atesor.KindStaticLibrary, riscv: true, static: true, machine: "EM_RISCV", abi: "lp64d", members: 2},
		{file: "libmixed.a", kind: atesor.KindStaticLibrary, static: true, machine: "EM_X86_64", members: 1},
		{file: "script.sh", wantErr: true},
		{file: "truncated-riscv64", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(fixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			a, err := sandbox.InspectELF(f)
			if tc.wantErr {
				if !errors.Is(err, sandbox.ErrNotELF) {
					t.Fatalf("err = %v, want ErrNotELF", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Kind != tc.kind || a.RISCV64 != tc.riscv || a.Static != tc.static || a.Machine != tc.machine ||
				a.FloatABI != tc.abi || a.Interpreter != tc.interp || a.Members != tc.members {
				t.Errorf("got %+v", a)
			}
			if tc.kind != atesor.KindObject && tc.kind != atesor.KindStaticLibrary && a.Stripped != tc.stripped {
				t.Errorf("stripped = %v, want %v", a.Stripped, tc.stripped)
			}
			if tc.needed0 != "" && (len(a.Needed) == 0 || a.Needed[0] != tc.needed0) {
				t.Errorf("needed = %v", a.Needed)
			}
			if len(a.SHA256) != 64 || a.Size == 0 {
				t.Errorf("hash %q size %d", a.SHA256, a.Size)
			}
			if !tc.riscv && a.Problem == "" {
				t.Errorf("non-riscv64 artifact without a problem: %+v", a)
			}
		})
	}
}

func TestCheckArtifact(t *testing.T) {
	p := debianPlatform()
	good := atesor.Artifact{Kind: atesor.KindExecutable, RISCV64: true, FloatABI: "lp64d", Interpreter: p.Loader}
	if err := sandbox.CheckArtifact(good, p); err != nil {
		t.Fatal(err)
	}
	musl := good
	musl.Interpreter = "/lib/ld-musl-riscv64.so.1"
	if sandbox.CheckArtifact(musl, p) == nil {
		t.Error("musl loader accepted on the Debian profile")
	}
	soft := good
	soft.FloatABI = "lp64"
	if sandbox.CheckArtifact(soft, p) == nil {
		t.Error("lp64 accepted")
	}
	if sandbox.CheckArtifact(atesor.Artifact{Machine: "EM_X86_64"}, p) == nil {
		t.Error("x86-64 accepted")
	}
}

func FuzzInspectELF(f *testing.F) {
	for _, n := range []string{"riscv64-glibc-hello", "libriscv64-math.a", "riscv64-add.o", "truncated-riscv64", "script.sh"} {
		data, err := os.ReadFile(fixture(f, n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("!<arch>\n"))
	for _, data := range sandboxtest.HostileELFs() {
		f.Add(data)
		f.Add(append([]byte("!<arch>\n"+arMember("bomb.o/", len(data))), data...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := sandbox.InspectELF(bytes.NewReader(data))
		if err == nil && a.Size != int64(len(data)) {
			t.Fatalf("size %d, want %d", a.Size, len(data))
		}
	})
}
