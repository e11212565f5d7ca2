package graph

import (
	"context"
	"log/slog"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// SandboxOpener opens a sandbox for a platform. The graph opens the sandbox only after a
// recipe-cache miss, so a cache hit never provisions anything, and it closes what it
// opened when the run ends.
type SandboxOpener func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error)

// Config holds what a pipeline needs. Provider and Memory may be nil: a nil Provider is
// offline mode (every LLM node uses its scripted fallback and no model is called), a nil
// Memory means no few-shot examples, no learning and no recipe cache.
type Config struct {
	// Provider makes the chat models; nil means offline.
	Provider atesor.Provider
	// Sandbox is used for every run when set; OpenSandbox is called otherwise.
	Sandbox     atesor.Sandbox
	OpenSandbox SandboxOpener
	// Memory holds few-shot examples and the recipe cache.
	Memory atesor.MemoryStore
	// OutputDir receives <repo>_recipe.md, <repo>_report.json and the other outputs
	// (default: the current directory). Request.OutputDir overrides it.
	OutputDir string
	// RunsDir holds the saved state of each run for resume (default <home>/runs).
	RunsDir string
	// Logger receives structured progress logs (default: discard).
	Logger *slog.Logger
}

// EventKind is the kind of a progress event.
type EventKind string

// The progress events a run reports.
const (
	EventNodeStarted  EventKind = "node_started"
	EventNodeFinished EventKind = "node_finished"
	EventPhase        EventKind = "phase"   // a build phase or a fix step started
	EventCommand      EventKind = "command" // a command line started
	EventOutput       EventKind = "output"  // one line of command output
	EventInfo         EventKind = "info"    // a notable decision (fallback used, cache hit, ...)
)

// Event is one progress report. Events are delivered on the goroutine of the run, in
// order; a slow callback slows the run.
type Event struct {
	Kind    EventKind     `json:"kind"`
	Node    string        `json:"node,omitempty"`
	Phase   string        `json:"phase,omitempty"`
	Line    string        `json:"line,omitempty"`
	Elapsed time.Duration `json:"elapsed"`
	Err     string        `json:"error,omitempty"`
}

// Option changes how a pipeline runs.
type Option func(*options)

type options struct {
	events   func(Event)
	replaced map[string]atesor.Node
	now      func() time.Time
	repair   repairOptions
}

// WithEvents sets the progress callback.
func WithEvents(fn func(Event)) Option {
	return func(o *options) { o.events = fn }
}

// WithNode replaces the node of that name (init, analyst, task_plan, heuristic_plan,
// scout, build, verify, fix, finish, escalate) with an embedder's node. The supervisor's
// routing stays; the replacement reads and writes the same state.
func WithNode(name string, n atesor.Node) Option {
	return func(o *options) {
		if o.replaced == nil {
			o.replaced = map[string]atesor.Node{}
		}
		o.replaced[name] = n
	}
}

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}
