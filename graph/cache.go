package graph

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/source"
)

// Cached returns the verified recipe-cache entry that a run of req would use, or nil.
// It touches no sandbox and no provider, so a caller can check the cache before it asks
// for an API key.
func (p *Pipeline) Cached(ctx context.Context, req atesor.Request) (*atesor.CachedRecipe, error) {
	if p.cfg.Memory == nil || req.Force {
		return nil, nil
	}
	req = req.WithDefaults()
	platform, err := profileFor(req.Platform)
	if err != nil {
		return nil, err
	}
	src, err := p.fetchSource(ctx, req.Source)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	name := source.RequestName(req)
	return p.lookup(ctx, name, platform, src)
}

func (p *Pipeline) lookup(ctx context.Context, name string, platform atesor.Platform, src *source.Source) (*atesor.CachedRecipe, error) {
	entry, err := p.cfg.Memory.Recipe(ctx, name, platform.SandboxKey())
	if err != nil || entry == nil || !entry.Verified {
		return nil, err
	}
	switch {
	case src.SHA256 != "":
		if entry.SourceSHA256 != src.SHA256 {
			return nil, nil
		}
	case src.Kind == source.Dir:
		if entry.Source != src.Dir {
			return nil, nil
		}
	default:
		if entry.Source != source.RedactURL(src.Raw) {
			return nil, nil
		}
	}
	return entry, nil
}

// fromCache writes the recipe and a report with status cached from a verified cache
// entry, or returns nil when the cache misses.
func (p *Pipeline) fromCache(ctx context.Context, req atesor.Request, name string, platform atesor.Platform, src *source.Source) (*atesor.Result, error) {
	entry, err := p.lookup(ctx, name, platform, src)
	if err != nil {
		p.cfg.Logger.Warn("recipe cache", "err", err)
		return nil, nil
	}
	if entry == nil {
		return nil, nil
	}
	status, reason := atesor.StatusCached, ""
	hit := fmt.Sprintf("recipe cache hit: %s on %s, built %s", name, entry.Sandbox, entry.LastBuilt.Format(time.DateOnly))
	if entry.TestsFailing {
		status = atesor.StatusTestsFailing
		reason = "the cached port is marked tests_failing: its tests failed after fixes changed source files (" + entry.Tests.Summary() + ")"
		hit += "; " + reason
	} else if n := entry.Tests.FailingCount(); n > 0 {
		hit += "; " + atesor.VerdictLine(status, entry.Tests)
	}
	p.emitInfo(hit)
	now := p.opts.now().UTC()
	s := &atesor.State{
		RunPart:      atesor.RunPart{Version: atesor.StateVersion, RunID: name + "-" + platform.SandboxKey(), Request: req, RepoName: name, Platform: platform, RepoDir: "/workspace/" + name},
		RoutePart:    atesor.RoutePart{Status: status, EscalationReason: reason},
		SourcePart:   atesor.SourcePart{SourceSHA256: entry.SourceSHA256, SourceCommit: entry.SourceCommit},
		AnalysisPart: atesor.AnalysisPart{Analysis: entry.Analysis},
		PlanPart:     atesor.PlanPart{Plan: &entry.Plan, TestCommands: entry.TestCommands, PlanSource: "cache"},
		VerifyPart:   atesor.VerifyPart{Verified: true, Artifacts: entry.Artifacts},
		TestPart:     atesor.TestPart{Tests: entry.Tests},
		OutputPart:   atesor.OutputPart{Recipe: entry.Recipe},
		TimingPart:   atesor.TimingPart{StartedAt: now, FinishedAt: now},
	}
	r := &run{p: p, state: s, src: src, start: now}
	files := r.files()
	if err := os.MkdirAll(req.OutputDir, 0o755); err != nil {
		return nil, fmt.Errorf("graph: the output directory: %w", err)
	}
	if err := writeAtomic(files["recipe"], []byte(entry.Recipe)); err != nil {
		return nil, fmt.Errorf("graph: write recipe: %w", err)
	}
	rep := r.report(s, files)
	rep.BuildSystem = entry.BuildSystem
	// The entry's patches are part of the port even though a cache hit writes no patch
	// files: a replay of these outputs must see that they are missing.
	patches := len(entry.Patches)
	rep.Patches = &patches
	if err := WriteReport(files["report"], &rep); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	res := &atesor.Result{Package: name, Sandbox: platform.SandboxKey(), Status: status, Verified: true, Reason: reason,
		Artifacts: entry.Artifacts, Tests: entry.Tests, Files: map[string]string{}}
	for _, k := range []string{"recipe", "report"} {
		res.Files[k] = files[k]
	}
	return res, nil
}

func (p *Pipeline) emitInfo(line string) {
	if p.opts.events != nil {
		p.opts.events(atesor.Event{Kind: atesor.EventInfo, Line: line})
	}
}
