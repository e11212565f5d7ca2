package atesor

import "time"

// CachedRecipe is a recipe cache entry: what a cache hit needs to write the recipe and
// the report of a verified port without building. Entries are keyed by package and
// sandbox, and record the source they were built from: a different source misses.
type CachedRecipe struct {
	Package string `json:"package"`
	Sandbox string `json:"sandbox"`
	// Source is the URL or path the package came from.
	Source string `json:"source"`
	// SourceSHA256 is the SHA-256 of a source tarball; SourceCommit the commit of a git
	// source. A directory source records neither.
	SourceSHA256 string           `json:"source_sha256,omitempty"`
	SourceCommit string           `json:"source_commit,omitempty"`
	BuildSystem  BuildSystem      `json:"build_system"`
	Verified     bool             `json:"verified"`
	Recipe       string           `json:"recipe"`
	Plan         BuildPlan        `json:"plan"`
	TestCommands []string         `json:"test_commands,omitempty"`
	Analysis     *PackageAnalysis `json:"analysis,omitempty"`
	Artifacts    []Artifact       `json:"artifacts"`
	Patches      []string         `json:"patches,omitempty"`
	Tests        *TestResult      `json:"tests,omitempty"`
	// TestsFailing marks a port whose fixes changed source files and whose tests then
	// failed: the artifacts verified, but the port is not proven to work.
	TestsFailing bool         `json:"tests_failing,omitempty"`
	Performance  *Performance `json:"performance,omitempty"`
	LastBuilt    time.Time    `json:"last_built"`
}

// TestResult is the outcome of the package's own tests, run after verification.
// Passed is true only when tests ran and none failed for real: zero tests ran is
// NoTests, never a pass.
type TestResult struct {
	Commands []string `json:"commands"`
	Passed   bool     `json:"passed"`
	TimedOut bool     `json:"timed_out,omitempty"`
	ExitCode int      `json:"exit_code"`
	Output   string   `json:"output,omitempty"` // the tail of the output
	// Duration is the tests' wall time (JSON: duration_seconds).
	Duration time.Duration `json:"-"`
	// Counts are what the test framework reported; nil when the framework is unknown
	// and the verdict is the exit code alone (Note says so).
	Counts *TestCounts `json:"counts,omitempty"`
	// NoTests is set when no candidate test command ran any test.
	NoTests bool `json:"no_tests,omitempty"`
	// NoTestsFrom are the candidate commands that ran no test, in the order tried.
	NoTestsFrom []string `json:"no_tests_from,omitempty"`
	// ClearedByRerun are tests that died by a signal and passed when rerun once;
	// EmulatorFaults are tests whose failure is an emulator fault by the sandbox's
	// rules. Neither is counted in Counts.Failed.
	ClearedByRerun []string `json:"cleared_by_rerun,omitempty"`
	EmulatorFaults []string `json:"emulator_faults,omitempty"`
	// Note explains a verdict that is not a plain count, such as an unknown framework.
	Note string `json:"note,omitempty"`
	// Short is true when the counts come from go test -short: the full suite did not
	// finish within the test time bound under emulation (Note says so).
	Short bool `json:"short,omitempty"`
}

// TestCounts are the counts a test framework reported. Failed counts real failures
// only; FailedTests names them (at most a bounded number; Failed has the total).
type TestCounts struct {
	// Framework is ctest, automake, meson, go, cargo or tap.
	Framework   string   `json:"framework"`
	Ran         int      `json:"ran"`
	Passed      int      `json:"passed"`
	Failed      int      `json:"failed"`
	Skipped     int      `json:"skipped"`
	FailedTests []string `json:"failed_tests,omitempty"`
}

// FailingCount is the number of real test failures: the counted ones, or one when the
// framework is unknown and its command failed. Tests cleared by a rerun, emulator
// faults, a timeout and "no tests ran" are not failures.
func (t *TestResult) FailingCount() int {
	switch {
	case t == nil || t.Passed || t.NoTests:
		return 0
	case t.Counts != nil:
		return t.Counts.Failed
	case t.TimedOut:
		return 0
	}
	return 1
}

// Harness is a performance-mode workload the optimizer agent writes: a C/C++ harness, a
// Go benchmark file or a Rust example.
type Harness struct {
	Language string `json:"language" jsonschema:"enum=c,enum=cpp,enum=go,enum=rust"`
	Filename string `json:"filename" jsonschema:"minLength=1"`
	Code     string `json:"code" jsonschema:"minLength=1"`
	// Functions are the library functions the harness calls.
	Functions []string `json:"functions,omitempty"`
}

// ProgramRun is a performance-mode workload that runs one of the built programs.
type ProgramRun struct {
	Program   string `json:"program" jsonschema:"minLength=1"`
	Command   string `json:"command" jsonschema:"minLength=1"`
	Reasoning string `json:"reasoning,omitempty"`
}

// The six H2 sections of a porting recipe, in the order a recipe has them. The
// summarizer is asked for exactly these, a model's recipe that lacks one is replaced by
// the fallback recipe, and the fallback writes them itself.
const (
	RecipeSummary       = "Executive Summary"
	RecipePrerequisites = "Prerequisites"
	RecipeBuild         = "Build Instructions"
	RecipeArchitecture  = "Architecture Notes"
	RecipeVerification  = "Verification"
	RecipeKnownIssues   = "Known Issues & Recommendations"
)

// RecipeSections returns the six recipe sections in order.
func RecipeSections() []string {
	return []string{RecipeSummary, RecipePrerequisites, RecipeBuild, RecipeArchitecture, RecipeVerification, RecipeKnownIssues}
}
