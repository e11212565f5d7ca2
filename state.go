package atesor

import "time"

// StateVersion is the format of the run state this module writes and reads (the
// state_version key of <repo>_state.json). A state without the key is version 1, the
// format before the key existed, which has the same fields. A reader refuses a state of
// a newer version instead of guessing what its fields mean.
const StateVersion = 1

// State is the run state of one port. It is saved as JSON after every node (resume
// reads it back) and must round-trip through JSON and gob: exported fields only, errors
// as strings.
//
// State is made of named parts, one per concern, each written by the node(s) its doc
// names. The parts are embedded without JSON names, so their fields are the state's own
// (s.RepoName, s.Plan, ...) and the JSON document is flat, as it has always been. A node
// that replaces a built-in one writes the parts that node owns and keeps their
// invariants (see each part): routing and the final report read them.
//
// What the end of a run reads: finish runs TestCommands (TestPart), copies out the
// primary Artifacts and checks each against its SHA-256 (VerifyPart), packs the staged
// Install files, writes the recipe from Detection, Analysis, Plan, the successful
// FixAttempts, Patches and ExecutedCommands (its replay block), and learns the
// successful fixes as few-shot examples of a verified port; escalate reports Status,
// FailureClass, EscalationReason and LastError. The report is written from all parts.
type State struct {
	RunPart
	RoutePart
	SourcePart
	DetectionPart
	AnalysisPart
	PlanPart
	BuildPart
	FixPart
	ErrorPart
	VerifyPart
	TestPart
	InstallPart
	OutputPart
	OptimizePart
	UsagePart
	TimingPart
}

// RunPart identifies the run. The pipeline writes it when the run starts (a resumed run
// keeps it, with Request.Resume and Request.OutputDir of the new request); nodes read it
// and must not change it.
type RunPart struct {
	// Version is the state's format (see [StateVersion]); 0 in a state written before
	// the key existed.
	Version  int      `json:"state_version"`
	RunID    string   `json:"run_id"`
	Request  Request  `json:"request"`
	RepoName string   `json:"repo_name"`
	Platform Platform `json:"platform"`
	// RepoDir is the package's directory inside the sandbox (/workspace/<repo>).
	RepoDir string `json:"repo_dir"`
}

// RoutePart is where the run stands. The pipeline writes LastNode and NextNode around
// every node; the supervisor counts Attempts and sets FailureClass and EscalationReason
// when it ends a run.
//
// Nodes set Status as they go (build: built or build_failed; verify; finish: verified;
// escalate: escalated or not_verified). A node that ends the run must leave a final
// Status ([Status.Final]); a run the graph ends without one is escalated with class
// infra. A node that sets FailureClass makes the supervisor escalate next, and
// EscalationReason is the report's reason. Attempts is the count of failed builds,
// verifications and invalid fixes the supervisor routed: a fix node must not change it.
type RoutePart struct {
	Status       Status       `json:"status"`
	FailureClass FailureClass `json:"failure_class,omitempty"`
	// LastNode is the last node that finished; resume continues after it.
	LastNode string `json:"last_node,omitempty"`
	// NextNode is where the supervisor routed the run.
	NextNode string `json:"next_node,omitempty"`
	// Attempts is how many failed attempts the supervisor counted (the attempt limit is
	// Request.MaxAttempts).
	Attempts int `json:"attempts"`
	// ReplanSignatures are the build errors that sent the run back to the scout, once
	// each (supervisor).
	ReplanSignatures []string `json:"replan_signatures,omitempty"`
	EscalationReason string   `json:"escalation_reason,omitempty"`
}

// SourcePart identifies the source. The pipeline and the init node write it; the recipe
// cache, the build environment and verification read it.
type SourcePart struct {
	// SourceSHA256 and SourceCommit identify the source for the recipe cache.
	SourceSHA256 string `json:"source_sha256,omitempty"`
	SourceCommit string `json:"source_commit,omitempty"`
	// SourceDateEpoch is SOURCE_DATE_EPOCH for every build command: the newest time in the source.
	SourceDateEpoch int64 `json:"source_date_epoch,omitempty"`
	// SourceELFs are the ELF files the source shipped (path and SHA-256), which a build
	// did not produce and so never verify a port (init; verify reads them).
	SourceELFs []string `json:"source_elfs,omitempty"`
	// OriginalSources are the code and build files of the original tree, recorded by
	// init, against which verify and finish measure what fixes removed.
	OriginalSources []SourceFile `json:"original_sources,omitempty"`
}

