package graph

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/recipe"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/replay"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// The end-to-end tests port real packages in the real Debian riscv64 sandbox. They need
// root, the host tools (qemu-user-static, mmdebstrap, bubblewrap) and Debian's archive.

const (
	zlibFile = "zlib_1.3.dfsg+really1.3.1.orig.tar.gz"
	lz4File  = "lz4_1.10.0.orig.tar.gz"
)

func e2e(t *testing.T) {
	t.Helper()
	tier.Short(t)
	tier.Root(t)
}

// e2eEnv is a state home shared by the end-to-end tests of this package, so the recipe
// cache of one test is seen by the next; the sandbox cache is the default one, shared
// with every other run on the machine.
type e2eEnv struct {
	home, out string
	mem       *memory.Store
	platform  atesor.Platform
	// open, when set, opens the sandbox instead of a plain root-filesystem sandbox.
	open func(context.Context, atesor.Platform) (atesor.Sandbox, error)
	// configure, when set, changes the pipeline's Config (bounds the CLI takes from
	// environment variables).
	configure func(*Config)
}

func newE2EEnv(t *testing.T) *e2eEnv {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	mem, err := memory.Open(memory.ExamplesDir(home), memory.WithRecipeCache(memory.RecipeCachePath(home)), memory.WithSandbox(p.SandboxKey()))
	if err != nil {
		t.Fatal(err)
	}
	return &e2eEnv{home: home, out: t.TempDir(), mem: mem, platform: p}
}

func (e *e2eEnv) pipeline(t *testing.T, prov atesor.Provider, opts ...Option) *Pipeline {
	t.Helper()
	cfg := Config{
		Provider: prov, Memory: e.mem, OutputDir: e.out, RunsDir: filepath.Join(e.home, "runs"),
		OpenSandbox: func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error) {
			if err := sandbox.SetupBinfmt(); err != nil {
				return nil, err
			}
			return sandbox.NewRootfs(ctx, p)
		},
	}
	if e.open != nil {
		cfg.OpenSandbox = e.open
	}
	if e.configure != nil {
		e.configure(&cfg)
	}
	if prov == nil {
		cfg.Provider = nil
	}
	var outside time.Duration
	opts = append(opts, WithEvents(func(ev atesor.Event) {
		if ev.Kind == atesor.EventPhase || ev.Kind == atesor.EventNodeStarted {
			t.Logf("[%6.1fs] %s %s %s", ev.Elapsed.Seconds(), ev.Node, ev.Phase, ev.Line)
		}
		_ = outside
	}))
	p, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *e2eEnv) report(t *testing.T, name string) Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.out, name+"_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// logOverhead reports the share of wall time spent outside sandbox operations.
func logOverhead(t *testing.T, rep Report) {
	if rep.Duration > 0 {
		t.Logf("%s: %.1fs wall, %.1fs in the sandbox, %.2f%% outside sandbox operations",
			rep.Package, rep.Duration.Duration().Seconds(), rep.SandboxSeconds.Duration().Seconds(), 100*float64(rep.Duration-rep.SandboxSeconds)/float64(rep.Duration))
	}
}

func checkVerified(t *testing.T, e *e2eEnv, res *atesor.Result, want ...string) {
	t.Helper()
	checkVerifiedPort(t, e, res, true, want...)
}

// checkVerifiedPort is checkVerified for a package that has tests to run (withTests),
// or none: a tree with no build system has no test target, and its report must not
// claim tests ran.
func checkVerifiedPort(t *testing.T, e *e2eEnv, res *atesor.Result, withTests bool, want ...string) {
	t.Helper()
	if !res.Verified || res.Status != atesor.StatusVerified {
		t.Fatalf("%s: status %s class %s: %s", res.Package, res.Status, res.FailureClass, res.Reason)
	}
	rep := e.report(t, res.Package)
	// Every root-filesystem port says which toolchain ran (accelerated or emulated).
	if rep.Toolchain == nil {
		t.Errorf("%s: the report has no toolchain", res.Package)
	} else {
		t.Logf("%s: toolchain %s", res.Package, rep.Toolchain)
	}
	names := map[string]bool{}
	for _, a := range rep.Artifacts {
		if a.Role != atesor.ArtifactPrimary {
			continue
		}
		names[path.Base(a.Path)] = true
		// A Go package archive is no ELF: its objects' header names the machine.
		goArchive := a.Kind == atesor.KindGoArchive && a.Machine == "riscv64"
		if !a.RISCV64 || a.Machine != "EM_RISCV" && !goArchive {
			t.Errorf("%s: %s is %s", res.Package, a.Path, a.Machine)
		}
		if a.Kind == atesor.KindExecutable && !a.Static && a.Interpreter != e.platform.Loader {
			t.Errorf("%s: %s interpreter %q, want %q", res.Package, a.Path, a.Interpreter, e.platform.Loader)
		}
	}
	for _, w := range want {
		found := false
		for n := range names {
			found = found || strings.HasPrefix(n, w)
		}
		if !found {
			t.Errorf("%s: no primary artifact %s* among %v", res.Package, w, names)
		}
	}
	switch {
	case !withTests && rep.Tests != nil:
		t.Errorf("%s: tests %v ran for a package without tests", res.Package, rep.Tests.Commands)
	case !withTests:
		t.Logf("%s: no tests, as expected", res.Package)
	case rep.Tests == nil:
		t.Errorf("%s: the package tests did not run", res.Package)
	default:
		t.Logf("%s: tests %v passed=%t timed_out=%t in %s", res.Package, rep.Tests.Commands, rep.Tests.Passed, rep.Tests.TimedOut, rep.Tests.Duration)
	}
	md, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil || !recipe.HasSections(string(md)) {
		t.Errorf("%s: recipe: %v", res.Package, err)
	}
	if _, err := os.Stat(filepath.Join(e.out, res.Package+"_artifacts")); err != nil {
		t.Errorf("%s: artifacts not copied out: %v", res.Package, err)
	}
	logOverhead(t, rep)
}

