package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

func TestIsNoisePath(t *testing.T) {
	tests := map[string]bool{
		"/workspace/p/build/CMakeFiles/3.31/CompilerIdC/a.out": true,
		"/workspace/p/.git/objects/x":                          true,
		"/workspace/p/build/meson-private/sanity":              true,
		"/workspace/p/conftest":                                true,
		"/workspace/p/autom4te.cache/output.0":                 true,
		"/workspace/p/.libs/libfoo.so.1.2.3":                   false, // libtool's real library
		"/workspace/p/src/.libs/foo":                           false, // libtool's real program
		"/workspace/p/src/.libs/lt-foo":                        true,  // libtool's relinked temporary
		"/workspace/p/src/lt-foo":                              false,
		"/workspace/p/build/libz.so.1":                         false,
		"relative/CMakeFiles/x":                                true,
	}
	for p, want := range tests {
		if got := isNoisePath(p); got != want {
			t.Errorf("isNoisePath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestScanArtifactsLibtool: in an autotools+libtool build the programs and libraries
// under .libs/ are the artifacts; the top-level files of the same names are scripts.
func TestScanArtifactsLibtool(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	for src, dest := range map[string]string{
		"libriscv64-add.so":   ".libs/libadd.so.1.0.0",
		"libriscv64-math.a":   ".libs/libadd.a",
		"riscv64-glibc-hello": "src/.libs/hello",
		"riscv64-add.o":       ".libs/add.o",
		"script.sh":           "src/hello", // the libtool wrapper script
	} {
		if err := h.CopyIn(ctx, fixture(t, src), "/workspace/pkg/"+dest); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.CopyIn(ctx, fixture(t, "riscv64-glibc-hello"), "/workspace/pkg/src/.libs/lt-hello"); err != nil {
		t.Fatal(err)
	}
	arts, err := ScanArtifacts(ctx, h, "/workspace/pkg", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]atesor.ArtifactKind{}
	for _, a := range arts {
		got[a.Path] = a.Kind
	}
	want := map[string]atesor.ArtifactKind{
		"/workspace/pkg/.libs/add.o":           atesor.KindObject,
		"/workspace/pkg/.libs/libadd.a":        atesor.KindStaticLibrary,
		"/workspace/pkg/.libs/libadd.so.1.0.0": atesor.KindSharedLibrary,
		"/workspace/pkg/src/.libs/hello":       atesor.KindExecutable,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
}

func ExampleInspectELF() {
	f, err := os.Open(filepath.Join("..", "testdata", "elf", "riscv64-glibc-hello"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	a, err := InspectELF(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Kind, a.Machine, a.FloatABI, a.Interpreter, a.RISCV64)
	// Output: executable EM_RISCV lp64d /lib/ld-linux-riscv64-lp64d.so.1 true
}

// TestScanArtifactsHostile: a build that leaves a malformed ELF, a FIFO, a socket, a link
// to /dev/zero and to a host file where the scan walks ends with the malformed file as an
// artifact with a problem and the rest skipped, within a second.
func TestScanArtifactsHostile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := newHost(t)
	repo := filepath.Join(h.Root(), "workspace", "pkg")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := h.CopyIn(ctx, fixture(t, "riscv64-glibc-hello"), "/workspace/pkg/hello"); err != nil {
		t.Fatal(err)
	}
	for name, data := range sandboxtest.HostileELFs() {
		if err := os.WriteFile(filepath.Join(repo, "bomb-"+string(name)), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero": "/dev/zero", "passwd": "/etc/passwd", "up": "../../../../etc/passwd"} {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	arts, err := ScanArtifacts(ctx, h, "/workspace/pkg", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("scan took %v", d)
	}
	got := map[string]string{}
	for _, a := range arts {
		got[a.Path] = a.Problem
	}
	if p, ok := got["/workspace/pkg/hello"]; !ok || p != "" {
		t.Errorf("the real program: problem %q, found %v", p, ok)
	}
	for name := range sandboxtest.HostileELFs() {
		p := got["/workspace/pkg/bomb-"+string(name)]
		if !strings.Contains(p, "malformed ELF") {
			t.Errorf("%s: problem %q, want a malformed ELF", name, p)
		}
	}
	if len(arts) != 1+len(sandboxtest.HostileELFs()) {
		t.Errorf("artifacts %v", got)
	}
	if p := got["/workspace/pkg/bomb-"+string(sandboxtest.InterpBomb)]; !strings.Contains(p, "program interpreter claims 68719476736 bytes") {
		t.Errorf("interpreter bomb: %q", p)
	}
}

func TestScanArtifactsHost(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	for _, f := range []string{"riscv64-glibc-hello", "x86_64-hello", "libriscv64-math.a", "script.sh"} {
		if err := h.CopyIn(ctx, fixture(t, f), "/workspace/pkg/out/"+f); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.CopyIn(ctx, fixture(t, "riscv64-glibc-hello"), "/workspace/pkg/CMakeFiles/3.31/CompilerIdC/a.out"); err != nil {
		t.Fatal(err)
	}
	arts, err := ScanArtifacts(ctx, h, "/workspace/pkg", nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, a := range arts {
		paths = append(paths, a.Path)
	}
	want := "/workspace/pkg/out/libriscv64-math.a /workspace/pkg/out/riscv64-glibc-hello /workspace/pkg/out/x86_64-hello"
	if strings.Join(paths, " ") != want {
		t.Errorf("paths = %v", paths)
	}
}

// debianPlatform is the Debian riscv64 profile the checks are run against.
func debianPlatform() atesor.Platform {
	return atesor.Platform{
		Name: "debian", Profile: "debian", DisplayName: "Debian GNU/Linux (trixie)", Libc: "glibc",
		Triplet: "riscv64-linux-gnu", PackageManager: "apt-get", InstallCommand: "apt-get install -y",
		UpdateCommand: "apt-get update", Loader: "/lib/ld-linux-riscv64-lp64d.so.1", FloatABI: "lp64d",
		OSReleaseID: "debian",
	}
}

// newHost is a host sandbox with the repository pkg in a private work directory.
func newHost(t *testing.T) *sandbox.Host {
	t.Helper()
	h, err := sandbox.NewHost(debianPlatform(), sandbox.WithWorkdir(t.TempDir()), sandbox.WithRepo("pkg"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}
