package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// debianPlatform is the Debian profile as far as the sandbox needs it.
func debianPlatform() atesor.Platform {
	return atesor.Platform{
		Name: "debian", Profile: "debian", DisplayName: "Debian GNU/Linux (trixie)", Libc: "glibc",
		Triplet: "riscv64-linux-gnu", PackageManager: "apt-get", InstallCommand: "apt-get install -y",
		UpdateCommand: "apt-get update", Loader: "/lib/ld-linux-riscv64-lp64d.so.1", FloatABI: "lp64d",
		OSReleaseID: "debian", Corrections: map[string]string{"yaml-dev": "libyaml-dev", "zlib-dev": "zlib1g-dev"},
	}
}

func needE2E(t testing.TB) {
	t.Helper()
	e2e.Short(t)
	e2e.Root(t)
}

func newE2ERootfs(t testing.TB, ctx context.Context, opts ...sandbox.Option) *sandbox.Rootfs {
	t.Helper()
	start := time.Now()
	opts = append(opts, sandbox.WithProgress(func(p sandbox.Progress) {
		t.Logf("[%s %s] %s", p.Elapsed.Round(time.Second), p.Stage, p.Message)
	}))
	if err := sandbox.SetupBinfmt(); err != nil {
		t.Fatal(err)
	}
	r, err := sandbox.NewRootfs(ctx, debianPlatform(), opts...)
	if err != nil {
		t.Fatalf("NewRootfs: %v", err)
	}
	t.Logf("sandbox ready in %s", time.Since(start).Round(time.Millisecond))
	return r
}

