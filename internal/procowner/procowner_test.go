package procowner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gone returns the identity of a process that has exited.
func gone(t *testing.T) Process {
	t.Helper()
	cmd := exec.Command("sleep", "0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start, err := StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	p := Process{PID: cmd.Process.Pid, Start: start, PIDNS: Current().PIDNS}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAlive(t *testing.T) {
	me := Current()
	dead := gone(t)
	reused := me
	reused.Start++ // this PID, but a process that started at another time
	otherNS := dead
	otherNS.PIDNS = "pid:[1]"
	for _, tt := range []struct {
		name string
		p    Process
		want bool
	}{
		{"this process", me, true},
		{"a process that exited", dead, false},
		{"a reused PID", reused, false},
		{"another PID namespace", otherNS, true},
	} {
		if got := tt.p.Alive(); got != tt.want {
			t.Errorf("%s (%+v): alive = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

// TestRemoveStale: only directories whose recorded owner is gone are removed; this
// process's, another namespace's, unowned ones, files, and links to a stale directory
// are kept.
func TestRemoveStale(t *testing.T) {
	base := t.TempDir()
	mine, err := MkdirTemp(base, "atesor-src-")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := Read(mine); err != nil || p != Current() {
		t.Fatalf("owner of %s: %+v %v", mine, p, err)
	}
	owned := func(name string, p Process) string {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(dir, "tree", "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(p)
		if err := os.WriteFile(filepath.Join(dir, File), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dead := gone(t)
	stale := owned("atesor-src-dead", dead)
	otherNS := dead
	otherNS.PIDNS = "pid:[1]"
	owned("atesor-src-otherns", otherNS)
	outside := owned("elsewhere-dead", dead) // does not match the pattern
	if err := os.Mkdir(filepath.Join(base, "atesor-src-unowned"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "atesor-src-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(base, "atesor-src-link")); err != nil {
		t.Fatal(err)
	}

	removed, err := RemoveStale(filepath.Join(base, "atesor-src-*"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Stale{{Dir: stale, Owner: dead}}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(base)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	sort.Strings(left)
	want := []string{"atesor-src-file", "atesor-src-link", "atesor-src-otherns", "atesor-src-unowned", filepath.Base(mine), "elsewhere-dead"}
	sort.Strings(want)
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
}
