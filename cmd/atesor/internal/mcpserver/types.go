package mcpserver

// The tools' inputs and outputs. Their JSON schemas are derived from these structs
// (the jsonschema tags are the descriptions a client shows the model); a field without
// omitempty is required.

// PortInput is the port tool's input.
type PortInput struct {
	Source      string  `json:"source" jsonschema:"the package source: a directory or tarball below the server's roots, an http(s) URL of a tarball or git repository, or debian:NAME or debian:NAME=VERSION"`
	Platform    string  `json:"platform,omitempty" jsonschema:"target distro: alpine, debian or ubuntu (default: the server's, else debian)"`
	Name        string  `json:"name,omitempty" jsonschema:"package name (default: derived from the source)"`
	Offline     bool    `json:"offline,omitempty" jsonschema:"make no model calls: the scripted fallbacks port packages whose build system is standard"`
	Optimize    bool    `json:"optimize,omitempty" jsonschema:"performance mode: after a verified port, measure optimisation candidates on a workload"`
	Force       bool    `json:"force,omitempty" jsonschema:"build even when a verified recipe is cached"`
	Resume      bool    `json:"resume,omitempty" jsonschema:"continue the saved run of this package (one that was cancelled)"`
	MaxAttempts int     `json:"max_attempts,omitempty" jsonschema:"failed builds, verifications and invalid fixes allowed (default 5)"`
	MaxCostUSD  float64 `json:"max_cost_usd,omitempty" jsonschema:"escalate when the model cost exceeds this many US dollars (default 1)"`
}

// Outcome is a port's outcome: the port tool's output and the report tool's.
type Outcome struct {
	Package string `json:"package"`
	Sandbox string `json:"sandbox" jsonschema:"the sandbox it was built in, such as debian-riscv64"`
	Status  string `json:"status" jsonschema:"verified, cached, tests_failing, failed or escalated"`
	// Verified is true when the artifacts were proven riscv64 builds of the package.
	Verified     bool   `json:"verified"`
	Verdict      string `json:"verdict" jsonschema:"one line: what the port proved, tests included"`
	FailureClass string `json:"failure_class,omitempty" jsonschema:"why it did not verify: build, verify, tests, infra, budget, ..."`
	Reason       string `json:"reason,omitempty"`
	// Error is the error extracted from the failing command's output.
	Error     *BuildError `json:"error,omitempty"`
	Artifacts []Artifact  `json:"artifacts" jsonschema:"the primary artifacts with their ELF facts"`
	// VerifyProblems are why artifacts did not verify.
	VerifyProblems []string `json:"verify_problems,omitempty"`
	Tests          *Tests   `json:"tests,omitempty"`
	Attempts       int      `json:"attempts"`
	ModelCalls     int      `json:"model_calls"`
	CostUSD        float64  `json:"cost_usd"`
	Seconds        float64  `json:"duration_seconds"`
	// Recipe and Report are the paths of <package>_recipe.md and <package>_report.json.
	Recipe string            `json:"recipe,omitempty" jsonschema:"path of the porting recipe (Markdown)"`
	Report string            `json:"report,omitempty" jsonschema:"path of the machine-readable report (JSON)"`
	Files  map[string]string `json:"files,omitempty" jsonschema:"every output file by kind"`
}

