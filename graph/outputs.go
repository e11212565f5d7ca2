package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/cargotool"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/pkgtest"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/repair"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// Report is the machine-readable outcome of a run, written as <repo>_report.json and
// printed by `atesor port --json`, both by [EncodeReport].
type Report struct {
	Package          string              `json:"package"`
	Sandbox          string              `json:"sandbox"`
	Status           atesor.Status       `json:"status"`
	Verified         bool                `json:"verified"`
	FailureClass     atesor.FailureClass `json:"failure_class,omitempty"`
	Reason           string              `json:"reason,omitempty"`
	Source           string              `json:"source"`
	SourceSHA256     string              `json:"source_sha256,omitempty"`
	SourceCommit     string              `json:"source_commit,omitempty"`
	BuildSystem      atesor.BuildSystem  `json:"build_system,omitempty"`
	PlanSource       string              `json:"plan_source,omitempty"`
	Artifacts        []atesor.Artifact   `json:"artifacts"`
	MissingArtifacts []string            `json:"missing_artifacts,omitempty"`
	VerifyProblems   []string            `json:"verify_problems,omitempty"`
	Tests            *atesor.TestResult  `json:"tests,omitempty"`
	Attempts         int                 `json:"attempts"`
	Fixes            []atesor.FixAttempt `json:"fixes,omitempty"`
	// Patches is how many patch files the run wrote to <repo>_patches/ (always set by a
	// run; nil only in reports written before it was recorded), so a replay can tell a
	// missing patch file from a changed one.
	Patches     *int                      `json:"patches,omitempty"`
	LLM         atesor.Usage              `json:"llm"`
	Provider    string                    `json:"provider,omitempty"`
	Offline     bool                      `json:"offline"`
	NodeSeconds map[string]atesor.Seconds `json:"node_seconds,omitempty"`
	// SandboxSeconds is the wall time spent in sandbox operations; the rest of Duration
	// is the pipeline's own overhead (and model calls).
	SandboxSeconds atesor.Seconds `json:"sandbox_seconds"`
	// StartRetries counts the sandbox commands that had to be started again because the
	// sandbox around them could not be set up (an infrastructure fault that was retried;
	// a command that never starts ends the run with failure class infra).
	StartRetries int               `json:"start_retries"`
	Duration     atesor.Seconds    `json:"duration_seconds"`
	StartedAt    time.Time         `json:"started_at"`
	FinishedAt   time.Time         `json:"finished_at"`
	Files        map[string]string `json:"files"`
	// FixesBySource counts the fixes by source (scripted, model); FixesByRule counts
	// the scripted ones by rule.
	FixesBySource map[string]int `json:"fixes_by_source,omitempty"`
	FixesByRule   map[string]int `json:"fixes_by_rule,omitempty"`
	// Toolchain says which toolchain the sandbox ran: the accelerated native compiler
	// backends, binutils and Go tools (with versions) or the emulated ones, and why.
	Toolchain *sandbox.Toolchain `json:"toolchain,omitempty"`
	// GoToolchain is the Go toolchain a Go port ran with: version, architecture and
	// source (suite, or fetched through the Go module proxy for a newer go.mod).
	GoToolchain *atesor.GoToolchain `json:"go_toolchain,omitempty"`
	// Crates is how a cargo port got its dependencies: its source says "distribution"
	// (the distribution's packaged crates, cargo offline) or "registry" (cargo fetched
	// them), with the packages installed and a Cargo.lock set aside.
	Crates *atesor.CargoDeps `json:"crates,omitempty"`
	// Origin is the distribution package the source was resolved from (debian:NAME).
	Origin  *atesor.DistroSource `json:"origin,omitempty"`
	Install *atesor.Install      `json:"install,omitempty"` // the install step, staged files, dev files, how artifacts were chosen
	// ArtifactsReason says in one line why a header-only library's primary artifacts
	// are its test programs, or why it has none ("" for other packages).
	ArtifactsReason string `json:"artifacts_reason,omitempty"`
	// Removals are what the fixes took from the original tree; Exports is the export
	// completeness of the primary libraries.
	Removals []atesor.Removal    `json:"removals,omitempty"`
	Exports  *atesor.ExportCheck `json:"exports,omitempty"`

	// Performance is performance mode's result (Request.Optimize).
	Performance *atesor.Performance `json:"performance,omitempty"`
}