// DetectionPart is the scripted detection of the source tree, written by init. The
// analyst, the planners, the fixer's prompts, verification and the recipe read it; nil
// Detection means nothing was detected.
type DetectionPart struct {
	Detection *Detection `json:"detection,omitempty"`
	// Evidence is the excerpt of the tree (top-level files, build files) the prompts show.
	Evidence string `json:"evidence,omitempty"`
}

// AnalysisPart is the analyst's view of the package (a model's, or the scripted
// fallback's), written by the analyst node; the planners and the recipe read it.
type AnalysisPart struct {
	Analysis *PackageAnalysis `json:"analysis,omitempty"`
}

// PlanPart is the build plan. init writes TaskPlan (and a cached plan in performance
// mode), heuristic_plan or scout writes Plan and PlanSource, scout counts ScoutRuns. The
// supervisor sends a run without a plan of at least one phase to the scout, and a scout
// that leaves none ends the run; build runs Plan.Phases in order.
type PlanPart struct {
	TaskPlan *TaskPlan  `json:"task_plan,omitempty"`
	Plan     *BuildPlan `json:"plan,omitempty"`
	// PlanSource says where the plan came from: heuristic, scout, fallback or cache.
	PlanSource string `json:"plan_source,omitempty"`
	// TestCommands are the package's test commands, which finish runs.
	TestCommands []string `json:"test_commands,omitempty"`
	ScoutRuns    int      `json:"scout_runs"`
}

// BuildPart is what the build node did. BuildSucceeded routes the run to verify (true)
// or to a fix (false); a build node sets it on every run, and on success marks the fix
// attempts since BuiltFixes as successful (see [FixPart]). ExecutedCommands is the
// recipe's replay block: a replacement build node appends each line it ran successfully.
type BuildPart struct {
	// CompletedPhases are the phases that succeeded; a rebuild after a fix skips them.
	CompletedPhases []string `json:"completed_phases,omitempty"`
	// BuiltPlan is the plan the last build run ran in the package's tree, whose
	// products the tree holds; nil before a build ran there (or once the tree was
	// restored afresh). A rebuild compares it with the plan it runs, to drop what was
	// built with flags or switches the plan no longer has.
	BuiltPlan *BuildPlan `json:"built_plan,omitempty"`
	// ExecutedCommands are the command lines that ran successfully, in order, for the
	// recipe's replay block: plan commands and fix commands.
	ExecutedCommands []string  `json:"executed_commands,omitempty"`
	BuildSucceeded   bool      `json:"build_succeeded"`
	BuildStarted     time.Time `json:"build_started,omitzero"`
	// GoToolchain is the Go toolchain a Go port's commands ran with (the suite's, or a
	// newer release fetched for the module's go.mod); nil before a Go command ran.
	GoToolchain *GoToolchain `json:"go_toolchain,omitempty"`
	// Crates is how a cargo port got its dependencies (the distribution's packaged
	// crates or the registry); nil before a cargo port's build decided it.
	Crates *CargoDeps `json:"crates,omitempty"`
}