// BuildError is the extracted error of the command that failed last.
type BuildError struct {
	Node     string `json:"node"`
	Phase    string `json:"phase,omitempty"`
	Command  string `json:"command,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	Category string `json:"category,omitempty"`
	Message  string `json:"message"`
}

// Artifact is a built file and its ELF facts.
type Artifact struct {
	Path        string   `json:"path" jsonschema:"path in the sandbox"`
	Kind        string   `json:"kind" jsonschema:"executable, shared_library, static_library, object, ..."`
	Role        string   `json:"role,omitempty"`
	Class       string   `json:"class" jsonschema:"ELFCLASS64 or ELFCLASS32"`
	Machine     string   `json:"machine" jsonschema:"ELF machine, EM_RISCV for RISC-V"`
	RISCV64     bool     `json:"riscv64"`
	FloatABI    string   `json:"float_abi,omitempty"`
	ISA         string   `json:"isa,omitempty"`
	Interpreter string   `json:"interpreter,omitempty"`
	Static      bool     `json:"static"`
	Stripped    bool     `json:"stripped"`
	Needed      []string `json:"needed,omitempty"`
	SHA256      string   `json:"sha256"`
	Size        int64    `json:"size"`
	Problem     string   `json:"problem,omitempty" jsonschema:"why it does not verify"`
}

// Tests are the package's own tests as the port ran them.
type Tests struct {
	Commands []string `json:"commands"`
	Passed   bool     `json:"passed"`
	TimedOut bool     `json:"timed_out,omitempty"`
	NoTests  bool     `json:"no_tests,omitempty"`
	// Framework and the counts are set when the framework reported counts.
	Framework   string   `json:"framework,omitempty"`
	Ran         int      `json:"ran"`
	PassedCount int      `json:"passed_count"`
	Failed      int      `json:"failed"`
	Skipped     int      `json:"skipped"`
	FailedTests []string `json:"failed_tests,omitempty"`
	Summary     string   `json:"summary"`
}

// ReplayInput is the replay tool's input.
type ReplayInput struct {
	Recipe   string `json:"recipe" jsonschema:"a <package>_recipe.md below the server's roots or output directory, or a package of the recipe cache"`
	Source   string `json:"source,omitempty" jsonschema:"the package's source, when the report names none it may use (its SHA-256 or commit is checked)"`
	Platform string `json:"platform,omitempty" jsonschema:"alpine, debian or ubuntu"`
}

// ReplayOutput is a replay's outcome.
type ReplayOutput struct {
	Package  string     `json:"package"`
	Sandbox  string     `json:"sandbox"`
	Verdict  string     `json:"verdict" jsonschema:"reproduced, differs or failed"`
	Compared int        `json:"compared" jsonschema:"primary artifacts compared"`
	Differs  []FileDiff `json:"differs,omitempty" jsonschema:"the artifacts whose SHA-256 differs"`
	Failure  string     `json:"failure,omitempty" jsonschema:"the command that failed and how"`
	Commands []string   `json:"commands"`
	Seconds  float64    `json:"duration_seconds"`
	OutDir   string     `json:"out_dir" jsonschema:"the replay's logs"`
}

// FileDiff is an artifact whose replayed hash differs from the port's.
type FileDiff struct {
	Path string `json:"path"`
	Want string `json:"want" jsonschema:"the port's SHA-256"`
	Got  string `json:"got,omitempty" jsonschema:"the replay's SHA-256; empty when it was not built"`
}

// SandboxRunInput is the sandbox_run tool's input.
type SandboxRunInput struct {
	Command  string `json:"command" jsonschema:"one command (a build, package or inspection tool with its arguments) checked by the rules a model's fix command passes"`
	Source   string `json:"source,omitempty" jsonschema:"put this package source at /workspace/<name> and run there"`
	KeptRun  string `json:"kept_run,omitempty" jsonschema:"start from a kept run (port --keep-sandbox)"`
	Name     string `json:"name,omitempty" jsonschema:"package name (default: derived from the source)"`
	Platform string `json:"platform,omitempty" jsonschema:"alpine, debian or ubuntu"`
	Timeout  int    `json:"timeout_seconds,omitempty" jsonschema:"time bound of the command in seconds (the server's default and maximum apply)"`
	Network  bool   `json:"network,omitempty" jsonschema:"give the command network access; refused unless the server allows it"`
}

// SandboxRunOutput is the command's outcome.
type SandboxRunOutput struct {
	Command  string  `json:"command"`
	ExitCode int     `json:"exit_code"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Signal   string  `json:"signal,omitempty"`
	Output   string  `json:"output" jsonschema:"stdout and stderr as produced, head and tail kept within the server's bound"`
	Cut      bool    `json:"output_truncated,omitempty"`
	Seconds  float64 `json:"duration_seconds"`
}

// PackageInput names a package for report and recipe.
type PackageInput struct {
	Package  string `json:"package" jsonschema:"the package name, as port named it"`
	Platform string `json:"platform,omitempty" jsonschema:"alpine, debian or ubuntu (recipe only)"`
}

// RecipeOutput is a cached recipe.
type RecipeOutput struct {
	Package      string     `json:"package"`
	Sandbox      string     `json:"sandbox"`
	Verified     bool       `json:"verified"`
	TestsFailing bool       `json:"tests_failing,omitempty"`
	BuildSystem  string     `json:"build_system"`
	Source       string     `json:"source"`
	SourceSHA256 string     `json:"source_sha256,omitempty"`
	SourceCommit string     `json:"source_commit,omitempty"`
	LastBuilt    string     `json:"last_built" jsonschema:"RFC 3339 time of the port"`
	Commands     []string   `json:"commands" jsonschema:"the build plan's commands in order"`
	TestCommands []string   `json:"test_commands,omitempty"`
	Artifacts    []Artifact `json:"artifacts"`
	Markdown     string     `json:"recipe" jsonschema:"the recipe as Markdown"`
	// File is <out>/<package>_recipe.md when the server's output directory holds it.
	File string `json:"file,omitempty"`
}

// DoctorInput is the doctor tool's input.
type DoctorInput struct {
	Platform string `json:"platform,omitempty" jsonschema:"alpine, debian or ubuntu"`
}

// DoctorOutput is the host's readiness.
type DoctorOutput struct {
	Header   string          `json:"header"`
	Problems int             `json:"problems"`
	Sections []DoctorSection `json:"sections"`
	Fixes    []string        `json:"fixes,omitempty" jsonschema:"commands that fix the problems (as root)"`
}

// DoctorSection is one part of the checks.
type DoctorSection struct {
	Name     string          `json:"name"`
	Findings []DoctorFinding `json:"findings"`
}

// DoctorFinding is one finding.
type DoctorFinding struct {
	Level string `json:"level" jsonschema:"ok, note or problem"`
	Text  string `json:"text"`
}
