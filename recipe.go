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
	Performance  *Performance     `json:"performance,omitempty"`
	LastBuilt    time.Time        `json:"last_built"`
}

// TestResult is the outcome of the package's own tests, run after verification.
type TestResult struct {
	Commands []string      `json:"commands"`
	Passed   bool          `json:"passed"`
	TimedOut bool          `json:"timed_out,omitempty"`
	ExitCode int           `json:"exit_code"`
	Output   string        `json:"output,omitempty"` // the tail of the output
	Duration time.Duration `json:"duration"`
}

// Performance is a performance-mode measurement. Numbers measured under emulation are
// not hardware numbers; Emulated says which it was.
type Performance struct {
	Workload  string          `json:"workload"`
	Runs      int             `json:"runs"`
	Median    time.Duration   `json:"median"`
	Spread    time.Duration   `json:"spread"`
	Emulated  bool            `json:"emulated"`
	Measured  time.Time       `json:"measured"`
	Durations []time.Duration `json:"durations,omitempty"`
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