// FixPart is the fixes, written by the fix node (FixAttempts, Patches, FixInvalid,
// StubFiles, InvestigationUsed) and the build node (each FixAttempts[i].Success and
// BuiltFixes).
//
// The invariants: a fix node appends one FixAttempt per fix it applied, with Success
// false; the next build that succeeds sets Success on every attempt from BuiltFixes on,
// and every build run (failed or not) then sets BuiltFixes to len(FixAttempts), so only
// the fixes a successful build followed count as successful. The supervisor's re-plan
// rule counts failed fixes of one error, the report lists the attempts, and learning
// keeps the successful ones. FixInvalid tells the supervisor the last answer could not
// be applied (a failed attempt, no rebuild).
type FixPart struct {
	FixAttempts []FixAttempt `json:"fix_attempts,omitempty"`
	// BuiltFixes counts the fix attempts that a build run has already followed; the fixes
	// after them are the ones the next successful build proves.
	BuiltFixes int     `json:"built_fixes,omitempty"`
	Patches    []Patch `json:"patches,omitempty"`
	// FixInvalid is set by the fix node when its last answer could not be applied.
	FixInvalid bool `json:"fix_invalid,omitempty"`
	// StubFiles are files a fix created that define an entry point or compile nothing.
	StubFiles []string `json:"stub_files,omitempty"`
	// Removals are what fixes took from the original tree (see Removal), as of the last fix.
	Removals []Removal `json:"removals,omitempty"`
	// InvestigationUsed is set once the fixer used its one round of read-only commands.
	InvestigationUsed bool `json:"investigation_used,omitempty"`
}

// ErrorPart is the errors of the run, appended with [State.Record] by any node (a failed
// build, an answer that could not be applied, a node's own error, recorded by the
// pipeline). LastError is the supervisor's input: its category decides an unrecoverable
// end, and the last errors of one category in a row end an error loop.
type ErrorPart struct {
	Errors    []ErrorRecord `json:"errors,omitempty"`
	LastError *ErrorRecord  `json:"last_error,omitempty"`
}

// VerifyPart is what verification found, written by the verify node (finish may take a
// verification back when an artifact comes out changed). Verified routes the run to
// finish; finish copies out the primary Artifacts and the report lists them with the
// problems. A replacement verify node sets Verified only for riscv64 artifacts built from
// the package's sources.
type VerifyPart struct {
	Verified         bool       `json:"verified"`
	VerifyProblems   []string   `json:"verify_problems,omitempty"`
	Artifacts        []Artifact `json:"artifacts,omitempty"`
	MissingArtifacts []string   `json:"missing_artifacts,omitempty"`
	// Exports is the export completeness of the primary libraries, checked by verify.
	Exports *ExportCheck `json:"exports,omitempty"`
}

// TestPart is the package's tests, run and judged by finish.
type TestPart struct {
	Tests *TestResult `json:"tests,omitempty"`
}

// InstallPart is the install step, staged by the build node after a successful build;
// the curator and finish's install tarball read it.
type InstallPart struct {
	Install *Install `json:"install,omitempty"` // the staged install step (see Install)
}

// OutputPart is the recipe, written by the node that ends the run (finish, escalate,
// optimize) and saved as <repo>_recipe.md.
type OutputPart struct {
	Recipe string `json:"recipe,omitempty"`
}

// OptimizePart is performance mode's result, written by the optimize node.
type OptimizePart struct {
	// Performance is performance mode's result (Request.Optimize).
	Performance *Performance `json:"performance,omitempty"`
}

// UsagePart is the model usage: tokens and cost of every model call, added by the
// pipeline's model client (a node's Run.Ask included), which the budget rule reads.
type UsagePart struct {
	Usage Usage `json:"usage"`
	// ProviderName is the provider's name; empty for an offline run.
	ProviderName string `json:"provider,omitempty"`
	// OfflineFallbacks are the nodes that used their scripted fallback for want of a
	// model (analyst, scout).
	OfflineFallbacks []string `json:"offline_fallbacks,omitempty"`
}

// TimingPart is the run's times, written by the pipeline: a timing per node run, the
// sandbox time of every command, and the run's start, end and wall time.
type TimingPart struct {
	Timings   []NodeTiming `json:"timings,omitempty"`
	StartedAt time.Time    `json:"started_at"`
	// FinishedAt is set when the outputs are written.
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Duration is the run's wall time (JSON: duration_seconds).
	Duration time.Duration `json:"-"`
	// SandboxTime is the wall time spent in sandbox operations (commands, copies)
	// (JSON: sandbox_seconds).
	SandboxTime time.Duration `json:"-"`
	// StartRetries counts the sandbox commands that were started again because the
	// sandbox around them could not be set up (CommandResult.StartRetries, summed).
	StartRetries int `json:"start_retries,omitempty"`
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
