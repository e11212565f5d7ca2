package sandbox

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

var debianForTest = atesor.Platform{Name: "debian", Profile: "debian", OSReleaseID: "debian"}

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func mkRun(t *testing.T, runs, name string, owner *runOwner) string {
	t.Helper()
	dir := filepath.Join(runs, name)
	for _, d := range []string{"upper", "work", "merged"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if owner != nil {
		if err := writeOwner(dir, *owner); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCleanStaleRuns(t *testing.T) {
	runs := t.TempDir()
	me := currentOwner("debian-riscv64")
	if me.Start == 0 || me.PIDNS == "" {
		t.Fatalf("currentOwner = %+v", me)
	}
	dead := me
	dead.PID = deadPID(t)
	reused := me // our PID, but another start time: the PID was reused
	reused.Start++
	foreign := dead
	foreign.PIDNS = "pid:[1]"

	live := mkRun(t, runs, "live", &me)
	mkRun(t, runs, "crashed", &dead)
	mkRun(t, runs, "reused", &reused)
	kept := mkRun(t, runs, "kept", nil)
	other := mkRun(t, runs, "other-ns", &foreign)
	var mounted string
	if os.Geteuid() == 0 {
		// The overlay of a crashed run is still mounted: it is unmounted, then removed.
		mounted = mkRun(t, runs, "crashed-mounted", &dead)
		if err := syscall.Mount("tmpfs", filepath.Join(mounted, "merged"), "tmpfs", 0, "size=1m"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Unmount(filepath.Join(mounted, "merged"), syscall.MNT_DETACH) })
		if !isMountPoint(filepath.Join(mounted, "merged")) {
			t.Fatal("isMountPoint does not see the tmpfs")
		}
	}

	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var got []string
	for _, d := range cleanStaleRuns(runs, logger) {
		got = append(got, filepath.Base(d))
	}
	slices.Sort(got)
	want := []string{"crashed", "reused"}
	if mounted != "" {
		want = []string{"crashed", "crashed-mounted", "reused"}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, d := range []string{live, kept, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if mounted != "" && isMountPoint(filepath.Join(mounted, "merged")) {
		t.Error("the stale overlay is still mounted")
	}
	users := liveRuns(runs, "debian-riscv64")
	if len(users) != 2 || liveRuns(runs, "alpine-riscv64") != nil {
		// live (this process) and other-ns (cannot be checked, so counted as live)
		t.Errorf("liveRuns = %+v", users)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/plain`: "/plain", `/x\134y`: `/x\y`, `/end\04`: `/end\04`} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

func writeCache(t *testing.T, home string) cachePaths {
	t.Helper()
	cp := pathsFor(home, debianForTest)
	if err := os.MkdirAll(filepath.Join(cp.rootfs, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cp.rootfs, "etc", "os-release"), []byte(strings.Repeat("ID=debian\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	m := CacheMeta{Platform: cp.key, Suite: "trixie", Created: time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC), OSID: "debian", VersionID: "13"}
	if err := writeMeta(cp.meta, m); err != nil {
		t.Fatal(err)
	}
	return cp
}

func TestCacheStatusAndRemove(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st, err := CacheStatus(ctx, debianForTest, WithHome(home))
	if err != nil || st.State != CacheAbsent || st.Size != 0 || st.Key != "debian-riscv64" {
		t.Fatalf("empty home: %+v %v", st, err)
	}
	if removed, err := RemoveCache(ctx, debianForTest, WithHome(home)); removed || err != nil {
		t.Fatalf("remove of nothing: %v %v", removed, err)
	}

	cp := writeCache(t, home)
	st, err = CacheStatus(ctx, debianForTest, WithHome(home))
	if err != nil || st.State != CacheReady || st.Meta == nil || st.Meta.VersionID != "13" || st.Size < 10000 || st.Path != cp.rootfs || st.Busy {
		t.Fatalf("ready: %+v %v", st, err)
	}

	// While provisioning holds the lock, status says so and removal waits.
	unlock, err := lockFile(ctx, cp.lock)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := CacheStatus(ctx, debianForTest, WithHome(home)); !st.Busy {
		t.Error("status does not see the provisioning lock")
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = RemoveCache(short, debianForTest, WithHome(home))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("remove under a held lock: %v", err)
	}
	unlock()

	// A live run on the cache blocks removal.
	runs := runsDir(home)
	me := currentOwner(cp.key)
	live := mkRun(t, runs, "live", &me)
	if _, err := RemoveCache(ctx, debianForTest, WithHome(home)); !errors.Is(err, ErrCacheInUse) {
		t.Errorf("remove while in use: %v", err)
	}
	os.RemoveAll(live)

	// An interrupted provisioning leaves a temporary tree: incomplete, and removed too.
	leftover := filepath.Join(cp.dir, "."+cp.key+".tmp-123")
	if err := os.MkdirAll(filepath.Join(leftover, "usr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveCache(ctx, debianForTest, WithHome(home)); !removed || err != nil {
		t.Fatalf("remove: %v %v", removed, err)
	}
	for _, p := range []string{cp.rootfs, cp.meta, leftover} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived the removal", p)
		}
	}
	if err := os.MkdirAll(leftover, 0o755); err != nil {
		t.Fatal(err)
	}
	if st, _ := CacheStatus(ctx, debianForTest, WithHome(home)); st.State != CacheIncomplete {
		t.Errorf("leftover only: %+v", st)
	}
}

func TestBwrapArgs(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, []byte("cert"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-host")
	env := AllowedEnv(DefaultPath, SandboxHome, "gcc", "", []string{"FOO=1", "GEMINI_API_KEY=x"})
	base := bwrapSpec{root: "/r", caBundle: ca, env: env, dir: "/workspace/p"}
	has := func(args []string, seq ...string) bool {
		for i := 0; i+len(seq) <= len(args); i++ {
			if slices.Equal(args[i:i+len(seq)], seq) {
				return true
			}
		}
		return false
	}
	off := bwrapArgs(base)
	for _, seq := range [][]string{
		{"bwrap", "--bind", "/r", "/"}, {"--perms", "1777", "--tmpfs", "/tmp"}, {"--unshare-pid"}, {"--unshare-ipc"},
		{"--unshare-uts"}, {"--new-session"}, {"--die-with-parent"}, {"--clearenv"}, {"--unshare-net"},
		{"--ro-bind", ca, caInside}, {"--setenv", "HOME", "/root"}, {"--setenv", "GOFLAGS", "-buildvcs=false"},
		{"--setenv", "CC", "gcc"}, {"--setenv", "FOO", "1"}, {"--chdir", "/workspace/p"},
	} {
		if !has(off, seq...) {
			t.Errorf("no network: %v missing from %v", seq, off)
		}
	}
	if has(off, "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf") {
		t.Error("resolv.conf bound without network")
	}
	joined := strings.Join(off, " ")
	if strings.Contains(joined, "API_KEY") || strings.Contains(joined, "sk-host") {
		t.Errorf("a key reached bwrap: %s", joined)
	}
	on := base
	on.network = true
	args := bwrapArgs(on)
	if has(args, "--unshare-net") {
		t.Error("network namespace unshared although the command wants network")
	}
	if _, err := os.Stat("/etc/resolv.conf"); err == nil && !has(args, "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf") {
		t.Error("resolv.conf not bound with network")
	}
	ro := base
	ro.readOnly, ro.caBundle = true, ""
	if args := bwrapArgs(ro); !has(args, "bwrap", "--ro-bind", "/r", "/") || has(args, "--ro-bind", ca, caInside) {
		t.Errorf("read-only root: %v", args)
	}
	missing := base
	missing.caBundle = filepath.Join(t.TempDir(), "none.crt")
	if args := bwrapArgs(missing); has(args, "--ro-bind", missing.caBundle, caInside) {
		t.Error("a missing CA bundle was bound")
	}
}

func TestCABundlePath(t *testing.T) {
	t.Setenv("SSL_CERT_FILE", "/custom/ca.pem")
	if got := buildOptions(nil).caBundlePath(); got != "/custom/ca.pem" {
		t.Errorf("SSL_CERT_FILE: %q", got)
	}
	if got := buildOptions([]Option{WithCABundle("")}).caBundlePath(); got != "" {
		t.Errorf("disabled: %q", got)
	}
	if got := buildOptions([]Option{WithCABundle("/x.pem")}).caBundlePath(); got != "/x.pem" {
		t.Errorf("configured: %q", got)
	}
}
