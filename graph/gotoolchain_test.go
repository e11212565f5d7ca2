package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/replay"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
	"github.com/eclipse-atesor/atesor-go/source"
)

// fakeFetcher serves the releases listed in served ("go1.27.3/amd64") from a host
// directory with a bin/go, fails others as not served, and returns err for any listed
// in broken.
type fakeFetcher struct {
	dir    string
	served map[string]bool
	broken map[string]error
	calls  []string
}

func (f *fakeFetcher) Fetch(ctx context.Context, ver, arch string) (gotool.Release, error) {
	key := ver + "/" + arch
	f.calls = append(f.calls, key)
	if err := f.broken[key]; err != nil {
		return gotool.Release{}, err
	}
	if !f.served[key] {
		return gotool.Release{}, fmt.Errorf("fake: %s: %w", key, gotool.ErrNotServed)
	}
	return gotool.Release{Version: ver, Arch: arch, Module: "golang.org/toolchain@v0.0.1-" + ver + ".linux-" + arch,
		Sum: "h1:fake=", Dir: f.dir}, nil
}

func newFakeFetcher(t *testing.T, served ...string) *fakeFetcher {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "go"), []byte("go"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fakeFetcher{dir: dir, served: map[string]bool{}, broken: map[string]error{}}
	for _, s := range served {
		f.served[s] = true
	}
	return f
}

// acceleratedSandbox is the fake sandbox reporting an accelerated toolchain.
type acceleratedSandbox struct {
	*sandboxtest.Sandbox
	accel bool
}

func (a acceleratedSandbox) Toolchain() sandbox.Toolchain {
	if a.accel {
		return sandbox.Toolchain{Go: sandbox.ToolchainPart{Accelerated: true}}
	}
	return sandbox.Toolchain{Go: sandbox.ToolchainPart{Reason: "acceleration is turned off (--no-accel)"}}
}

