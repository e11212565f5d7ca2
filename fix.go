package atesor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// ActionType is the kind of a fixer action.
type ActionType string

// The fixer action types.
const (
	ActionCommand    ActionType = "command"
	ActionCreateFile ActionType = "create_file"
	ActionPatch      ActionType = "patch"
)

// Action is one step of a fix strategy: a command, a file to create, or a unified diff.
type Action struct {
	Type    ActionType `json:"type" jsonschema:"enum=command,enum=create_file,enum=patch"`
	Command string     `json:"command,omitempty" jsonschema_description:"type command: one simple shell command"`
	Path    string     `json:"path,omitempty" jsonschema_description:"type create_file: path relative to the repository"`
	Content string     `json:"content,omitempty" jsonschema_description:"type create_file: the whole file content"`
	File    string     `json:"file,omitempty" jsonschema_description:"type patch: the file the diff changes, relative to the repository"`
	Diff    string     `json:"diff,omitempty" jsonschema_description:"type patch: a unified diff"`
}

// StrategyID identifies a strategy. Models send ids as numbers or strings; both decode,
// and the id is kept as its decimal or string text.
type StrategyID string

// UnmarshalJSON accepts a JSON number or string.
func (id *StrategyID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*id = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = StrategyID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("strategy id must be a number or a string, got %s", b)
	}
	if i, err := n.Int64(); err == nil {
		*id = StrategyID(strconv.FormatInt(i, 10))
		return nil
	}
	*id = StrategyID(n.String())
	return nil
}

// MarshalJSON writes an id that is an integer as a JSON number, else as a string.
func (id StrategyID) MarshalJSON() ([]byte, error) {
	if i, err := strconv.ParseInt(string(id), 10, 64); err == nil {
		return []byte(strconv.FormatInt(i, 10)), nil
	}
	return json.Marshal(string(id))
}

// Strategy is one way the fixer proposes to repair a failure.
type Strategy struct {
	ID          StrategyID `json:"id"`
	Description string     `json:"description"`
	Actions     []Action   `json:"actions"`
}

// Investigation is the fixer's request to look around before proposing a fix: read-only
// commands whose output is put into the next prompt.
type Investigation struct {
	Commands []string `json:"commands" jsonschema:"minItems=1,maxItems=4"`
}

// FixProposal is the fixer's answer: strategies with a recommended one, or, in the first
// round only, an investigation request.
type FixProposal struct {
	Analysis              string         `json:"analysis,omitempty"`
	Strategies            []Strategy     `json:"strategies,omitempty"`
	RecommendedStrategyID StrategyID     `json:"recommended_strategy_id,omitempty"`
	Investigate           *Investigation `json:"investigate,omitempty"`
}

// Recommended returns the recommended strategy, or nil when no strategy has its id.
func (p *FixProposal) Recommended() *Strategy {
	for i := range p.Strategies {
		if p.Strategies[i].ID == p.RecommendedStrategyID {
			return &p.Strategies[i]
		}
	}
	return nil
}

// FixSource says who proposed a fix.
type FixSource string

// The fix sources: the fixer model, or a scripted repair rule (package repair).
const (
	FixSourceModel    FixSource = "model"
	FixSourceScripted FixSource = "scripted"
)

// FixAttempt records one applied fix: the error it answered, what it did, and whether
// the next build succeeded.
type FixAttempt struct {
	Attempt       int           `json:"attempt"`
	Error         string        `json:"error"`
	ErrorCategory ErrorCategory `json:"error_category,omitempty"`
	// Source is who proposed the fix; empty in records older than scripted repairs
	// means the model.
	Source FixSource `json:"source,omitempty"`
	// Rule names the scripted rule that made the fix (source scripted).
	Rule     string   `json:"rule,omitempty"`
	Analysis string   `json:"analysis,omitempty"`
	Strategy string   `json:"strategy"`
	Actions  []Action `json:"actions"`
	// Plan is the build plan the fix put in place of the old one, when the fix changes
	// how the build runs (a phase run serially, compiler flags passed to configure)
	// rather than the package or the sandbox.
	Plan *BuildPlan `json:"plan,omitempty"`
	// Commands are the command lines the fix executed, in order.
	Commands []string `json:"commands,omitempty"`
	// Files are the repository paths the fix created or patched.
	Files     []string  `json:"files,omitempty"`
	Removed   []string  `json:"removed,omitempty"` // what the fix took from the original tree (Removal.String)
	Success   bool      `json:"success"`
	Timestamp time.Time `json:"timestamp"`
}

// ErrorRecord is one failure recorded in the run state.
type ErrorRecord struct {
	Node      string        `json:"node"`
	Phase     string        `json:"phase,omitempty"`
	Command   string        `json:"command,omitempty"`
	ExitCode  int           `json:"exit_code,omitempty"`
	Message   string        `json:"message"`
	Category  ErrorCategory `json:"category"`
	Timestamp time.Time     `json:"timestamp"`
}
