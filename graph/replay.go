package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/source"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// The verdicts of a replay.
const (
	// ReplayReproduced: every primary artifact of the port was rebuilt with the same SHA-256.
	ReplayReproduced = "reproduced"
	// ReplayDiffers: the commands ran, but some primary artifact is missing or differs.
	ReplayDiffers = "differs"
	// ReplayFailed: a command of the recipe failed, or a patch did not apply.
	ReplayFailed = "failed"
)

// ErrSourceChanged is returned (wrapped) when the source of a replay is not the one the
// port was built from.
var ErrSourceChanged = errors.New("the source is not the one the recipe was made from")

// ReplayInput is what a replay needs of a port: the recipe (its command block), the
// source and its hash, the patches, and the primary artifacts with their hashes. Read
// it from a recipe file and its report with [ReadReplayInput], or from a recipe-cache
// entry with [ReplayInputFromCache].
type ReplayInput struct {
	Package      string
	Source       string
	SourceSHA256 string
	SourceCommit string
	Recipe       string
	// Patches are the unified diffs of the port's source changes, applied in order
	// before the commands.
	Patches []string
	// Artifacts are the port's primary artifacts (path and SHA-256).
	Artifacts []atesor.Artifact
	// GoToolchain is the Go toolchain the port ran with (from its report); a fetched
	// release is fetched and used again. Without it a go.mod that needs a newer Go
	// than the suite's is handled as in a port.
	GoToolchain *atesor.GoToolchain
}

// ReadReplayInput reads <repo>_recipe.md, the <repo>_report.json next to it and the
// patches in <repo>_patches/, with the source the report names. A recipe folder may come
// from someone else, so the report may name only a source every machine reaches and
// checks: a tarball URL with its SHA-256, or a git URL with its commit. A report that
// names a path on this host (a directory, a local tarball, a file:// repository) is
// refused with [ErrHostSource]: use [ReadReplayInputFrom] with the source named by the
// user.
func ReadReplayInput(recipePath string) (ReplayInput, error) {
	return ReadReplayInputFrom(recipePath, "")
}

