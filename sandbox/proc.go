package sandbox

import "github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"

// DefaultPath is PATH inside a sandbox.
const DefaultPath = proc.DefaultPath

// SandboxHome is HOME inside a sandbox.
const SandboxHome = proc.SandboxHome

// Workspace is the directory inside a sandbox that holds the packages
// (/workspace/<repo>).
const Workspace = "/workspace"

// DefaultTimeout bounds a command whose Command.Timeout is zero.
const DefaultTimeout = proc.DefaultTimeout

// Output kept in memory per stream of a command: the first OutputHead bytes and the last
// OutputTail bytes. A command that prints more loses the middle from its
// [atesor.CommandResult] (a marker says how much); the live writers of the command (the
// build log) still get every byte.
const (
	OutputHead = proc.OutputHead
	OutputTail = proc.OutputTail
)

// MissingToolError says which host tool is missing (Tool), which apt package provides
// it (Package) and what the sandbox needs it for (Purpose). [CheckHost] returns one per
// missing tool; a backend returns one when a tool it runs is absent.
type MissingToolError = proc.MissingToolError
