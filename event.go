package atesor

import (
	"time"
)

// EventKind is the kind of a progress event.
type EventKind string

// The progress events a run reports.
const (
	// EventNodeStarted: a node started. Node is its registered name.
	EventNodeStarted EventKind = "node_started"
	// EventNodeFinished: a node finished. Err is set when the node failed (the run then
	// ends with failure class setup or infra).
	EventNodeFinished EventKind = "node_finished"
	// EventPhase: a build phase or a fix step started (Phase).
	EventPhase EventKind = "phase"
	// EventCommand: a command line started (Line).
	EventCommand EventKind = "command"
	// EventOutput: one line of command output (Line).
	EventOutput EventKind = "output"
	// EventInfo: a notable decision (a cache hit, a plan choice, ...), in Line.
	EventInfo EventKind = "info"
	// EventAnswerRejected: a model answer failed decoding or validation and was sent back
	// with a critique (or given up). Rule names the rule that fired ("schema" for the JSON
	// shape, "json" for a reply without a JSON object, a validate.Rejection rule name
	// such as "no-failure-hiding", or "validator" for an embedder's validator without a
	// rule name); Err is the critique text; Role, Label and Model say who answered.
	EventAnswerRejected EventKind = "answer_rejected"
	// EventFallback: an LLM node used its scripted fallback because no model gave a
	// valid answer (or the run is offline). Line says what the fallback did.
	EventFallback EventKind = "fallback"
	// EventScriptedFix: the fix node applied a scripted fix (package repair) instead of
	// asking a model. Rule names the repair rule; Line summarises the fix.
	EventScriptedFix EventKind = "scripted_fix"
	// EventWarning: something an embedder should act on, such as a model with no known
	// price (Model names it; Line says how to set its price). The run goes on.
	EventWarning EventKind = "warning"
)

// Event is one progress report. Events are delivered on the goroutine of the run, in
// order; a slow callback slows the run.
type Event struct {
	Kind EventKind `json:"kind"`
	// Node is the registered name of the node the event belongs to (graph's Node*
	// constants), the same name the state's LastNode, the report's node_seconds and the
	// audit log's metadata "node" use.
	Node  string `json:"node,omitempty"`
	Phase string `json:"phase,omitempty"`
	Line  string `json:"line,omitempty"`
	// Role is the LLM model pool (planner, scout, fixer, summarizer) of a model event.
	Role string `json:"role,omitempty"`
	// Label is the audit log's label of the model call of a model event (analyst,
	// scout, fixer, summarizer, curator, or a replacement node's Question.Label).
	Label string `json:"label,omitempty"`
	// Model is the model id of a model event.
	Model string `json:"model,omitempty"`
	// Rule names the validation rule of EventAnswerRejected or the repair rule of
	// EventScriptedFix.
	Rule string `json:"rule,omitempty"`
	// Elapsed is the time since the run started, by the run's clock (graph.WithClock).
	Elapsed time.Duration `json:"-"`
	// Err is the text of an error: the node's error on EventNodeFinished (empty when the
	// node succeeded), the critique on EventAnswerRejected. It is a string, not an
	// error, so events can be stored and sent as JSON; the run's Result and State keep
	// the failure (failure class, escalation reason, error records).
	Err string `json:"error,omitempty"`
}
