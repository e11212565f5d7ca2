package atesor

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Run is what a node may use of the run it belongs to: the same services the built-in
// nodes use, so a replacement node is as capable as the node it replaces. The pipeline
// passes it to [Node.Run]; it is valid only during that call.
type Run interface {
	// Sandbox is the run's sandbox, with the package at State.RepoDir. Commands run
	// through it are timed into the report's sandbox time.
	Sandbox() Sandbox
	// Memory is the few-shot example store and recipe cache; never nil (a store that
	// holds nothing when the pipeline has none).
	Memory() MemoryStore
	// Platform is the distro profile the run ports to.
	Platform() Platform
	// Ask makes one model call the way built-in nodes do: the node's role pool with its
	// fallbacks, critique retries, the run's clock and wall timeouts, the audit log,
	// EventAnswerRejected events, the embedder's validators of the answer's type (a
	// type of the node's own is declared with graph.WithAnswerType), and
	// tokens and cost added to the state's usage. It returns [ErrOffline] when the run
	// has no model provider, and an error wrapping the last failure when no model gave
	// a valid answer; the node then uses its fallback.
	Ask(ctx context.Context, q Question) (Answer, error)
	// Emit reports progress (Event.Node is filled in with the node's registered name
	// when empty, Elapsed always).
	Emit(e Event)
	// Logger is the run's structured log, the one written to agent_<repo>.log.
	Logger() *slog.Logger
	// Now is the time by the run's clock.
	Now() time.Time
}

// ErrOffline is returned by [Run.Ask] when the run has no model provider: the node uses
// its scripted fallback.
var ErrOffline = errors.New("no model provider (offline run)")

// Question is one model call of a node (see [Run.Ask]).
type Question struct {
	// Role is the model pool that answers (planner, scout, fixer, summarizer).
	Role Role
	// Label is the audit log's agent label (analyst, scout, ...); default the role.
	Label string
	// Prompt is the user message.
	Prompt string
	// Decode turns the JSON object of a reply into the answer, or returns an error that
	// goes back to the model as a critique. Nil asks for free text: the reply's text is
	// the answer (Answer.Text), and an empty reply is a failure.
	Decode func(raw []byte) (any, error)
	// Check is the node's semantic rule for a decoded answer; its error goes back to
	// the model as a critique. Optional.
	Check func(v any) error
	// Timeout is the wall time of one model call; zero means the provider's timeout
	// plus a margin.
	Timeout time.Duration
}

// Answer is the result of a [Run.Ask].
type Answer struct {
	// Value is the decoded answer (what Question.Decode returned); nil for free text.
	Value any
	// Text is the reply's text for a free-text question.
	Text string
	// Attempts is the number of model calls made.
	Attempts int
	// Usage is the tokens and cost of the attempts (already added to the state).
	Usage Usage
}
