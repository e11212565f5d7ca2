package graph

import (
	"context"
	"io/fs"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// timedSandbox adds the wall time of every sandbox operation to the run state, so the
// report can tell the pipeline's own overhead from the time spent building, and counts
// the commands the sandbox had to start again.
type timedSandbox struct {
	atesor.Sandbox
	total   *time.Duration
	retries *int
}

var _ atesor.Sandbox = timedSandbox{}

func (t timedSandbox) add(start time.Time) { *t.total += time.Since(start) }

func (t timedSandbox) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	defer t.add(time.Now())
	res, err := t.Sandbox.Exec(ctx, cmd)
	*t.retries += res.StartRetries
	return res, err
}

func (t timedSandbox) CopyIn(ctx context.Context, host, sb string) error {
	defer t.add(time.Now())
	return t.Sandbox.CopyIn(ctx, host, sb)
}

func (t timedSandbox) CopyOut(ctx context.Context, sb, host string) error {
	defer t.add(time.Now())
	return t.Sandbox.CopyOut(ctx, sb, host)
}

func (t timedSandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	defer t.add(time.Now())
	return t.Sandbox.ReadFile(ctx, p)
}

func (t timedSandbox) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	defer t.add(time.Now())
	return t.Sandbox.WriteFile(ctx, p, data, perm)
}

// Unwrap returns the timed sandbox, so [sandbox.As] finds the capabilities it has.
func (t timedSandbox) Unwrap() atesor.Sandbox { return t.Sandbox }

var _ sandbox.Wrapper = timedSandbox{}

// timed wraps sb so its operations are timed into total and its commands' start
// retries counted into retries. The wrapper has no capability of its own: callers find
// what sb can do (host paths, the toolchain report, the gate) through [sandbox.As].
func timed(sb atesor.Sandbox, total *time.Duration, retries *int) atesor.Sandbox {
	return timedSandbox{Sandbox: sb, total: total, retries: retries}
}

// hostPather returns the [sandbox.HostPather] in sb's wrapper chain, if any.
func hostPather(sb atesor.Sandbox) (sandbox.HostPather, bool) {
	var hp sandbox.HostPather
	return hp, sandbox.As(sb, &hp)
}
