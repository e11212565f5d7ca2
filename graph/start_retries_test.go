package graph

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestStartRetriesInReport: commands the sandbox had to start again are counted in the
// report of a run that went on; a command that never started ends the run with failure
// class infra.
func TestStartRetriesInReport(t *testing.T) {
	isBuild := func(c atesor.Command) bool {
		return strings.HasPrefix(c.Line, "make") && !strings.Contains(c.Line, "check")
	}
	t.Run("retried", func(t *testing.T) {
		h := newHarness(t, false)
		h.sb.Add(sandboxtest.Rule{Match: isBuild, Times: 1, Result: atesor.CommandResult{StartRetries: 2},
			Do: func(sb *sandboxtest.Sandbox, _ atesor.Command) {
				copyFile(t, "../testdata/elf/riscv64-glibc-hello", filepath.Join(sb.Root(), "workspace/vecsum/vecsum"))
			}})
		h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.Contains(c.Line, "check") }, Times: 1,
			Result: atesor.CommandResult{StartRetries: 1}})
		res := h.run()
		if !res.Verified {
			t.Fatalf("status = %s (%s), want verified", res.Status, res.Reason)
		}
		if rep := h.report(); rep.StartRetries != 3 {
			t.Errorf("start_retries = %d, want 3", rep.StartRetries)
		}
	})
	t.Run("never started", func(t *testing.T) {
		h := newHarness(t, false)
		h.sb.Add(sandboxtest.Rule{Match: isBuild, Err: errors.New("sandbox: the command did not start, 3 times: bwrap: setting up uid map: Permission denied")})
		res := h.run()
		if res.FailureClass != atesor.FailureInfra || !strings.Contains(res.Reason, "did not start") {
			t.Errorf("class = %s (%s), want infra naming the start", res.FailureClass, res.Reason)
		}
	})
}
