package atesor

// Status is the state of a port.
type Status string

// The statuses of a run. A finished run ends verified, tests_failing, cached,
// not_verified or escalated.
const (
	StatusPending     Status = "pending"
	StatusRunning     Status = "running"
	StatusBuilt       Status = "built"        // the build succeeded; verification pending
	StatusBuildFailed Status = "build_failed" // the last build run failed
	StatusVerified    Status = "verified"
	// StatusTestsFailing: the artifacts verified, but fixes changed source files and the
	// package's tests then failed, so the port is not proven to work. It is not learned.
	StatusTestsFailing Status = "tests_failing"
	StatusCached       Status = "cached"
	StatusNotVerified  Status = "not_verified"
	StatusEscalated    Status = "escalated"
	StatusFailed       Status = "failed"
)

// Final reports whether the status is one a finished run ends with: verified,
// tests_failing, cached, not_verified or escalated. [Graph.Run] never returns a Result
// with another status.
func (s Status) Final() bool {
	switch s {
	case StatusVerified, StatusTestsFailing, StatusCached, StatusNotVerified, StatusEscalated:
		return true
	}
	return false
}

// Succeeded reports whether the status counts as a successful port.
func (s Status) Succeeded() bool { return s == StatusVerified || s == StatusCached }

// FailureClass says why a finished run did not end verified. The empty class means
// success.
type FailureClass string

// The failure classes.
const (
	FailureNone      FailureClass = ""
	FailureSetup     FailureClass = "setup"     // provisioning, source or key
	FailureBuild     FailureClass = "build"     // the fixer ran out of ideas
	FailureVerify    FailureClass = "verify"    // built but not proven
	FailureInfra     FailureClass = "infra"     // sandbox or emulator
	FailureBudget    FailureClass = "budget"    // attempt or cost limit
	FailureEscalated FailureClass = "escalated" // error loop or unrecoverable category
	// FailureDependency: a dependency the port needs is not to be had the way the run
	// gets dependencies (a crate the distribution does not package at a matching
	// version, when the crates come from the distribution); no fix can build it.
	FailureDependency FailureClass = "dependency"
)
