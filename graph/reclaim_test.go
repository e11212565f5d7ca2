package graph

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/procowner"
	"github.com/eclipse-atesor/atesor-go/source"
)

// TestRunReclaimsTempDirsOfDeadRuns: a run removes the temporary directories a killed
// run left behind (its unpacked source, its copied-out clone) and says so, and leaves a
// live run's alone.
func TestRunReclaimsTempDirsOfDeadRuns(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dead := procowner.Process{PID: cmd.Process.Pid, PIDNS: procowner.Current().PIDNS}
	dead.Start, _ = procowner.StartTime(dead.PID)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	leftover := func(name string, owner procowner.Process) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(dir, "tree"), 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(owner)
		if err := os.WriteFile(filepath.Join(dir, procowner.File), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	deadSrc := leftover(source.TempPrefix+"1", dead)
	deadTree := leftover(source.TreeTempPrefix+"2", dead)
	live := leftover(source.TempPrefix+"3", procowner.Current())

	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	h.run()
	for _, d := range []string{deadSrc, deadTree} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s of a dead run is still there (%v)", d, err)
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's directory was removed: %v", err)
	}
	said := 0
	for _, e := range h.events {
		if e.Kind == atesor.EventInfo && strings.Contains(e.Line, "reclaimed") {
			said++
		}
	}
	if said != 2 {
		t.Errorf("%d reclaim events, want 2: %+v", said, h.events)
	}
}
