package atesor

import "time"

// Request asks for one package to be ported.
type Request struct {
	// Source is a local directory, a source tarball path or URL, or a git URL.
	Source string `json:"source"`
	// Name overrides the package name derived from the source.
	Name string `json:"name,omitempty"`
	// Platform is alpine, debian or ubuntu (default debian).
	Platform string `json:"platform,omitempty"`
	// MaxAttempts bounds failed builds, failed verifications and invalid fixer answers
	// (default 5).
	MaxAttempts int `json:"max_attempts,omitempty"`
	// MaxCostUSD escalates the run when the API cost exceeds it (default 1.00).
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
	// TestTimeout bounds the package's own tests (default 15 minutes).
	// (JSON: test_timeout_seconds.)
	TestTimeout time.Duration `json:"-"`
	// Force skips the recipe cache.
	Force bool `json:"force,omitempty"`
	// Resume continues the saved run of this package after its last finished node.
	Resume bool `json:"resume,omitempty"`
	// OutputDir receives the recipe, report, state, patches, artifacts and logs.
	OutputDir string `json:"output_dir,omitempty"`
	// Optimize runs performance mode after a verified port.
	Optimize bool `json:"optimize,omitempty"`
	// Origin records the distribution package Source was resolved from (reported as is).
	Origin *DistroSource `json:"origin,omitempty"`
	// GoModule is the module path for Go packages with no go.mod: the port makes their
	// go.mod with it (go mod init). It wins over the distribution's Go-Import-Path and
	// the import comments of the package clauses.
	GoModule string `json:"go_module,omitempty"`
}

// Defaults used when a Request leaves a limit at zero.
const (
	DefaultMaxAttempts = 5
	DefaultMaxCostUSD  = 1.00
	DefaultTestTimeout = 15 * time.Minute
)

// WithDefaults returns the request with zero limits replaced by their defaults.
func (r Request) WithDefaults() Request {
	if r.Platform == "" {
		r.Platform = "debian"
	}
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = DefaultMaxAttempts
	}
	if r.MaxCostUSD <= 0 {
		r.MaxCostUSD = DefaultMaxCostUSD
	}
	if r.TestTimeout <= 0 {
		r.TestTimeout = DefaultTestTimeout
	}
	return r
}

// Result is what a finished run produced. Its JSON form writes Duration as
// duration_seconds; State is not part of it (it is the <repo>_state.json file).
type Result struct {
	Package      string       `json:"package"`
	Sandbox      string       `json:"sandbox"`
	Status       Status       `json:"status"`
	Verified     bool         `json:"verified"`
	FailureClass FailureClass `json:"failure_class,omitempty"`
	Reason       string       `json:"reason,omitempty"`
	// Artifacts are the primary artifacts (State.Artifacts has every artifact found).
	Artifacts []Artifact  `json:"artifacts"`
	Tests     *TestResult `json:"tests,omitempty"`
	Attempts  int         `json:"attempts"`
	Usage     Usage       `json:"usage"`
	// Duration is the run's wall time (JSON: duration_seconds).
	Duration time.Duration `json:"-"`
	// Files maps the output kinds (the File* constants) to the paths written; a kind is
	// present only when its file or directory exists.
	Files map[string]string `json:"files,omitempty"`
	// State is the final run state, as saved in the state file; nil for a recipe-cache
	// hit, which runs no pipeline.
	State *State `json:"-"`
}

// The keys of Result.Files and of the report's files map. Paths are in the output
// directory; <repo> is the package name.
const (
	// FileRecipe is <repo>_recipe.md: the porting recipe, six sections and the
	// machine-readable command block (written when the run reached finish or escalate).
	FileRecipe = "recipe"
	// FileReport is <repo>_report.json: the machine-readable outcome.
	FileReport = "report"
	// FileState is <repo>_state.json: the run state, saved after every node.
	FileState = "state"
	// FilePatches is the <repo>_patches directory: one unified diff per source change
	// a fix made.
	FilePatches = "patches"
	// FileArtifacts is the <repo>_artifacts directory: copies of the primary artifacts of
	// a verified port.
	FileArtifacts = "artifacts"
	// FileLog is agent_<repo>.log: the run's structured log (every level).
	FileLog = "log"
	// FileAudit is agent-call_<repo>.log: the LLM audit log, one entry per model answer.
	FileAudit = "audit"
	// FileBuildLog is <repo>_build.log: the output of the build commands.
	FileBuildLog = "build_log"
	// FileInstall is <repo>_install.tar.gz: the staged install tree of a verified port.
	FileInstall = "install"
)

// FileKinds lists the keys of Result.Files in the order above.
func FileKinds() []string {
	return []string{FileRecipe, FileReport, FileState, FilePatches, FileArtifacts, FileLog, FileAudit, FileBuildLog, FileInstall}
}
