package atesor

import "time"

// Detection is the scripted (zero-LLM) analysis of a source tree, made by package
// knowledge and kept in the run state.
type Detection struct {
	BuildSystem BuildSystem `json:"build_system"`
	Confidence  float64     `json:"confidence"`
	// Evidence is the file that proves the build system, relative to the repository.
	Evidence string `json:"evidence"`
	// ShippedConfigure is true when a configure script ships, so no autoreconf is needed.
	ShippedConfigure bool `json:"shipped_configure,omitempty"`
	// BuildDir is the directory (relative to the repository) the build runs in, when the
	// build files are not at the top level (a Go module or Cargo crate in a subdirectory).
	BuildDir string `json:"build_dir,omitempty"`
	// OutdatedConfigScripts are the shipped config.guess and config.sub files that do not
	// know riscv64; configure fails with "cannot guess build type" until they are
	// replaced by current copies.
	OutdatedConfigScripts []string `json:"outdated_config_scripts,omitempty"`
	// TestTargets are the test targets (check, test) the top-level Makefile defines.
	TestTargets  []string         `json:"test_targets,omitempty"`
	Language     string           `json:"language,omitempty"`
	Dependencies []Dependency     `json:"dependencies"`
	HasMain      bool             `json:"has_main"`
	MainPath     string           `json:"main_path,omitempty"`
	ModuleDir    string           `json:"module_dir,omitempty"`
	HasCGO       bool             `json:"has_cgo,omitempty"`
	ArchFindings []ArchFinding    `json:"arch_findings,omitempty"`
	Alternatives []BuildCandidate `json:"alternatives,omitempty"`
	// GoCommands are the module's command (main package) directories relative to the
	// module, best first, without helpers (examples, tests, tools); the default plan
	// builds each of them. Empty for a library module.
	GoCommands []string `json:"go_commands,omitempty"`
	// GoPortableTags are the build tags the module's own build constraints use to switch
	// architecture-specific code (assembly) for a portable path: purego, noasm, ...
	GoPortableTags []string `json:"go_portable_tags,omitempty"`
	// GoArtifacts are the files the default Go plan writes, relative to the module: each
	// command as go install names it (bin/tool) or, for a library, each package's test
	// binary (bin/pkg.test).
	GoArtifacts []string `json:"go_artifacts,omitempty"`
}

// BuildCandidate is a build system marker detection found but ranked lower.
type BuildCandidate struct {
	BuildSystem BuildSystem `json:"build_system"`
	Evidence    string      `json:"evidence"`
	Confidence  float64     `json:"confidence"`
}

// Severity ranks an architecture finding.
type Severity string

// The severities of architecture findings.
const (
	SeverityLow      Severity = "low"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

// ArchFinding is architecture-specific code found in the sources: x86/ARM macros, SIMD
// intrinsics, inline assembly, or -m64/-march flags in build files.
type ArchFinding struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Kind     string   `json:"kind"`
	Snippet  string   `json:"snippet"`
	Severity Severity `json:"severity"`
	// Guarded is true when the code sits behind an architecture #if with a portable
	// #else, so riscv64 compiles the fallback.
	Guarded bool `json:"guarded,omitempty"`
}

// Patch is a change a fix made to the package's sources, kept for the recipe.
type Patch struct {
	Name string `json:"name"` // file name under <repo>_patches/
	File string `json:"file"` // repository path the patch changes
	Diff string `json:"diff"`
}

// NodeTiming is how long one node run took.
type NodeTiming struct {
	Node string `json:"node"`
	// Duration is the node's wall time (JSON: seconds).
	Duration time.Duration `json:"-"`
}