// ReadReplayInputFrom is [ReadReplayInput] with the source the user names (a directory,
// a tarball or a URL); "" takes the report's, under the rules of ReadReplayInput. The
// report's SHA-256 or commit is still checked against the named source by [Pipeline.Replay].
func ReadReplayInputFrom(recipePath, source string) (ReplayInput, error) {
	md, err := os.ReadFile(recipePath)
	if err != nil {
		return ReplayInput{}, fmt.Errorf("read the recipe: %w", err)
	}
	prefix := strings.TrimSuffix(recipePath, "_recipe.md")
	if prefix == recipePath {
		return ReplayInput{}, fmt.Errorf("recipe %s: a recipe file is named <package>_recipe.md, next to its <package>_report.json", recipePath)
	}
	b, err := os.ReadFile(prefix + "_report.json")
	if err != nil {
		return ReplayInput{}, fmt.Errorf("the recipe's report (with the artifact hashes to compare): %w", err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return ReplayInput{}, fmt.Errorf("report %s_report.json: %w", prefix, err)
	}
	in := ReplayInput{Package: rep.Package, Source: rep.Source, SourceSHA256: rep.SourceSHA256, SourceCommit: rep.SourceCommit,
		Recipe: string(md), Artifacts: primaryArtifacts(rep.Artifacts), GoToolchain: rep.GoToolchain}
	if rep.Package == "" || rep.Source == "" {
		return ReplayInput{}, fmt.Errorf("report %s_report.json names no package or source", prefix)
	}
	if source != "" {
		in.Source = source
	} else if err := reportedSourceOK(rep.Source, rep.SourceSHA256, rep.SourceCommit); err != nil {
		return ReplayInput{}, fmt.Errorf("report %s_report.json: %w", prefix, err)
	}
	patches, _ := filepath.Glob(prefix + "_patches/*.patch")
	sort.Strings(patches)
	if rep.Patches != nil && *rep.Patches != len(patches) {
		return ReplayInput{}, fmt.Errorf("report %s_report.json counts %d patch(es) but %s_patches/ holds %d: the port's patch files are incomplete; restore them from the port's outputs", prefix, *rep.Patches, prefix, len(patches))
	}
	for _, p := range patches {
		d, err := os.ReadFile(p)
		if err != nil {
			return ReplayInput{}, fmt.Errorf("read patch: %w", err)
		}
		in.Patches = append(in.Patches, string(d))
	}
	return in, nil
}

// ReplayInputFromCache is the replay input of a recipe-cache entry. The cache is the
// user's own (only verified ports enter it), so its source is used as recorded.
func ReplayInputFromCache(e atesor.CachedRecipe) ReplayInput {
	return ReplayInput{Package: e.Package, Source: e.Source, SourceSHA256: e.SourceSHA256, SourceCommit: e.SourceCommit,
		Recipe: e.Recipe, Patches: e.Patches, Artifacts: primaryArtifacts(e.Artifacts)}
}

// ArtifactDiff is a primary artifact a replay did not reproduce.
type ArtifactDiff struct {
	Path string `json:"path"`
	Want string `json:"want_sha256"`
	// Got is the replayed file's SHA-256; "" when the replay did not build it.
	Got string `json:"got_sha256,omitempty"`
}

// ReplayResult is the outcome of a replay.
type ReplayResult struct {
	Package string `json:"package"`
	Sandbox string `json:"sandbox"`
	Verdict string `json:"verdict"`
	// Compared counts the primary artifacts compared.
	Compared int            `json:"compared"`
	Differs  []ArtifactDiff `json:"differs,omitempty"`
	// Failure says which command failed and how, for ReplayFailed.
	Failure         string   `json:"failure,omitempty"`
	Commands        []string `json:"commands"`
	SourceDateEpoch int64    `json:"source_date_epoch,omitempty"`
	// Duration is the replay's wall time (JSON: duration_seconds).
	Duration time.Duration `json:"-"`
	Seconds  float64       `json:"duration_seconds"`
}

// Replay runs a port's recipe again in a fresh sandbox, from the same source at the
// same path (/workspace/<repo>) with the same SOURCE_DATE_EPOCH, through the pipeline's
// own machinery (sandbox, source placement, command checks, artifact scan), and compares
// the primary artifacts' SHA-256 with the port's. The source hash (tarball) or commit
// (git) is checked first: a different source is [ErrSourceChanged]. outDir receives the
// replay's logs. It returns an error only when the replay could not be carried out.
func (p *Pipeline) Replay(ctx context.Context, in ReplayInput, platformName, outDir string) (*ReplayResult, error) {
	platform, err := profileFor(platformName)
	if err != nil {
		return nil, err
	}
	if err := checkReplayInput(&in); err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", escape.Line(in.Package), err)
	}
	cmds, err := recipe.Commands(in.Recipe)
	if err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
	}
	if len(in.Artifacts) == 0 {
		return nil, fmt.Errorf("graph: replay %s: the port has no primary artifact to compare", in.Package)
	}
	if refused := refusedReplay(cmds, in.Patches, "/workspace/"+in.Package); refused != "" {
		// Nothing has run yet, and nothing will: the verdict says which rule refused what.
		return &ReplayResult{Package: in.Package, Sandbox: platform.SandboxKey(), Verdict: ReplayFailed, Commands: cmds, Failure: refused}, nil
	}
	src, err := fetchSource(ctx, in.Source)
	if err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, source.RedactError(err, in.Source))
	}
	defer src.Close()
	if in.SourceSHA256 != "" && src.SHA256 != in.SourceSHA256 {
		return nil, fmt.Errorf("graph: replay %s: %w: %s has SHA-256 %s, the port's was %s", in.Package, ErrSourceChanged, source.RedactURL(in.Source), src.SHA256, in.SourceSHA256)
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
	res := &ReplayResult{Package: in.Package, Sandbox: platform.SandboxKey(), Commands: cmds}
	finish := func(v string) (*ReplayResult, error) {
		res.Verdict, res.SourceDateEpoch = v, s.SourceDateEpoch
		res.Duration = r.now().Sub(start)
		res.Seconds = res.Duration.Seconds()
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: nodeReplay, Line: "replay: " + v})
		return res, nil
	}
	r.emit(atesor.Event{Kind: atesor.EventNodeStarted, Node: nodeReplay})
	if err := r.placeSource(ctx, s); err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
	}
	if in.SourceCommit != "" && s.SourceCommit != "" && s.SourceCommit != in.SourceCommit {
		return nil, fmt.Errorf("graph: replay %s: %w: the clone is at commit %s, the port's was %s", in.Package, ErrSourceChanged, s.SourceCommit, in.SourceCommit)
	}
	for i, d := range in.Patches {
		if err := r.applyPatch(ctx, s, atesor.Action{Type: atesor.ActionPatch, File: fmt.Sprintf("patch %d", i+1), Diff: d}); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Failure = err.Error()
			return finish(ReplayFailed)
		}
	}
	s.GoToolchain = in.GoToolchain
	for _, line := range cmds {
		if gotool.UsesGo(line) {
			if err := r.ensureGoToolchain(ctx, s); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				res.Failure = err.Error()
				return finish(ReplayFailed)
			}
		}
		out, failed, err := r.runPlanCommand(ctx, s, nodeReplay, "replay", line)
		if err != nil {
			return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
		}
		if failed {
			res.Failure = fmt.Sprintf("`%s` failed (exit %d): %s", line, out.ExitCode, tail(strings.TrimSpace(out.Output), 1000))
			return finish(ReplayFailed)
		}
	}
	arts, err := verify.ScanArtifacts(ctx, r.sb, s.RepoDir, r.log)
	if err != nil {
		return nil, fmt.Errorf("graph: replay %s: %w", in.Package, err)
	}
	res.Differs, res.Compared = compareArtifacts(in.Artifacts, arts), len(in.Artifacts)
	if len(res.Differs) > 0 {
		return finish(ReplayDiffers)
	}
	return finish(ReplayReproduced)
}

// nodeReplay names the replay in events and logs.
const nodeReplay = "replay"

// compareArtifacts lists the wanted artifacts that the replayed ones do not match by
// path and SHA-256.
func compareArtifacts(want, got []atesor.Artifact) []ArtifactDiff {
	byPath := map[string]string{}
	for _, a := range got {
		byPath[a.Path] = a.SHA256
	}
	var diffs []ArtifactDiff
	for _, w := range want {
		if g := byPath[w.Path]; g != w.SHA256 {
			diffs = append(diffs, ArtifactDiff{Path: w.Path, Want: w.SHA256, Got: g})
		}
	}
	return diffs
}

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
