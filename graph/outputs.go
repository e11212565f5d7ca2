package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// Report is the machine-readable outcome of a run, written as <repo>_report.json.
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
	LLM              atesor.Usage        `json:"llm"`
	Provider         string              `json:"provider,omitempty"`
	Offline          bool                `json:"offline"`
	NodeSeconds      map[string]float64  `json:"node_seconds,omitempty"`
	// SandboxSeconds is the wall time spent in sandbox operations; the rest of Duration
	// is the pipeline's own overhead (and model calls).
	SandboxSeconds float64 `json:"sandbox_seconds"`
	// StartRetries counts the sandbox commands that had to be started again because the
	// sandbox around them could not be set up (an infrastructure fault that was retried;
	// a command that never starts ends the run with failure class infra).
	StartRetries int               `json:"start_retries"`
	Duration     float64           `json:"duration_seconds"`
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
	// Origin is the distribution package the source was resolved from (debian:NAME).
	Origin  *atesor.DistroSource `json:"origin,omitempty"`
	Install *atesor.Install      `json:"install,omitempty"` // the install step, staged files, dev files, how artifacts were chosen
	// Removals are what the fixes took from the original tree; Exports is the export
	// completeness of the primary libraries.
	Removals []atesor.Removal    `json:"removals,omitempty"`
	Exports  *atesor.ExportCheck `json:"exports,omitempty"`

	// Performance is performance mode's result (Request.Optimize).
	Performance *atesor.Performance `json:"performance,omitempty"`
}

// recipeSections are the six H2 sections a recipe has, in this order.
var recipeSections = []string{"Executive Summary", "Prerequisites", "Build Instructions",
	"Architecture Notes", "Verification", "Known Issues & Recommendations"}

// recipeHasSections reports whether md has the six H2 sections in order.
func recipeHasSections(md string) bool {
	at := 0
	for _, sec := range recipeSections {
		re := regexp.MustCompile(`(?m)^##\s+` + regexp.QuoteMeta(sec) + `\s*$`)
		loc := re.FindStringIndex(md[at:])
		if loc == nil {
			return false
		}
		at += loc[1]
	}
	return true
}

// commandsFence is the info string of the machine-readable command block of a recipe.
const commandsFence = "atesor-commands"

// appendCommands appends the fenced block of the exact commands that ran, in order:
// the plan's and the fixes' commands, and the patches to apply.
func appendCommands(md string, s *atesor.State) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(md, "\n"))
	b.WriteString("\n\n## Commands\n\nThe exact commands of this port, in order, run in `" + s.RepoDir + "` inside a fresh `" +
		s.Platform.SandboxKey() + "` sandbox:\n\n```" + commandsFence + "\n")
	if s.SourceDateEpoch > 0 {
		fmt.Fprintf(&b, "# every command runs with SOURCE_DATE_EPOCH=%d (the source's date)\n", s.SourceDateEpoch)
	}
	for _, p := range s.Patches {
		fmt.Fprintf(&b, "# patch -p1 < %s_patches/%s\n", s.RepoName, p.Name)
	}
	for _, c := range s.ExecutedCommands {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// RecipeCommands returns the commands of a recipe's machine-readable block, so a recipe
// can be replayed. Comment lines are skipped.
func RecipeCommands(md string) ([]string, error) {
	start := strings.Index(md, "```"+commandsFence+"\n")
	if start < 0 {
		return nil, fmt.Errorf("the recipe has no %s block", commandsFence)
	}
	body := md[start+len("```"+commandsFence+"\n"):]
	end := strings.Index(body, "```")
	if end < 0 {
		return nil, fmt.Errorf("the %s block is not closed", commandsFence)
	}
	var cmds []string
	for _, l := range strings.Split(body[:end], "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			cmds = append(cmds, l)
		}
	}
	return cmds, nil
}