func TestE2ERootfsZlib(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")

	tarball := debiantest.SourceTarball(t, "zlib", "zlib_1.3.dfsg+really1.3.1.orig.tar.gz")
	sb := newE2ERootfs(t, ctx)
	defer sb.Close()

	// The environment allowlist holds inside the real sandbox too.
	res, err := sb.Exec(ctx, atesor.Command{Line: "env; uname -m; stat -c %a /tmp", Dir: "/"})
	if err != nil || !res.OK() {
		t.Fatalf("env: %v %+v", err, res)
	}
	if strings.Contains(res.Stdout, "OPENAI_API_KEY") || strings.Contains(res.Stdout, "sk-must-not-leak") {
		t.Fatalf("API key leaked into the sandbox:\n%s", res.Stdout)
	}
	for _, want := range []string{"HOME=/root", "riscv64", "1777", "DEBIAN_FRONTEND=noninteractive"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("sandbox output lacks %q:\n%s", want, res.Stdout)
		}
	}

	if err := sb.CopyIn(ctx, tarball, "/workspace/zlib"); err != nil {
		t.Fatal(err)
	}
	var live bytes.Buffer
	start := time.Now()
	res, err = sb.Exec(ctx, atesor.Command{Line: "./configure && make -j$(nproc)", Timeout: 30 * time.Minute, Stdout: &live, Stderr: &live})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("zlib build failed (exit %d):\n%s", res.ExitCode, res.Output)
	}
	t.Logf("zlib configured and built in %s", time.Since(start).Round(time.Second))
	if live.Len() == 0 || !strings.Contains(res.Output, "minigzip") {
		t.Errorf("live output %d bytes; result output lacks minigzip", live.Len())
	}

	arts, err := verify.ScanArtifacts(ctx, sb, "/workspace/zlib", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := debianPlatform()
	var sawLib, sawExe, sawArchive bool
	for _, a := range arts {
		base := filepath.Base(a.Path)
		switch {
		case strings.HasPrefix(base, "libz.so.") && a.Kind == atesor.KindSharedLibrary:
			sawLib = true
			if err := verify.CheckArtifact(a, p); err != nil {
				t.Errorf("%s: %v", a.Path, err)
			}
		case base == "minigzip":
			sawExe = true
			if err := verify.CheckArtifact(a, p); err != nil || a.Interpreter != p.Loader || a.Kind != atesor.KindExecutable {
				t.Errorf("%s: %v %+v", a.Path, err, a)
			}
		case base == "libz.a":
			sawArchive = true
			if !a.RISCV64 || a.Members == 0 || a.Kind != atesor.KindStaticLibrary {
				t.Errorf("%s: %+v", a.Path, a)
			}
		}
	}
	if !sawLib || !sawExe || !sawArchive {
		t.Fatalf("artifacts: lib=%v minigzip=%v libz.a=%v in %+v", sawLib, sawExe, sawArchive, arts)
	}
	res, err = sb.Exec(ctx, atesor.Command{Line: "echo hello-riscv | ./minigzip | ./minigzip -d", Timeout: 2 * time.Minute})
	if err != nil || !res.OK() || strings.TrimSpace(res.Stdout) != "hello-riscv" {
		t.Fatalf("minigzip round trip: %v %+v", err, res)
	}
	out := filepath.Join(t.TempDir(), "minigzip")
	if err := sb.CopyOut(ctx, "/workspace/zlib/minigzip", out); err != nil {
		t.Fatal(err)
	}

	// A package installs inside this instance, with the line run as given: package-name
	// corrections are the pipeline's, made before a line is validated, so the sandbox
	// never runs anything but the line it was handed ...
	const install = "apt-get install -y libyaml-dev"
	res, err = sb.Exec(ctx, atesor.Command{Line: install, Network: true, Timeout: 20 * time.Minute})
	if err != nil || !res.OK() {
		t.Fatalf("apt-get install: %v exit=%d\n%s", err, res.ExitCode, res.Output)
	}
	if res.Line != install {
		t.Errorf("the sandbox ran %q, not the line it was given", res.Line)
	}
	if res, err := sb.Exec(ctx, atesor.Command{Line: "test -f /usr/include/yaml.h"}); err != nil || !res.OK() {
		t.Fatalf("yaml.h missing after install: %v %+v", err, res)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	// ... and never reaches the cache or the next instance.
	fresh := newE2ERootfs(t, ctx)
	defer fresh.Close()
	res, err = fresh.Exec(ctx, atesor.Command{Line: "dpkg -s libyaml-dev; test ! -e /usr/include/yaml.h && test ! -e /workspace/zlib", Dir: "/"})
	if err != nil || res.ExitCode == 0 && strings.Contains(res.Stdout, "Status: install ok installed") || !strings.Contains(res.Output, "not installed") {
		t.Fatalf("fresh instance sees the previous run: %v\n%s", err, res.Output)
	}
	if res.ExitCode != 0 {
		t.Fatalf("fresh instance: %s", res.Output)
	}
}

func TestE2ERootfsIsolation(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// A run directory left by a process that died without Close is cleaned up.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	ns, _ := os.Readlink("/proc/self/ns/pid")
	stale := filepath.Join(sandbox.StateHome(), "sandboxes", "runs", "debian-riscv64-crashed-e2e")
	if err := os.MkdirAll(filepath.Join(stale, "upper"), 0o755); err != nil {
		t.Fatal(err)
	}
	owner := fmt.Sprintf(`{"pid": %d, "start": 1, "pidns": %q, "key": "debian-riscv64"}`, dead.Process.Pid, ns)
	if err := os.WriteFile(filepath.Join(stale, "owner.json"), []byte(owner), 0o644); err != nil {
		t.Fatal(err)
	}
	sb := newE2ERootfs(t, ctx, sandbox.WithRepo("iso"))
	defer sb.Close()
	if _, err := os.Stat(stale); err == nil {
		t.Error("the run directory of a dead process survived NewRootfs")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(sb.UpperDir()), "owner.json")); err != nil {
		t.Errorf("the run directory has no owner file: %v", err)
	}
	// Network is off unless asked for.
	res, err := sb.Exec(ctx, atesor.Command{Line: "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '"})
	if err != nil || strings.TrimSpace(res.Stdout) != "lo" {
		t.Errorf("network namespace without network should only have lo: %v %q", err, res.Stdout)
	}
	// A timeout kills the whole tree inside.
	start := time.Now()
	res, err = sb.Exec(ctx, atesor.Command{Line: "sleep 300 & sleep 300", Timeout: 3 * time.Second})
	if err != nil || !res.TimedOut || time.Since(start) > 30*time.Second {
		t.Errorf("timeout: %v %+v after %s", err, res, time.Since(start))
	}
	// A link made by the build cannot redirect a write out of the repository.
	if res, err := sb.Exec(ctx, atesor.Command{Line: "ln -s /etc/passwd evil && ln -s ../../etc/shadow evil2"}); err != nil || !res.OK() {
		t.Fatalf("ln: %v %+v", err, res)
	}
	for _, p := range []string{"/workspace/iso/evil", "evil2"} {
		if err := sb.WriteFile(ctx, p, []byte("x"), 0o644); err == nil {
			t.Errorf("WriteFile(%s) through a link out of the repository succeeded", p)
		}
	}
	if err := sb.WriteFile(ctx, "sub/ok.c", []byte("int x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := sb.ReadFile(ctx, "/workspace/iso/sub/ok.c"); err != nil || string(data) != "int x;\n" {
		t.Fatalf("ReadFile: %v %q", err, data)
	}
}

// BenchmarkE2EExecTrue measures command start inside the riscv64 sandbox; compare with
// BenchmarkHostExecTrue.
func BenchmarkE2EExecTrue(b *testing.B) {
	needE2E(b)
	ctx := context.Background()
	sb := newE2ERootfs(b, ctx)
	defer sb.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res, err := sb.Exec(ctx, atesor.Command{Line: "true", Dir: "/"}); err != nil || !res.OK() {
			b.Fatal(err, res)
		}
	}
}
