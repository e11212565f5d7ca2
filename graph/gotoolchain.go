package graph

import (
	"context"
	"errors"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
)

// ErrGoToolchainUnavailable is wrapped by the setup error of a run whose go.mod needs
// a newer Go than the suite's when neither a linux-riscv64 release nor (with the
// accelerated toolchain) a linux-amd64 release can be fetched.
var ErrGoToolchainUnavailable = gotool.ErrUnavailable

// WithGoToolchains sets how Go releases newer than the suite's are fetched (default:
// [gotool.NewProxyFetcher] with the default state home, which uses the host's go
// command, GOPROXY and GOSUMDB).
func WithGoToolchains(f gotool.Fetcher) Option {
	return func(o *options) { o.goToolchains = f }
}

// ensureGoToolchain runs before the first go command of a build (and of a replay, and
// before a resumed run reapplies its fixes): package gotool decides the Go the port
// uses and puts a fetched release into the sandbox; the run records the decision once.
// A toolchain that cannot be had is a setup failure, with what to do in the message.
func (r *run) ensureGoToolchain(ctx context.Context, s *atesor.State) error {
	if r.goToolchainIn {
		return nil
	}
	cfg := gotool.Setup{Sandbox: r.sb, Fetcher: r.p.goToolchains(), Logger: r.log,
		Emit: r.emitFor(NodeBuild)}
	tc, err := gotool.Ensure(ctx, cfg, gotool.ModPath(s.RepoDir, s.Detection), s.GoToolchain)
	if tc != nil {
		s.GoToolchain = tc
	}
	var se *gotool.SetupError
	if errors.As(err, &se) {
		s.FailureClass = atesor.FailureSetup
		s.EscalationReason = "go toolchain: " + se.Err.Error()
	}
	if err != nil {
		return err
	}
	r.goToolchainIn = true
	return nil
}

// emitFor is the run's event callback for a concern package's events, which carry no
// node name: they are the node's.
func (r *run) emitFor(node string) func(atesor.Event) {
	return func(e atesor.Event) {
		e.Node = node
		r.emit(e)
	}
}

// goToolchains is the pipeline's fetcher of Go releases.
func (p *Pipeline) goToolchains() gotool.Fetcher {
	if p.opts.goToolchains != nil {
		return p.opts.goToolchains
	}
	return gotool.NewProxyFetcher(p.cfg.Home, nil)
}
