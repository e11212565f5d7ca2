package sandboxtest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// The fixtures are the module's real ELF files, and a build rule plants them where the
// pipeline's artifact scan finds and verifies them.
func TestBuildRulePlantsRealELFFixtures(t *testing.T) {
	for _, f := range sandboxtest.Fixtures() {
		got, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "elf", string(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("fixture %s differs from testdata/elf", f)
		}
	}
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxtest.New(t, p)
	sb.SetRepo("pkg")
	sb.Add(sandboxtest.BuildRule("make", map[string]sandboxtest.Fixture{
		"pkg":           sandboxtest.RISCV64Executable,
		"lib/libpkg.so": sandboxtest.RISCV64SharedLibrary,
		"libpkg.a":      sandboxtest.RISCV64StaticLibrary,
		"tools/x86":     sandboxtest.X86_64Executable,
	}))
	ctx := context.Background()
	if res, err := sb.Exec(ctx, atesor.Command{Line: "make -j2"}); err != nil || !res.OK() {
		t.Fatalf("make: %+v %v", res, err)
	}
	arts, err := verify.ScanArtifacts(ctx, sb, "/workspace/pkg", nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]atesor.Artifact{}
	for _, a := range arts {
		kinds[filepath.Base(a.Path)] = a
	}
	if a := kinds["pkg"]; a.Kind != atesor.KindExecutable || !a.RISCV64 || a.FloatABI != "lp64d" {
		t.Errorf("pkg = %+v", a)
	}
	if a := kinds["libpkg.so"]; a.Kind != atesor.KindSharedLibrary || !a.RISCV64 {
		t.Errorf("libpkg.so = %+v", a)
	}
	if a := kinds["libpkg.a"]; a.Kind != atesor.KindStaticLibrary || !a.RISCV64 {
		t.Errorf("libpkg.a = %+v", a)
	}
	if a := kinds["x86"]; a.RISCV64 || a.Machine == "" {
		t.Errorf("x86 = %+v", a)
	}
}

func TestPlantErrors(t *testing.T) {
	p, _ := knowledge.Profile("debian")
	sb := sandboxtest.New(t, p)
	if err := sb.Plant("relative", sandboxtest.RISCV64Executable); err == nil {
		t.Error("a relative path without a repository was planted")
	}
	if err := sb.Plant("/workspace/x", sandboxtest.Fixture("nope")); err == nil {
		t.Error("an unknown fixture was planted")
	}
	sb.Add(sandboxtest.BuildRule("make", map[string]sandboxtest.Fixture{"rel": sandboxtest.RISCV64Executable}))
	if res, err := sb.Exec(context.Background(), atesor.Command{Line: "make"}); err != nil || res.OK() {
		t.Errorf("a failed plant did not fail the command: %+v %v", res, err)
	}
}

func TestInstallStepGetsAStagingDirectory(t *testing.T) {
	sb := sandboxtest.New(t, atesor.Platform{Name: "debian"})
	stage := "/workspace/pkg/.atesor-stage"
	host, err := sb.HostPath(stage)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(host, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := sb.Exec(context.Background(), atesor.Command{Line: "rm -rf '" + stage + "' && make install DESTDIR='" + stage + "'"})
	if err != nil || !res.OK() {
		t.Fatalf("%+v %v", res, err)
	}
	entries, err := os.ReadDir(host)
	if err != nil || len(entries) != 0 {
		t.Errorf("the stage is not an empty directory: %v %v", entries, err)
	}
}