// fallbackRecipe is the recipe written by code when no model writes one, or the model's
// lacks a section (see [recipe.Fallback]), with the evidence of the concerns that ran.
func fallbackRecipe(s *atesor.State) string {
	esc := escapedInstall(s)
	return recipe.Fallback(s, recipe.Evidence{
		Prerequisites: gotool.RecipePrerequisite(s.GoToolchain) + cargotool.RecipePrerequisite(s.Crates),
		Install:       install.Evidence(esc.RepoDir, esc.Install),
		Tests:         pkgtest.Evidence(s.Tests, s.Status),
		Removals:      hollowEvidence(s),
	})
}

// escapedInstall is s with the install step's names (staging directory, development
// files, the reasons and sources it reports) escaped for the inside of a Markdown code
// span, so a file the build named cannot change the recipe's structure.
func escapedInstall(s *atesor.State) *atesor.State {
	if s.Install == nil {
		return s
	}
	c, inst := *s, *s.Install
	c.RepoDir = escape.Code(s.RepoDir)
	inst.StageDir = escape.Code(inst.StageDir)
	inst.Error = escape.Markdown(inst.Error)
	inst.DevFiles = mapStrings(inst.DevFiles, escape.Code)
	inst.TestProgramsFrom = mapStrings(inst.TestProgramsFrom, escape.Markdown)
	c.Install = &inst
	return &c
}

func mapStrings(in []string, f func(string) string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// writeOutputs writes the recipe (when set), the patches, the report and the state,
// each atomically. It writes all it can and returns every failure: a run whose outputs
// are not all on disk must not end as if they were.
func (r *run) writeOutputs(ctx context.Context, s *atesor.State) error {
	files := r.files()
	var errs []error
	if s.Recipe != "" {
		if err := writeAtomic(files[atesor.FileRecipe], []byte(s.Recipe)); err != nil {
			errs = append(errs, fmt.Errorf("write the recipe: %w", err))
		}
	}
	if len(s.Patches) > 0 {
		dir := files[atesor.FilePatches]
		if err := os.MkdirAll(dir, 0o755); err != nil {
			errs = append(errs, fmt.Errorf("write the patches: %w", err))
		} else {
			for _, p := range s.Patches {
				if err := writeAtomic(filepath.Join(dir, p.Name), []byte(p.Diff)); err != nil {
					errs = append(errs, fmt.Errorf("write patch %s: %w", p.Name, err))
				}
			}
		}
	}
	s.FinishedAt = r.p.opts.now().UTC()
	s.Duration = s.FinishedAt.Sub(s.StartedAt)
	rep := r.report(s, files)
	if err := WriteReport(files[atesor.FileReport], &rep); err != nil {
		errs = append(errs, err)
	}
	if err := r.save(s); err != nil {
		errs = append(errs, err)
	}
	err := errors.Join(errs...)
	if err != nil {
		r.log.Error("write outputs", "err", err)
	}
	return err
}

// EncodeReport writes rep as the report document: indented JSON and a newline. It is
// the one encoding of a report, for <repo>_report.json and for `atesor port --json`.
func EncodeReport(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("encode the report: %w", err)
	}
	return nil
}

// WriteReport replaces the report file path with rep ([EncodeReport]), atomically.
func WriteReport(path string, rep *Report) error {
	var b bytes.Buffer
	if err := EncodeReport(&b, rep); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if err := writeAtomic(path, b.Bytes()); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

// ReadReport reads a report file written by [WriteReport].
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the report: %w", err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("report %s: %w", path, err)
	}
	return &rep, nil
}