// fallbackRecipe is the recipe written by code when no model writes one, or the model's
// lacks a section. It has the six sections too.
func fallbackRecipe(s *atesor.State) string {
	var b strings.Builder
	verdict := recipeVerdict(s)
	bs := atesor.BuildUnknown
	if s.Detection != nil {
		bs = s.Detection.BuildSystem
	}
	if s.Analysis != nil && s.Analysis.BuildSystem != "" {
		bs = s.Analysis.BuildSystem
	}
	fmt.Fprintf(&b, "# %s on %s — %s\n\n", s.RepoName, s.Platform.SandboxKey(), verdict)
	b.WriteString("## Executive Summary\n\n")
	if s.Verified {
		fmt.Fprintf(&b, "%s builds natively on riscv64 (%s, %s) with its %s build. Every primary artifact is a riscv64 ELF for the %s ABI and starts in the sandbox.\n\n",
			s.RepoName, s.Platform.DisplayName, s.Platform.Libc, bs, s.Platform.FloatABI)
	} else {
		fmt.Fprintf(&b, "**NOT VERIFIED.** The port of %s did not end verified (failure class: %s). %s\n\n", s.RepoName, orNone(string(s.FailureClass)), s.EscalationReason)
	}
	if s.Analysis != nil && s.Analysis.Purpose != "" {
		fmt.Fprintf(&b, "Package: %s\n\n", s.Analysis.Purpose)
	}
	b.WriteString("## Prerequisites\n\n")
	fmt.Fprintf(&b, "- A %s riscv64 system or sandbox (%s, target %s).\n", s.Platform.DisplayName, s.Platform.Libc, s.Platform.Triplet)
	if s.Detection != nil && len(s.Detection.Dependencies) > 0 {
		var deps []string
		for _, d := range s.Detection.Dependencies {
			deps = append(deps, d.Name)
		}
		fmt.Fprintf(&b, "- Dependencies found in the build files: %s.\n", strings.Join(deps, ", "))
	}
	b.WriteString(goToolchainPrereq(s))
	b.WriteString("\n## Build Instructions\n\n")
	if s.Plan != nil {
		for _, ph := range s.Plan.Phases {
			fmt.Fprintf(&b, "%s:\n\n```sh\n%s\n```\n\n", ph.Name, strings.Join(ph.Commands, "\n"))
		}
	}
	for _, f := range s.FixAttempts {
		if f.Success {
			fmt.Fprintf(&b, "Fix applied (attempt %d): %s\n\n", f.Attempt, f.Strategy)
		}
	}
	b.WriteString("## Architecture Notes\n\n")
	notes := 0
	if s.Detection != nil {
		for _, f := range s.Detection.ArchFindings {
			if notes == 10 {
				break
			}
			fmt.Fprintf(&b, "- %s:%d %s (%s)\n", f.File, f.Line, f.Kind, f.Severity)
			notes++
		}
	}
	if notes == 0 {
		b.WriteString("- No architecture-specific code was found by the scripted scan.\n")
	}
	b.WriteString("\n## Verification\n\n")
	fmt.Fprintf(&b, "Verdict: **%s**.\n\n", verdict)
	for _, a := range s.Artifacts {
		if a.Role == atesor.ArtifactPrimary {
			fmt.Fprintf(&b, "- `%s`: %s, %s, %s, %s\n", rel(s.RepoDir, a.Path), a.Kind, a.Machine, orNone(a.FloatABI), orNone(a.Interpreter))
		}
	}
	for _, p := range s.VerifyProblems {
		fmt.Fprintf(&b, "- problem: %s\n", p)
	}
	b.WriteString(installEvidence(s))
	if ev := testEvidence(s); ev != "" {
		b.WriteString("\n" + ev)
	}
	if ev := hollowEvidence(s); ev != "" {
		b.WriteString("\n" + ev)
	}
	b.WriteString("\n## Known Issues & Recommendations\n\n")
	if len(s.MissingArtifacts) > 0 {
		fmt.Fprintf(&b, "- Expected artifacts not found: %s.\n", strings.Join(s.MissingArtifacts, ", "))
	}
	if s.LastError != nil && !s.Verified {
		fmt.Fprintf(&b, "- Last error (%s): %s\n", s.LastError.Category, firstLine(s.LastError.Message))
	}
	switch t := s.Tests; {
	case t != nil && t.NoTests:
		b.WriteString("- No package test ran: the port is verified by its artifacts alone; add the package's tests to prove it works.\n")
	case t != nil && !t.Passed:
		b.WriteString("- The package tests did not pass under emulation; check them on riscv64 hardware.\n")
	}
	b.WriteString("- Numbers and timings measured under qemu emulation are not hardware numbers.\n")
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// writeOutputs writes the recipe (when set), the patches, the report and the state.
func (r *run) writeOutputs(ctx context.Context, s *atesor.State) {
	files := r.files()
	if s.Recipe != "" {
		if err := os.WriteFile(files["recipe"], []byte(s.Recipe), 0o644); err != nil {
			r.log.Error("write recipe", "err", err)
		}
	}
	if len(s.Patches) > 0 {
		dir := files["patches"]
		if err := os.MkdirAll(dir, 0o755); err == nil {
			for _, p := range s.Patches {
				_ = os.WriteFile(filepath.Join(dir, p.Name), []byte(p.Diff), 0o644)
			}
		}
	}
	s.FinishedAt = r.p.opts.now().UTC()
	s.Duration = s.FinishedAt.Sub(s.StartedAt)
	rep := r.report(s, files)
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := writeAtomic(files["report"], b); err != nil {
		r.log.Error("write report", "err", err)
	}
	r.save(s)
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
		Offline: r.provider == nil, NodeSeconds: map[string]float64{}, Duration: s.Duration.Seconds(),
		SandboxSeconds: s.SandboxTime.Seconds(), StartRetries: s.StartRetries, Install: s.Install,
		StartedAt: s.StartedAt, FinishedAt: s.FinishedAt, Files: map[string]string{},
		Removals: s.Removals, Exports: s.Exports, GoToolchain: s.GoToolchain,
	}
	rep.Performance = s.Performance
	if rep.Artifacts == nil {
		rep.Artifacts = []atesor.Artifact{}
	}
	rep.FixesBySource, rep.FixesByRule = fixCounts(s.FixAttempts)
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
		rep.NodeSeconds[t.Node] += t.Duration.Seconds()
	}
	for k, p := range files {
		if _, err := os.Stat(p); err == nil {
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

func jsonIndent(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }
