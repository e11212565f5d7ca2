package graph

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/replay"
	"github.com/eclipse-atesor/atesor-go/source"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// Replay runs a port's recipe again in a fresh sandbox, from the same source at the
// same path (/workspace/<repo>) with the same SOURCE_DATE_EPOCH, through the pipeline's
// own machinery (sandbox, source placement, command checks, artifact scan), and compares
// the primary artifacts' SHA-256 with the port's (package replay). The input is checked
// first ([replay.Prepare]), then the source hash (tarball) or commit (git): a different
// source is [replay.ErrSourceChanged]. outDir receives the replay's logs. It returns an
// error only when the replay could not be carried out.
func (p *Pipeline) Replay(ctx context.Context, in replay.Input, platformName, outDir string) (*replay.Result, error) {
	platform, err := profileFor(platformName)
	if err != nil {
		return nil, err
	}
	cmds, refused, err := replay.Prepare(&in)
	if err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", escape.Line(in.Package), err)
	}
	if refused != "" {
		// Nothing has run yet, and nothing will: the verdict says which rule refused what.
		return &replay.Result{Package: in.Package, Sandbox: platform.SandboxKey(), Verdict: replay.Failed, Commands: cmds, Failure: refused}, nil
	}
	src, err := p.fetchSource(ctx, in.Source)
	if err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, source.RedactError(err, in.Source))
	}
	defer src.Close()
	if err := replay.CheckSHA256(in, src.SHA256); err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("graph: replay: %w", err)
	}
	req := atesor.Request{Source: in.Source, Name: in.Package, Platform: platformName, OutputDir: outDir, Force: true}
	r, err := p.newReplayRun(ctx, req, in.Package, platform, src)
	if err != nil {
		return nil, err
	}
	defer r.close()
	start := r.now()
	s := r.state
	r.emit(atesor.Event{Kind: atesor.EventNodeStarted, Node: nodeReplay})
	if err := r.placeSource(ctx, s); err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
	}
	if err := replay.CheckCommit(in, s.SourceCommit); err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
	}
	s.GoToolchain = in.GoToolchain
	res, err := replay.Execute(ctx, in, cmds, replaySteps{r: r, s: s})
	if err != nil {
		if err == ctx.Err() {
			return nil, err
		}
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
	}
	res.Sandbox, res.SourceDateEpoch = platform.SandboxKey(), s.SourceDateEpoch
	res.Duration = r.now().Sub(start)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: nodeReplay, Line: "replay: " + res.Verdict})
	return res, nil
}

// replaySteps are a replay's steps in a run's machinery: patches as a fix applies
// them, the Go toolchain as a port decides it, commands as plan commands, the artifact
// scan of verification.
type replaySteps struct {
	r *run
	s *atesor.State
}

var _ replay.Steps = replaySteps{}

func (st replaySteps) Patch(ctx context.Context, name, diff string) error {
	return st.r.fixApplier(st.s).Patch(ctx, name, diff)
}

func (st replaySteps) PrepareGo(ctx context.Context) error { return st.r.ensureGoToolchain(ctx, st.s) }

func (st replaySteps) Run(ctx context.Context, line string) (atesor.CommandResult, bool, error) {
	return st.r.runPlanCommand(ctx, st.s, nodeReplay, "replay", line)
}

func (st replaySteps) Artifacts(ctx context.Context) ([]atesor.Artifact, error) {
	return verify.ScanArtifacts(ctx, st.r.sb, st.s.RepoDir, st.r.log)
}

// nodeReplay names the replay in events and logs.
const nodeReplay = "replay"

// newReplayRun makes a run for a replay: the port's sandbox opening, logs and command
// machinery, with its saved state kept apart from the port's (resume never sees it).
func (p *Pipeline) newReplayRun(ctx context.Context, req atesor.Request, name string, platform atesor.Platform, src *source.Source) (*run, error) {
	q := &Pipeline{cfg: p.cfg, opts: p.opts}
	q.cfg.RunsDir = filepath.Join(req.OutputDir, ".runs")
	r, err := q.newRun(ctx, req, name, platform, src)
	if err != nil {
		return nil, err
	}
	return r, nil
}