// State is the run state of one port. It is saved as JSON after every node and must
// round-trip through JSON and gob: exported fields only, errors as strings.
type State struct {
	RunID    string   `json:"run_id"`
	Request  Request  `json:"request"`
	RepoName string   `json:"repo_name"`
	Platform Platform `json:"platform"`
	// RepoDir is the package's directory inside the sandbox (/workspace/<repo>).
	RepoDir string `json:"repo_dir"`
	// SourceSHA256 and SourceCommit identify the source for the recipe cache.
	SourceSHA256 string `json:"source_sha256,omitempty"`
	SourceCommit string `json:"source_commit,omitempty"`
	// SourceDateEpoch is SOURCE_DATE_EPOCH for every build command: the newest time in the source.
	SourceDateEpoch int64 `json:"source_date_epoch,omitempty"`

	Detection *Detection `json:"detection,omitempty"`
	// SourceELFs are the ELF files the source shipped (path and SHA-256), which a build
	// did not produce and so never verify a port.
	SourceELFs []string         `json:"source_elfs,omitempty"`
	Evidence   string           `json:"evidence,omitempty"`
	Analysis   *PackageAnalysis `json:"analysis,omitempty"`
	TaskPlan   *TaskPlan        `json:"task_plan,omitempty"`
	Plan       *BuildPlan       `json:"plan,omitempty"`
	// PlanSource says where the plan came from: heuristic, scout or fallback.
	PlanSource      string   `json:"plan_source,omitempty"`
	TestCommands    []string `json:"test_commands,omitempty"`
	CompletedPhases []string `json:"completed_phases,omitempty"`
	// ExecutedCommands are the command lines that ran successfully, in order, for the
	// recipe's replay block: plan commands and fix commands.
	ExecutedCommands []string `json:"executed_commands,omitempty"`

	Status       Status       `json:"status"`
	FailureClass FailureClass `json:"failure_class,omitempty"`
	// LastNode is the last node that finished; resume continues after it.
	LastNode string `json:"last_node,omitempty"`
	// NextNode is where the supervisor routed the run.
	NextNode string       `json:"next_node,omitempty"`
	Timings  []NodeTiming `json:"timings,omitempty"`

	Attempts    int          `json:"attempts"`
	FixAttempts []FixAttempt `json:"fix_attempts,omitempty"`
	// BuiltFixes counts the fix attempts that a build run has already followed; the fixes
	// after them are the ones the next successful build proves.
	BuiltFixes       int           `json:"built_fixes,omitempty"`
	Errors           []ErrorRecord `json:"errors,omitempty"`
	LastError        *ErrorRecord  `json:"last_error,omitempty"`
	ReplanSignatures []string      `json:"replan_signatures,omitempty"`
	ScoutRuns        int           `json:"scout_runs"`
	Patches          []Patch       `json:"patches,omitempty"`
	// FixInvalid is set by the fix node when its last answer could not be applied.
	FixInvalid bool `json:"fix_invalid,omitempty"`
	// StubFiles are files a fix created that define an entry point or compile nothing.
	StubFiles []string `json:"stub_files,omitempty"`
	// OriginalSources are the code and build files of the original tree (removal tracking).
	OriginalSources []SourceFile `json:"original_sources,omitempty"`
	// Removals are what fixes took from the original tree (see Removal), as of the last fix.
	Removals []Removal `json:"removals,omitempty"`
	// Exports is the export completeness of the primary libraries, checked by verify.
	Exports *ExportCheck `json:"exports,omitempty"`

	BuildSucceeded   bool        `json:"build_succeeded"`
	BuildStarted     time.Time   `json:"build_started,omitzero"`
	Verified         bool        `json:"verified"`
	VerifyProblems   []string    `json:"verify_problems,omitempty"`
	Artifacts        []Artifact  `json:"artifacts,omitempty"`
	MissingArtifacts []string    `json:"missing_artifacts,omitempty"`
	Tests            *TestResult `json:"tests,omitempty"`
	Install          *Install    `json:"install,omitempty"` // the staged install step (see Install)
	Recipe           string      `json:"recipe,omitempty"`
	Usage            Usage       `json:"usage"`
	EscalationReason string      `json:"escalation_reason,omitempty"`
	StartedAt        time.Time   `json:"started_at"`
	FinishedAt       time.Time   `json:"finished_at,omitzero"`
	// Duration is the run's wall time (JSON: duration_seconds).
	Duration time.Duration `json:"-"`
	// SandboxTime is the wall time spent in sandbox operations (commands, copies)
	// (JSON: sandbox_seconds).
	SandboxTime time.Duration `json:"-"`
	// StartRetries counts the sandbox commands that were started again because the
	// sandbox around them could not be set up (CommandResult.StartRetries, summed).
	StartRetries      int      `json:"start_retries,omitempty"`
	ProviderName      string   `json:"provider,omitempty"`
	OfflineFallbacks  []string `json:"offline_fallbacks,omitempty"`
	InvestigationUsed bool     `json:"investigation_used,omitempty"`

	// GoToolchain is the Go toolchain a Go port's commands ran with (the suite's, or a
	// newer release fetched for the module's go.mod); nil before a Go command ran.
	GoToolchain *GoToolchain `json:"go_toolchain,omitempty"`

	// Performance is performance mode's result (Request.Optimize).
	Performance *Performance `json:"performance,omitempty"`
}

// Record appends an error to the state and makes it the last error.
func (s *State) Record(e ErrorRecord) {
	if e.Category == "" {
		e.Category = ClassifyError(e.Message)
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = time.Now().UTC()
	}
	s.Errors = append(s.Errors, e)
	s.LastError = &s.Errors[len(s.Errors)-1]
}
