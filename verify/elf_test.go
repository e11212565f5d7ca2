package verify

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
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
		{file: "riscv64-add-go.a", kind: atesor.KindGoArchive, riscv: true, static: true, machine: "riscv64", abi: "lp64d", members: 2},
		{file: "amd64-add-go.a", kind: atesor.KindGoArchive, static: true, machine: "amd64", members: 2},
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
			a, err := InspectELF(f)
			if tc.wantErr {
				if !errors.Is(err, ErrNotELF) {
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
	if err := CheckArtifact(good, p); err != nil {
		t.Fatal(err)
	}
	musl := good
	musl.Interpreter = "/lib/ld-musl-riscv64.so.1"
	if CheckArtifact(musl, p) == nil {
		t.Error("musl loader accepted on the Debian profile")
	}
	soft := good
	soft.FloatABI = "lp64"
	if CheckArtifact(soft, p) == nil {
		t.Error("lp64 accepted")
	}
	if CheckArtifact(atesor.Artifact{Machine: "EM_X86_64"}, p) == nil {
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
		a, err := InspectELF(bytes.NewReader(data))
		if err == nil && a.Size != int64(len(data)) {
			t.Fatalf("size %d, want %d", a.Size, len(data))
		}
	})
}

// TestCheckArtifactISA: an artifact compiled for extensions beyond the platform's
// baseline fails verification naming them, on real fixtures built in the sandbox with
// a leaked -march; a platform that declares a wider baseline accepts the same file.
func TestCheckArtifactISA(t *testing.T) {
	debian := atesor.Platform{Profile: "debian", FloatABI: "lp64d", Loader: "/lib/ld-linux-riscv64-lp64d.so.1", ISABaseline: "rv64gc"}
	rva23 := debian
	rva23.ISABaseline = "rva23u64"
	tests := []struct {
		file     string
		platform atesor.Platform
		isaHas   string
		errHas   string // "" means accepted
	}{
		{"libriscv64-add.so", debian, "rv64i2p1_m2p0", ""},
		{"riscv64-glibc-hello", debian, "rv64i2p1_m2p0", ""},
		{"libriscv64-math.a", debian, "rv64imafdc", ""},
		{"libriscv64-add-rvv.so", debian, "v1p0", "extension(s) v beyond the debian profile's rv64gc baseline"},
		{"libriscv64-add-zbb.so", debian, "zbb", "extension(s) zba, zbb beyond"},
		{"libriscv64-add-rvv.so", rva23, "v1p0", ""},
		{"libriscv64-add-zbb.so", rva23, "zbb", ""},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(fixture(t, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		a, err := InspectELF(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if !strings.Contains(a.ISA, tt.isaHas) {
			t.Errorf("%s: ISA %q lacks %q", tt.file, a.ISA, tt.isaHas)
		}
		err = CheckArtifact(a, tt.platform)
		switch {
		case tt.errHas == "" && err != nil:
			t.Errorf("%s on %s: refused: %v", tt.file, tt.platform.ISABaseline, err)
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("%s on %s: error %v, want one containing %q", tt.file, tt.platform.ISABaseline, err, tt.errHas)
		}
	}
	// Without a declared baseline nothing is checked, and a file without attributes (the
	// Go linker writes none) is not refused for lacking them.
	a, _ := InspectELF(bytes.NewReader(mustRead(t, fixture(t, "libriscv64-add-rvv.so"))))
	if err := CheckArtifact(a, atesor.Platform{Profile: "debian", FloatABI: "lp64d"}); err != nil {
		t.Errorf("no baseline: %v", err)
	}
	a.ISA = ""
	if err := CheckArtifact(a, debian); err != nil {
		t.Errorf("no attributes: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoArchiveArtifact: a Go package archive compiled for linux/riscv64 suits the
// Debian profile and is a primary artifact of the curator's rules; one compiled for
// amd64 does not suit it.
func TestGoArchiveArtifact(t *testing.T) {
	p := debianPlatform()
	for file, ok := range map[string]bool{"riscv64-add-go.a": true, "amd64-add-go.a": false} {
		f, err := os.Open(fixture(t, file))
		if err != nil {
			t.Fatal(err)
		}
		a, err := InspectELF(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckArtifact(a, p); (err == nil) != ok {
			t.Errorf("%s: CheckArtifact = %v, want ok %t", file, err, ok)
		}
		a.Path = "/workspace/add/bin/add.a"
		if got := CurateByRules([]atesor.Artifact{a}, "add", "/workspace/add"); len(got) != 1 || got[0].Role != atesor.ArtifactPrimary {
			t.Errorf("%s: curated %+v", file, got)
		}
	}
}
