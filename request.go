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
	TestTimeout time.Duration `json:"test_timeout,omitempty"`
	// Force skips the recipe cache.
	Force bool `json:"force,omitempty"`
	// Resume continues the saved run of this package after its last finished node.
	Resume bool `json:"resume,omitempty"`
	// OutputDir receives the recipe, report, state, patches, artifacts and logs.
	OutputDir string `json:"output_dir,omitempty"`
	// Optimize runs performance mode after a verified port.
	Optimize bool `json:"optimize,omitempty"`
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

// Result is what a finished run produced.
type Result struct {
	Package      string        `json:"package"`
	Sandbox      string        `json:"sandbox"`
	Status       Status        `json:"status"`
	Verified     bool          `json:"verified"`
	FailureClass FailureClass  `json:"failure_class,omitempty"`
	Reason       string        `json:"reason,omitempty"`
	Artifacts    []Artifact    `json:"artifacts"`
	Tests        *TestResult   `json:"tests,omitempty"`
	Attempts     int           `json:"attempts"`
	Usage        Usage         `json:"usage"`
	Duration     time.Duration `json:"duration"`
	// Files maps output kinds (recipe, report, state, patches, artifacts, log, audit)
	// to the paths written.
	Files map[string]string `json:"files,omitempty"`
}
