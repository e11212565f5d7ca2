package provision

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
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
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

func mkRun(t *testing.T, runs, name string, owner *RunOwner) string {
	t.Helper()
	dir := filepath.Join(runs, name)
	for _, d := range []string{"upper", "work", "merged"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if owner != nil {
		if err := WriteOwner(dir, *owner); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCleanStaleRuns(t *testing.T) {
	runs := t.TempDir()
	me := CurrentOwner("debian-riscv64")
	if me.Start == 0 || me.PIDNS == "" {
		t.Fatalf("CurrentOwner = %+v", me)
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

	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var got []string
	for _, d := range CleanStaleRuns(runs, logger) {
		got = append(got, filepath.Base(d))
	}
	slices.Sort(got)
	want := []string{"crashed", "reused"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, d := range []string{live, kept, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	users := LiveRuns(runs, "debian-riscv64")
	if len(users) != 2 || LiveRuns(runs, "alpine-riscv64") != nil {
		// live (this process) and other-ns (cannot be checked, so counted as live)
		t.Errorf("LiveRuns = %+v", users)
	}
}

// TestE2ECleanStaleRunsUnmounts: the overlay of a crashed run that is still mounted is
// unmounted, then its directory removed (a real mount: end-to-end tier).
func TestE2ECleanStaleRunsUnmounts(t *testing.T) {
	e2e.Short(t)
	e2e.Root(t)
	runs := t.TempDir()
	dead := CurrentOwner("debian-riscv64")
	dead.PID = deadPID(t)
	mounted := mkRun(t, runs, "crashed-mounted", &dead)
	merged := filepath.Join(mounted, "merged")
	if err := syscall.Mount("tmpfs", merged, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(merged, syscall.MNT_DETACH) })
	if !isMountPoint(merged) {
		t.Fatal("isMountPoint does not see the tmpfs")
	}
	removed := CleanStaleRuns(runs, slog.New(slog.DiscardHandler))
	if len(removed) != 1 || removed[0] != mounted {
		t.Errorf("removed %v, want %s", removed, mounted)
	}
	if isMountPoint(merged) {
		t.Error("the stale overlay is still mounted")
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/plain`: "/plain", `/x\134y`: `/x\y`, `/end\04`: `/end\04`} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

func writeCache(t *testing.T, home string) Paths {
	t.Helper()
	cp := PathsFor(home, debianForTest)
	if err := os.MkdirAll(filepath.Join(cp.Rootfs, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cp.Rootfs, "etc", "os-release"), []byte(strings.Repeat("ID=debian\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	m := CacheMeta{Platform: cp.Key, Suite: "trixie", Created: time.Date(2025, 11, 1, 8, 0, 0, 0, time.UTC), OSID: "debian", VersionID: "13"}
	if err := writeMeta(cp.Meta, m); err != nil {
		t.Fatal(err)
	}
	return cp
}

func TestCacheStatusAndRemove(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st, err := CacheStatus(ctx, debianForTest, home)
	if err != nil || st.State != CacheAbsent || st.Size != 0 || st.Key != "debian-riscv64" {
		t.Fatalf("empty home: %+v %v", st, err)
	}
	if removed, err := RemoveCache(ctx, debianForTest, home); removed || err != nil {
		t.Fatalf("remove of nothing: %v %v", removed, err)
	}

	cp := writeCache(t, home)
	st, err = CacheStatus(ctx, debianForTest, home)
	if err != nil || st.State != CacheReady || st.Meta == nil || st.Meta.VersionID != "13" || st.Size < 10000 || st.Path != cp.Rootfs || st.Busy {
		t.Fatalf("ready: %+v %v", st, err)
	}

	// While provisioning holds the lock, status says so and removal waits.
	unlock, err := lockFile(ctx, cp.Lock)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := CacheStatus(ctx, debianForTest, home); !st.Busy {
		t.Error("status does not see the provisioning lock")
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = RemoveCache(short, debianForTest, home)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("remove under a held lock: %v", err)
	}
	unlock()

	// A live run on the cache blocks removal.
	runs := RunsDir(home)
	me := CurrentOwner(cp.Key)
	live := mkRun(t, runs, "live", &me)
	if _, err := RemoveCache(ctx, debianForTest, home); !errors.Is(err, ErrCacheInUse) {
		t.Errorf("remove while in use: %v", err)
	}
	os.RemoveAll(live)

	// An interrupted provisioning leaves a temporary tree: incomplete, and removed too.
	leftover := filepath.Join(cp.Dir, "."+cp.Key+".tmp-123")
	if err := os.MkdirAll(filepath.Join(leftover, "usr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveCache(ctx, debianForTest, home); !removed || err != nil {
		t.Fatalf("remove: %v %v", removed, err)
	}
	for _, p := range []string{cp.Rootfs, cp.Meta, leftover} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived the removal", p)
		}
	}
	if err := os.MkdirAll(leftover, 0o755); err != nil {
		t.Fatal(err)
	}
	if st, _ := CacheStatus(ctx, debianForTest, home); st.State != CacheIncomplete {
		t.Errorf("leftover only: %+v", st)
	}
}
