package atesor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Example sources.
const (
	SourceManual = "manual"
	SourceAuto   = "auto"
)

// Trigger is when a scout example applies.
type Trigger struct {
	BuildSystem BuildSystem `json:"build_system,omitempty"`
	HasMain     *bool       `json:"has_main,omitempty"`
	MainPath    string      `json:"main_path,omitempty"`
	ModuleDir   string      `json:"module_dir,omitempty"`
}

// ExampleFix is the fix of a fixer example.
type ExampleFix struct {
	Analysis string   `json:"analysis"`
	Strategy string   `json:"strategy"`
	Actions  []Action `json:"actions"`
}

// Example is a few-shot example of the v2.0 example files. The common fields are shared by
// all agents; Trigger and Plan belong to scout examples, ErrorPattern and Fix to fixer
// examples, Phases and TimeoutRecommendation to builder examples. Keys this type does not
// know are kept in Extra and written back, so a rewrite never loses what a person added.
type Example struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Tags        []string    `json:"tags"`
	BuildSystem BuildSystem `json:"build_system"`
	// Source is manual or auto; empty or unknown counts as manual.
	Source    string `json:"source,omitempty"`
	RepoName  string `json:"repo_name,omitempty"`
	Sandbox   string `json:"sandbox,omitempty"`
	Timestamp string `json:"timestamp,omitempty"` // YYYY-MM-DD
	Reasoning string `json:"reasoning,omitempty"`

	Trigger *Trigger `json:"trigger,omitempty"`
	Plan    []Phase  `json:"plan,omitempty"`

	ErrorPattern string      `json:"error_pattern,omitempty"`
	Fix          *ExampleFix `json:"fix,omitempty"`

	Phases                []Phase `json:"phases,omitempty"`
	TimeoutRecommendation string  `json:"timeout_recommendation,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// IsManual reports whether the example was written by a person: a missing or unknown
// source counts as manual.
func (e Example) IsManual() bool { return e.Source != SourceAuto }

// SandboxOrDefault returns the example's sandbox key; none means alpine-riscv64.
func (e Example) SandboxOrDefault() string {
	if e.Sandbox == "" {
		return DefaultSandboxKey
	}
	return e.Sandbox
}

type examplePlain Example

var exampleKeys = func() map[string]bool {
	keys := map[string]bool{}
	b, _ := json.Marshal(examplePlain{Trigger: &Trigger{}, Fix: &ExampleFix{}, Plan: []Phase{{}}, Phases: []Phase{{}},
		Source: "x", RepoName: "x", Sandbox: "x", Timestamp: "x", Reasoning: "x", ErrorPattern: "x", TimeoutRecommendation: "x"})
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	for k := range m {
		keys[k] = true
	}
	return keys
}()

// UnmarshalJSON decodes an example and keeps unknown keys in Extra.
func (e *Example) UnmarshalJSON(b []byte) error {
	var p examplePlain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k, v := range all {
		if !exampleKeys[k] {
			if p.Extra == nil {
				p.Extra = map[string]json.RawMessage{}
			}
			var c bytes.Buffer
			if err := json.Compact(&c, v); err != nil {
				return err
			}
			p.Extra[k] = c.Bytes()
		}
	}
	*e = Example(p)
	return nil
}

// MarshalJSON encodes an example with its known fields first, then Extra in key order.
func (e Example) MarshalJSON() ([]byte, error) {
	p := examplePlain(e)
	if p.Tags == nil {
		p.Tags = []string{}
	}
	b, err := json.Marshal(p)
	if err != nil || len(e.Extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(e.Extra))
	for k := range e.Extra {
		if !exampleKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := b[:len(b)-1]
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		if !json.Valid(e.Extra[k]) {
			return nil, fmt.Errorf("example %s: extra key %q holds invalid JSON", e.ID, k)
		}
		out = append(out, ',')
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, e.Extra[k]...)
	}
	return append(out, '}'), nil
}

// ExampleFile is a v2.0 example file.
type ExampleFile struct {
	Version           string    `json:"version"`
	Description       string    `json:"description"`
	GeneralGuidelines []string  `json:"general_guidelines"`
	Examples          []Example `json:"examples"`
}

// Query is what few-shot retrieval scores examples against.
type Query struct {
	Sandbox      string      `json:"sandbox"`
	BuildSystem  BuildSystem `json:"build_system,omitempty"`
	ErrorMessage string      `json:"error_message,omitempty"`
	HasMain      *bool       `json:"has_main,omitempty"`
	MainPath     string      `json:"main_path,omitempty"`
	ModuleDir    string      `json:"module_dir,omitempty"`
	HasCGO       bool        `json:"has_cgo,omitempty"`
}
