package sandbox_test

import (
	"context"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// TestE2ELimits hits the per-command process and memory limits and expects errors that
// name them.
func TestE2ELimits(t *testing.T) {
	needE2E(t)
	for _, c := range sandbox.CheckIsolation(sandbox.Limits{}) {
		if c.Name == "per-command limits" && !c.OK {
			t.Skip("this host gives no cgroup for per-command limits")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	sb := newE2ERootfs(t, ctx, sandbox.WithLimits(sandbox.Limits{Memory: 256 << 20, Pids: 64}))
	defer sb.Close()
	res, err := sb.Exec(ctx, atesor.Command{Line: "for i in $(seq 200); do sleep 20 & done; wait", Dir: "/", Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pids: exit %d\n%s", res.ExitCode, tail(res.Output))
	if res.OK() || !strings.Contains(res.Output, "process limit") {
		t.Errorf("200 processes under a limit of 64: exit %d\n%s", res.ExitCode, tail(res.Output))
	}
	res, err = sb.Exec(ctx, atesor.Command{Line: `awk 'BEGIN { s = "x"; for (;;) s = s s }'`, Dir: "/", Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("memory: exit %d\n%s", res.ExitCode, tail(res.Output))
	if res.OK() || !strings.Contains(res.Output, "memory limit") {
		t.Errorf("an endless allocation under 256 MiB: exit %d\n%s", res.ExitCode, tail(res.Output))
	}
	// A normal command still runs after the limits were hit.
	if res, err := sb.Exec(ctx, atesor.Command{Line: "echo ok", Dir: "/"}); err != nil || strings.TrimSpace(res.Stdout) != "ok" {
		t.Fatalf("after the limits: %v %+v", err, res)
	}
}
