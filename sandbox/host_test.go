package sandbox_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func newHost(t *testing.T) *sandbox.Host {
	t.Helper()
	h, err := sandbox.NewHost(debianPlatform(), sandbox.WithWorkdir(t.TempDir()), sandbox.WithRepo("pkg"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestHostEnvAllowlist(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("SOME_HOST_VAR", "x")
	h := newHost(t)
	res, err := h.Exec(context.Background(), atesor.Command{Line: "env", Env: []string{"FOO=bar", "ANTHROPIC_API_KEY=leak"}})
	if err != nil || !res.OK() {
		t.Fatal(err, res)
	}
	for _, bad := range []string{"OPENAI_API_KEY", "sk-secret", "SOME_HOST_VAR", "ANTHROPIC_API_KEY"} {
		if strings.Contains(res.Stdout, bad) {
			t.Errorf("%s visible inside:\n%s", bad, res.Stdout)
		}
	}
	for _, want := range []string{"FOO=bar", "LANG=C.UTF-8", "GIT_TERMINAL_PROMPT=0", "GOFLAGS=-buildvcs=false", "DEBIAN_FRONTEND=noninteractive"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("%s missing:\n%s", want, res.Stdout)
		}
	}
}

func TestHostTimeoutKillsGrandchildren(t *testing.T) {
	h := newHost(t)
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	start := time.Now()
	// The grandchild ignores SIGTERM and outlives its parent shell unless the group dies.
	line := "sh -c 'trap \"\" TERM; echo $$ > " + pidFile + "; exec sleep 30' & sleep 30"
	res, err := h.Exec(context.Background(), atesor.Command{Line: line, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.OK() || time.Since(start) > 10*time.Second {
		t.Fatalf("timed out = %v after %s: %+v", res.TimedOut, time.Since(start), res)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the grandchild never started: %v", err)
	}
	stat := "/proc/" + strings.TrimSpace(string(data)) + "/stat"
	// SIGKILL is delivered at once; give the kernel a moment to tear the process down.
	for deadline := time.Now().Add(5 * time.Second); ; {
		b, err := os.ReadFile(stat)
		if err != nil || strings.Contains(string(b), ") Z ") {
			return // gone, or a zombie waiting for its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild survived the timeout: %s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHostCancelAndOutput(t *testing.T) {
	h := newHost(t)
	var live bytes.Buffer
	res, err := h.Exec(context.Background(), atesor.Command{Line: "echo out; echo err >&2; exit 3", Stdout: &live, Stderr: &live})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" || !strings.Contains(res.Output, "out") || !strings.Contains(live.String(), "err") {
		t.Errorf("%+v live=%q", res, live.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	if _, err := h.Exec(ctx, atesor.Command{Line: "sleep 30"}); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("cancel: err=%v after %s", err, time.Since(start))
	}
	res, _ = h.Exec(context.Background(), atesor.Command{Line: "kill -SEGV $$"})
	if res.Signal != "SIGSEGV" || !res.EmulatorFault {
		t.Errorf("segv: %+v", res)
	}
}

func writeTarGz(t *testing.T, file string, entries map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range entries {
		if target, ok := strings.CutPrefix(body, "->"); ok {
			_ = tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target, Mode: 0o777})
			continue
		}
		_ = tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(body))})
		_, _ = tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHostCopyInOut(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	tgz := filepath.Join(t.TempDir(), "foo-1.0.tar.gz")
	writeTarGz(t, tgz, map[string]string{"foo-1.0/configure": "#!/bin/sh\necho configured\n", "foo-1.0/src/a.c": "int a;\n"})
	if err := h.CopyIn(ctx, tgz, "/workspace/pkg"); err != nil {
		t.Fatal(err)
	}
	res, err := h.Exec(ctx, atesor.Command{Line: "./configure"})
	if err != nil || strings.TrimSpace(res.Stdout) != "configured" {
		t.Fatalf("%v %+v", err, res)
	}
	// A hostile tarball cannot write through its own link.
	evil := filepath.Join(t.TempDir(), "evil.tar.gz")
	writeTarGz(t, evil, map[string]string{"e/link": "->/tmp", "e/x": "1"})
	if err := h.CopyIn(ctx, evil, "/workspace/pkg/e"); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := h.CopyOut(ctx, "/workspace/pkg/src", filepath.Join(out, "src")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(out, "src", "a.c")); err != nil || string(data) != "int a;\n" {
		t.Fatalf("%q %v", data, err)
	}
}

// TestHostGitClone: a local repository clones (through file://), and a submodule on
// this host beside it is not fetched: the host sandbox follows the same rules as the
// others (see TestLocalSubmodulesStayOut).
func TestHostGitClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	dir := t.TempDir()
	gitRepo(t, filepath.Join(dir, "main-work"), map[string]string{"main.txt": "main"})
	gitRun(t, dir, "clone", "-q", "--bare", filepath.Join(dir, "main-work"), filepath.Join(dir, "main.git"))
	h := newHost(t)
	if err := h.CopyIn(ctx, "file://"+filepath.Join(dir, "main.git"), "/workspace/pkg"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ReadFile(ctx, "/workspace/pkg/main.txt"); err != nil {
		t.Errorf("main.txt: %v", err)
	}
}

// gitRun runs git in d with a fixed identity and no user configuration.
func gitRun(t *testing.T, d string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = d
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// gitRepo makes a repository in dir with files, committed.
func gitRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "init")
}

// privateSecret is what the sibling repository holds; no clone may carry it.
const privateSecret = "the-private-repository-secret-5e1f"

// TestLocalSubmodulesStayOut: a local repository whose .gitmodules points beside it on
// this host (url = ../private, an absolute path, a file:// URL) is refused with a reason
// and the private repository's content is nowhere in the clone; with a network remote,
// the relative URL is resolved against that remote, not against the host path.
func TestLocalSubmodulesStayOut(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, url, origin, want string
	}{
		{"relative, no remote", "../private", "", "no network remote"},
		{"absolute path", "PRIVATE", "", "a path on this host"},
		{"file URL", "file://PRIVATE", "", "a path on this host"},
		{"ext transport", "ext::sh -c cat% PRIVATE/secret.txt", "", "a path on this host"},
		{"relative, local remote", "../private", "PRIVATE", "no network remote"},
		{"relative, network remote", "../private", "https://git.invalid/team/public.git", "git.invalid/team/private"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			private := filepath.Join(dir, "private")
			gitRepo(t, private, map[string]string{"secret.txt": privateSecret})
			public := filepath.Join(dir, "public")
			gitRepo(t, public, map[string]string{"README": "public"})
			sub := strings.ReplaceAll(tc.url, "PRIVATE", private)
			gitmodules := "[submodule \"private\"]\n\tpath = private\n\turl = " + sub + "\n"
			if err := os.WriteFile(filepath.Join(public, ".gitmodules"), []byte(gitmodules), 0o644); err != nil {
				t.Fatal(err)
			}
			// The gitlink, as git submodule add records it, at the private repository's commit.
			head, err := exec.Command("git", "-C", private, "rev-parse", "HEAD").Output()
			if err != nil {
				t.Fatal(err)
			}
			gitRun(t, public, "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(string(head))+",private")
			gitRun(t, public, "add", ".gitmodules")
			gitRun(t, public, "commit", "-q", "-m", "submodule")
			if tc.origin != "" {
				gitRun(t, public, "remote", "add", "origin", strings.ReplaceAll(tc.origin, "PRIVATE", private))
			}
			h := newHost(t)
			err = h.CopyIn(ctx, "file://"+public, "/workspace/pkg")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CopyIn = %v, want an error with %q", err, tc.want)
			}
			if !strings.Contains(tc.want, "git.invalid") && !errors.Is(err, sandbox.ErrLocalSubmodule) {
				t.Errorf("%v is not ErrLocalSubmodule", err)
			}
			root, _ := h.HostPath("/workspace/pkg")
			_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(privateSecret)) {
						t.Errorf("the private repository's secret is in the clone: %s", p)
					}
				}
				return nil
			})
		})
	}
}

// BenchmarkHostExecTrue measures command start on the host, for comparison with
// BenchmarkE2EExecTrue.
func BenchmarkHostExecTrue(b *testing.B) {
	h, err := sandbox.NewHost(debianPlatform(), sandbox.WithWorkdir(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if res, err := h.Exec(ctx, atesor.Command{Line: "true", Dir: "/"}); err != nil || !res.OK() {
			b.Fatal(err, res)
		}
	}
}