// TestE2EOfflinePorts ports zlib and lz4 offline, then checks that a second run of zlib
// is a cache hit and that zlib's recipe replays to the same artifacts.
func TestE2EOfflinePorts(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	ctx := context.Background()
	zlib := debiantest.SourceTarball(t, "zlib", zlibFile)
	lz4 := debiantest.SourceTarball(t, "lz4", lz4File)

	res, err := e.pipeline(t, nil).Run(ctx, atesor.Request{Source: zlib, TestTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	checkVerified(t, e, res, "libz.so", "libz.a") // what make install installs: minigzip is a build-tree program

	res, err = e.pipeline(t, nil).Run(ctx, atesor.Request{Source: lz4, TestTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	checkVerified(t, e, res, "liblz4", "lz4")

	// (3) The second run of zlib is a cache hit: no sandbox, no model.
	prov := fake.New()
	cfg := Config{Provider: prov, Memory: e.mem, OutputDir: e.out, RunsDir: filepath.Join(e.home, "runs"),
		OpenSandbox: func(context.Context, atesor.Platform) (atesor.Sandbox, error) {
			t.Fatal("a cache hit opened a sandbox")
			return nil, nil
		}}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err = p.Run(ctx, atesor.Request{Source: zlib})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != atesor.StatusCached || len(prov.Calls()) != 0 {
		t.Fatalf("second zlib run: status %s, %d model calls", res.Status, len(prov.Calls()))
	}
	t.Logf("cache hit in %s", time.Since(start))

	// (4) zlib's recipe, replayed in a fresh sandbox (atesor replay), reproduces every
	// primary artifact's SHA-256.
	in, err := replay.ReadInputFrom(filepath.Join(e.out, "zlib_recipe.md"), zlib)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.pipeline(t, nil).Replay(ctx, in, "debian", filepath.Join(t.TempDir(), "replay"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != replay.Reproduced || rep.Compared == 0 {
		t.Errorf("zlib's recipe replayed as %s (%d compared): %+v %s", rep.Verdict, rep.Compared, rep.Differs, rep.Failure)
	}
}

// TestE2EFixerRepairsSample ports our vecsum sample, whose Makefile forces -m64: a
// scripted fixer answer installs a package by another distribution's name (zlib-dev)
// and patches the Makefile, and the port ends verified after one fix. Every command the
// real sandbox ran is the line it was given, and the lines recorded in the state and
// the recipe are the corrected lines that were validated and ran.
func TestE2EFixerRepairsSample(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	prov := fake.New()
	diff := "--- a/Makefile\n+++ b/Makefile\n@@ -2,7 +2,7 @@\n # -m64, which the riscv64 compiler rejects: the port must repair this Makefile.\n CC ?= cc\n-CFLAGS = -O2 -m64 -Wall\n+CFLAGS = -O2 -Wall\n AR ?= ar\n \n all: libvecsum.a vecsum\n"
	ans, _ := json.Marshal(map[string]any{
		"analysis": "riscv64 gcc has no -m64",
		"strategies": []map[string]any{{"id": 1, "description": "drop the x86-only -m64 flag",
			"actions": []map[string]any{{"type": "command", "command": "apt-get install -y zlib-dev"}, {"type": "patch", "file": "Makefile", "diff": diff}}}},
		"recommended_strategy_id": 1,
	})
	prov.Queue(atesor.RoleFixer, string(ans))
	src, _ := filepath.Abs("../testdata/packages/vecsum")
	rec := &execRecorder{}
	e.open = func(ctx context.Context, pl atesor.Platform) (atesor.Sandbox, error) {
		if err := sandbox.SetupBinfmt(); err != nil {
			return nil, err
		}
		sb, err := sandbox.NewRootfs(ctx, pl)
		if err != nil {
			return nil, err
		}
		rec.Rootfs = sb
		return rec, nil
	}
	// The model's answer is the fix: the scripted rules would drop -m64 themselves.
	res, err := e.pipeline(t, prov, WithoutScriptedRepairs()).Run(context.Background(), atesor.Request{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	checkVerified(t, e, res, "vecsum")
	rep := e.report(t, "vecsum")
	if len(rep.Fixes) != 1 || !rep.Fixes[0].Success {
		t.Fatalf("fixes = %+v", rep.Fixes)
	}
	if rep.Patches == nil || *rep.Patches != 1 {
		t.Errorf("the report counts %v patches, want 1", rep.Patches)
	}
	recipe, _ := os.ReadFile(filepath.Join(e.out, "vecsum_recipe.md"))
	if !strings.Contains(string(recipe), "vecsum_patches/001-Makefile.patch") {
		t.Errorf("the patch is not in the recipe:\n%s", recipe)
	}
	if _, err := os.Stat(filepath.Join(e.out, "vecsum_patches", "001-Makefile.patch")); err != nil {
		t.Error(err)
	}
	var st atesor.State
	if b, err := os.ReadFile(filepath.Join(e.out, "vecsum_state.json")); err != nil || json.Unmarshal(b, &st) != nil {
		t.Fatalf("state: %v", err)
	}
	asked, ran := rec.lines()
	if d := cmp.Diff(asked, ran); d != "" {
		t.Errorf("the sandbox ran other lines than it was given (-given +ran):\n%s", d)
	}
	if !slices.Contains(ran, "apt-get install -y zlib1g-dev") || !slices.Contains(st.ExecutedCommands, "apt-get install -y zlib1g-dev") {
		t.Errorf("the corrected install did not run or was not recorded; ran:\n%s", strings.Join(ran, "\n"))
	}
	checkOneLine(t, e.platform, ran, st, string(recipe), nil)
	t.Logf("%d commands ran as given", len(ran))
}

// execRecorder is a root-filesystem sandbox that notes, for every Exec, the line it was
// given and the line it reports having run.
type execRecorder struct {
	*sandbox.Rootfs
	mu         sync.Mutex
	asked, ran []string
}

func (x *execRecorder) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	res, err := x.Rootfs.Exec(ctx, cmd)
	x.mu.Lock()
	x.asked = append(x.asked, cmd.Line)
	x.ran = append(x.ran, res.Line)
	x.mu.Unlock()
	return res, err
}

func (x *execRecorder) lines() (asked, ran []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.asked...), append([]string(nil), x.ran...)
}

// TestE2EResumeAfterKill kills a port with SIGKILL in the middle of its build (the port
// runs in a child process: this test binary re-executed) and resumes it here.
func TestE2EResumeAfterKill(t *testing.T) {
	if os.Getenv("ATESOR_E2E_CHILD") == "1" {
		runChildPort(t)
		return
	}
	e2e(t)
	e := newE2EEnv(t)
	zlib := debiantest.SourceTarball(t, "zlib", zlibFile)
	cmd := exec.Command(os.Args[0], "-test.run=^TestE2EResumeAfterKill$", "-test.v")
	cmd.Env = append(os.Environ(), "ATESOR_E2E_CHILD=1", "CHILD_SOURCE="+zlib, "CHILD_HOME="+e.home, "CHILD_OUT="+e.out)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the build has run for a while, then kill the child outright.
	statePath := filepath.Join(e.out, "zlib_state.json")
	deadline := time.Now().Add(15 * time.Minute)
	for {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child never reached the build")
		}
		time.Sleep(500 * time.Millisecond)
		b, err := os.ReadFile(statePath)
		if err != nil {
			continue
		}
		// The state is saved before the build node starts, and the build log appears with
		// its first command. Kill soon after: with the accelerated toolchain the whole
		// build of zlib takes about 15 s, so a longer wait can miss it.
		var s atesor.State
		if json.Unmarshal(b, &s) == nil && s.NextNode == NodeBuild {
			if _, err := os.Stat(filepath.Join(e.out, "zlib_build.log")); err == nil {
				time.Sleep(2 * time.Second)
				break
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	b, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var killed atesor.State
	if err := json.Unmarshal(b, &killed); err != nil {
		t.Fatal(err)
	}
	if killed.LastNode != NodeHeuristicPlan || killed.BuildSucceeded {
		t.Fatalf("the child was not killed mid-build: last node %s, built %t", killed.LastNode, killed.BuildSucceeded)
	}
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: zlib, Resume: true, TestTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	checkVerified(t, e, res, "libz.so", "libz.a") // what make install installs: minigzip is a build-tree program
}

func runChildPort(t *testing.T) {
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	home, out := os.Getenv("CHILD_HOME"), os.Getenv("CHILD_OUT")
	mem, err := memory.Open(memory.ExamplesDir(home), memory.WithRecipeCache(memory.RecipeCachePath(home)), memory.WithSandbox(p.SandboxKey()))
	if err != nil {
		t.Fatal(err)
	}
	e := &e2eEnv{home: home, out: out, mem: mem, platform: p}
	_, err = e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: os.Getenv("CHILD_SOURCE"), Force: true})
	t.Logf("child ended: %v", err)
}