// goToolchainRun is a run over a fake sandbox whose repository has go.mod mod and
// whose go command says it is suite.
func goToolchainRun(t *testing.T, mod, suite string, accel bool, f gotool.Fetcher) (*run, *atesor.State, *sandboxtest.Sandbox) {
	t.Helper()
	r, s, sb := testRunOver(t, atesor.BuildGo)
	r.p.opts.goToolchains = f
	r.sb = acceleratedSandbox{Sandbox: sb, accel: accel}
	if err := sb.WriteFile(context.Background(), s.RepoDir+"/go.mod", []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if suite == "" {
		sb.OnPrefix("GOTOOLCHAIN=local go env GOVERSION", sandboxtest.Fail(127, "sh: 1: go: not found"))
	} else {
		sb.OnPrefix("GOTOOLCHAIN=local go env GOVERSION", sandboxtest.OK(suite+"\n"))
	}
	return r, s, sb
}

// TestEnsureGoToolchainOncePerRun: the run decides its Go toolchain once; a later go
// command neither fetches nor runs anything again, and the wrappers it put in are first
// on the build's PATH.
func TestEnsureGoToolchainOncePerRun(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, sb := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	if err := r.ensureGoToolchain(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if s.GoToolchain == nil || s.GoToolchain.Arch != "amd64" {
		t.Fatalf("toolchain %+v", s.GoToolchain)
	}
	env := buildEnv(s)
	if len(env) == 0 || !strings.HasPrefix(env[0], "PATH=/opt/atesor/go/bin:") {
		t.Errorf("build environment %q does not put the wrappers first", env)
	}
	// Decided once per run.
	n := len(sb.Lines())
	if err := r.ensureGoToolchain(context.Background(), s); err != nil || len(sb.Lines()) != n || len(f.calls) != 2 {
		t.Errorf("second call: err %v, commands %d -> %d, fetches %v", err, n, len(sb.Lines()), f.calls)
	}
}

func TestEnsureGoToolchainUnavailableIsSetupError(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, _ := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", false, f)
	err := r.ensureGoToolchain(context.Background(), s)
	if !errors.Is(err, ErrGoToolchainUnavailable) {
		t.Fatalf("error %v", err)
	}
	if s.FailureClass != atesor.FailureSetup || !strings.Contains(s.EscalationReason, "--no-accel") {
		t.Errorf("class %q reason %q", s.FailureClass, s.EscalationReason)
	}
}

// TestEnsureGoToolchainWrongBinary: a release whose go does not report its version
// in the sandbox is a setup error, not a silent fallback to the suite's Go.
func TestEnsureGoToolchainWrongBinary(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, sb := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	sb.On("go version", sandboxtest.Fail(126, "cannot execute binary file"))
	if err := r.ensureGoToolchain(context.Background(), s); err == nil || s.FailureClass != atesor.FailureSetup {
		t.Fatalf("error %v class %q", err, s.FailureClass)
	}
}

// TestReplayUsesTheRecordedGoToolchain: a replay fetches and uses the release the port
// ran with (here the amd64 build), before the recipe's first go command.
func TestReplayUsesTheRecordedGoToolchain(t *testing.T) {
	src, err := filepath.Abs("../testdata/packages/newgo")
	if err != nil {
		t.Fatal(err)
	}
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	fake := sandboxtest.New(t, p)
	fake.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	f := newFakeFetcher(t, "go1.27.3/amd64")
	pl, err := New(Config{Sandbox: acceleratedSandbox{Sandbox: fake, accel: true}, OutputDir: t.TempDir()}, WithGoToolchains(f))
	if err != nil {
		t.Fatal(err)
	}
	tc := &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", Source: atesor.GoToolchainProxyAMD64, Required: "go1.27.3",
		Module: "golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64", Sum: "h1:fake=", GOROOT: "/opt/atesor/go/go1.27.3"}
	in := replay.Input{Package: "newgo", Source: src, Recipe: "## Commands\n\n```" + recipe.CommandsFence + "\ngo build -buildvcs=false -o bin/ ./...\n```\n",
		Artifacts: []atesor.Artifact{{Path: "/workspace/newgo/bin/newgo", SHA256: "00", Role: atesor.ArtifactPrimary}}, GoToolchain: tc}
	res, err := pl.Replay(context.Background(), in, "debian", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"go1.27.3/amd64"}, f.calls); d != "" {
		t.Errorf("fetches (-want +got):\n%s", d)
	}
	var build *atesor.Command
	for _, c := range fake.Commands() {
		if strings.HasPrefix(c.Line, "go build") {
			build = &c
		}
	}
	if build == nil || len(build.Env) == 0 || !strings.HasPrefix(build.Env[0], "PATH=/opt/atesor/go/bin:") {
		t.Fatalf("the recipe's go build ran with %+v (verdict %s, %s)", build, res.Verdict, res.Failure)
	}
}

// A run resumed into a fresh sandbox puts the fetched release back before it reapplies
// the fixes (which may run the go command) and whatever node resumes runs.
func TestResumeRestoresTheFetchedGoToolchain(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, sb := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	sb.OnPrefix("test -d ", sandboxtest.Fail(1, ""))
	r.src, r.hostTree, r.state = &source.Source{Kind: source.Dir}, t.TempDir(), s
	s.Request.OutputDir = t.TempDir()
	s.GoToolchain = &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", Source: atesor.GoToolchainProxyAMD64, Required: "go1.27.3",
		Module: "golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64", Sum: "h1:fake=", GOROOT: "/opt/atesor/go/go1.27.3"}
	s.FixAttempts = []atesor.FixAttempt{{Attempt: 1, Actions: []atesor.Action{{Type: atesor.ActionCommand, Command: "go mod tidy"}}}}
	if err := r.ensureRepo(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sb.Root(), "opt/atesor/go/go1.27.3/bin/go")); err != nil {
		t.Fatalf("the recorded release is not back in the fresh sandbox: %v", err)
	}
	var tidy *atesor.Command
	version := -1
	for i, c := range sb.Commands() {
		switch {
		case c.Line == "go version":
			version = i
		case c.Line == "go mod tidy":
			tidy = &c
			if version < 0 {
				t.Errorf("the fix ran before the release was checked (commands %q)", sb.Lines())
			}
		}
	}
	if tidy == nil || len(tidy.Env) == 0 || !strings.HasPrefix(tidy.Env[0], "PATH=/opt/atesor/go/bin:") {
		t.Errorf("the reapplied fix ran with %+v", tidy)
	}
}
