package atesor

import (
	"io"
	"time"
)

// Command is one shell command line to run in a sandbox.
type Command struct {
	// Line is the shell command line, run with sh -c.
	Line string `json:"line"`
	// Dir is the working directory inside the sandbox; empty means the package directory.
	Dir string `json:"dir,omitempty"`
	// Env holds extra KEY=value variables for this command.
	Env []string `json:"env,omitempty"`
	// Timeout bounds the command; zero means the sandbox default (1800 s).
	// (JSON: timeout_seconds.)
	Timeout time.Duration `json:"-"`
	// Network allows network access (plan and fix commands); off for investigation,
	// smoke runs and package tests.
	Network bool `json:"network,omitempty"`
	// Stdout and Stderr, when set, receive the output live as it is produced.
	Stdout io.Writer `json:"-"`
	Stderr io.Writer `json:"-"`
	// Stdin, when set, is the command's standard input (an interactive shell); nil is /dev/null.
	Stdin io.Reader `json:"-"`
}

// CommandResult is what a command did. The sandboxes keep the first 1 MiB and the last
// 3 MiB of each stream (a marker in the middle says how much was dropped), so a command
// that floods its output cannot exhaust the host's memory; the command's live writers
// (Command.Stdout and Stderr, the build log) still get every byte.
type CommandResult struct {
	Line     string `json:"line"`
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Output   string `json:"output"` // stdout and stderr interleaved as produced
	// Duration is the command's wall time (JSON: duration_seconds).
	Duration time.Duration `json:"-"`
	TimedOut bool          `json:"timed_out,omitempty"`
	// Signal names the signal that killed the command, if any (SIGSEGV, SIGILL, ...).
	Signal string `json:"signal,omitempty"`
	// EmulatorFault is set when the command died in a way that points at the emulator
	// rather than the package (see sandbox).
	EmulatorFault bool `json:"emulator_fault,omitempty"`
	// StartRetries counts the times the command was started again because the sandbox
	// around it could not be set up (an infrastructure fault before the command ran).
	StartRetries int `json:"start_retries,omitempty"`
}

// OK reports whether the command exited with status 0.
func (r CommandResult) OK() bool { return r.ExitCode == 0 && !r.TimedOut && r.Signal == "" }