func (r *run) files() map[string]string {
	out := r.state.Request.OutputDir
	n := r.state.RepoName
	return map[string]string{
		atesor.FileRecipe:    filepath.Join(out, n+"_recipe.md"),
		atesor.FileReport:    filepath.Join(out, n+"_report.json"),
		atesor.FileState:     filepath.Join(out, n+"_state.json"),
		atesor.FilePatches:   filepath.Join(out, n+"_patches"),
		atesor.FileArtifacts: filepath.Join(out, n+"_artifacts"),
		atesor.FileLog:       filepath.Join(out, "agent_"+n+".log"),
		atesor.FileAudit:     filepath.Join(out, llm.AuditFileName(n)),
		atesor.FileBuildLog:  filepath.Join(out, n+"_build.log"),
		atesor.FileInstall:   filepath.Join(out, n+"_install.tar.gz"),
	}
}

func (r *run) report(s *atesor.State, files map[string]string) Report {
	rep := Report{
		Package: s.RepoName, Sandbox: s.Platform.SandboxKey(), Status: s.Status, Verified: s.Verified,
		FailureClass: s.FailureClass, Reason: s.EscalationReason, Source: s.Request.Source,
		SourceSHA256: s.SourceSHA256, SourceCommit: s.SourceCommit, PlanSource: s.PlanSource, Origin: s.Request.Origin,
		Artifacts: s.Artifacts, MissingArtifacts: s.MissingArtifacts, VerifyProblems: s.VerifyProblems,
		Tests: s.Tests, Attempts: s.Attempts, Fixes: s.FixAttempts, LLM: s.Usage, Provider: s.ProviderName,
		Offline: r.provider == nil, NodeSeconds: map[string]atesor.Seconds{}, Duration: atesor.Seconds(s.Duration),
		SandboxSeconds: atesor.Seconds(s.SandboxTime), StartRetries: s.StartRetries, Install: s.Install,
		StartedAt: s.StartedAt, FinishedAt: s.FinishedAt, Files: map[string]string{},
		Removals: s.Removals, Exports: s.Exports, GoToolchain: s.GoToolchain, Crates: s.Crates,
		ArtifactsReason: install.ArtifactsReason(s.Install),
	}
	patches := len(s.Patches)
	rep.Patches = &patches
	rep.Performance = s.Performance
	if rep.Artifacts == nil {
		rep.Artifacts = []atesor.Artifact{}
	}
	rep.FixesBySource, rep.FixesByRule = repair.CountFixes(s.FixAttempts)
	var tr sandbox.ToolchainReporter
	if sandbox.As(r.sb, &tr) {
		t := tr.Toolchain()
		rep.Toolchain = &t
	}
	if s.Analysis != nil {
		rep.BuildSystem = s.Analysis.BuildSystem
	} else if s.Detection != nil {
		rep.BuildSystem = s.Detection.BuildSystem
	}
	for _, t := range s.Timings {
		rep.NodeSeconds[t.Node] += atesor.Seconds(t.Duration)
	}
	for k, p := range files {
		if _, err := os.Stat(p); err == nil || k == atesor.FileReport {
			// The report lists itself: it is being written, and a run whose report
			// cannot be written fails.
			rep.Files[k] = p
		}
	}
	return rep
}

// result is the Result of the finished run.
func (r *run) result() *atesor.Result {
	s := r.state
	res := &atesor.Result{
		Package: s.RepoName, Sandbox: s.Platform.SandboxKey(), Status: s.Status, Verified: s.Verified,
		FailureClass: s.FailureClass, Reason: s.EscalationReason, Tests: s.Tests, Attempts: s.Attempts,
		Usage: s.Usage, Duration: s.Duration, Files: map[string]string{}, State: s,
	}
	for _, a := range s.Artifacts {
		if a.Role == atesor.ArtifactPrimary {
			res.Artifacts = append(res.Artifacts, a)
		}
	}
	for k, p := range r.files() {
		if _, err := os.Stat(p); err == nil {
			res.Files[k] = p
		}
	}
	return res
}

// patchName names the n-th patch file after the file it changes.
func patchName(n int, file string) string {
	clean := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(strings.TrimPrefix(path.Clean("/"+file), "/"), "-")
	return fmt.Sprintf("%03d-%s.patch", n, clean)
}
