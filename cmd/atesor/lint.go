package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// lintProblem is one finding of examples lint.
type lintProblem struct {
	File string `json:"file"`
	ID   string `json:"id,omitempty"`
	Msg  string `json:"message"`
}

func (p lintProblem) String() string {
	if p.ID != "" {
		return fmt.Sprintf("%s: %s: %s", p.File, p.ID, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Msg)
}

// autoID is the id form of learned examples: <agent>-auto-NNN.
var autoID = regexp.MustCompile(`^[a-z]+-auto-[0-9]+$`)

// sandboxManagers maps each sandbox key to its package manager and the managers of
// other distros that must not appear in its commands.
var sandboxManagers = map[string]struct {
	own     string
	foreign []string
}{
	"alpine-riscv64": {own: "apk", foreign: []string{"apt-get", "apt", "dpkg", "yum", "dnf", "pacman", "zypper"}},
	"debian-riscv64": {own: "apt-get", foreign: []string{"apk", "yum", "dnf", "pacman", "zypper"}},
}

// v2Keys are the top-level keys of a v2.0 example file.
var v2Keys = []string{"version", "description", "general_guidelines", "examples"}

// lintExampleFile checks one example file: no duplicate JSON keys, the v2.0 keys, unique
// ids, no manual example with an id of the auto form, a sandbox that exists and whose
// package manager the commands use, fixer command actions that pass fixCommand, and
// error patterns that compile. The legacy supervisor file is only checked for valid
// JSON and duplicate keys.
func lintExampleFile(name string, data []byte, fixCommand func(string) error) []lintProblem {
	var out []lintProblem
	add := func(id, format string, args ...any) {
		out = append(out, lintProblem{File: name, ID: id, Msg: fmt.Sprintf(format, args...)})
	}
	if err := memory.CheckDuplicateKeys(bytes.NewReader(data)); err != nil {
		add("", "%v", err)
		return out
	}
	if filepath.Base(name) == "supervisor_examples.json" {
		return out // legacy v1.0 file that no code reads
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		add("", "not a JSON object: %v", err)
		return out
	}
	for _, k := range v2Keys {
		if _, ok := top[k]; !ok {
			add("", "missing the v2.0 key %q", k)
		}
	}
	var version string
	if v, ok := top["version"]; ok {
		if err := json.Unmarshal(v, &version); err != nil || version != memory.FileVersion {
			add("", "version is %s, want %q", v, memory.FileVersion)
		}
	}
	file, err := memory.ParseExampleFile(data)
	if err != nil {
		add("", "cannot decode the examples: %v", err)
		return out
	}
	seen := map[string]int{}
	for i, ex := range file.Examples {
		id := ex.ID
		label := id
		if label == "" {
			label = fmt.Sprintf("example #%d", i+1)
			add(label, "no id")
		}
		if id != "" {
			if j, dup := seen[id]; dup {
				add(label, "id used twice (examples #%d and #%d)", j+1, i+1)
			}
			seen[id] = i
		}
		if ex.IsManual() && autoID.MatchString(id) {
			add(label, "a manual example must not use the auto-learned id form <agent>-auto-NNN; pick another id")
		}
		if ex.Name == "" {
			add(label, "no name")
		}
		if ex.BuildSystem == "" {
			add(label, "no build_system")
		}
		out = append(out, lintSandbox(name, label, ex)...)
		if ex.ErrorPattern != "" {
			if _, err := regexp.Compile(ex.ErrorPattern); err != nil {
				add(label, "error_pattern does not compile: %v", err)
			}
		}
		if ex.Fix != nil {
			for k, a := range ex.Fix.Actions {
				if a.Type != atesor.ActionCommand {
					continue
				}
				if err := fixCommand(a.Command); err != nil {
					add(label, "fix action %d %q is refused: %v", k+1, a.Command, err)
				}
			}
		}
	}
	return out
}

// lintSandbox checks that the example names a known sandbox and that its commands use
// that sandbox's package manager.
func lintSandbox(file, label string, ex atesor.Example) []lintProblem {
	if ex.Sandbox == "" {
		return []lintProblem{{File: file, ID: label, Msg: "no sandbox: the example counts as alpine-riscv64; set sandbox to alpine-riscv64 or debian-riscv64"}}
	}
	m, ok := sandboxManagers[ex.Sandbox]
	if !ok {
		return []lintProblem{{File: file, ID: label, Msg: fmt.Sprintf("unknown sandbox %q: use alpine-riscv64 or debian-riscv64", ex.Sandbox)}}
	}
	var out []lintProblem
	for _, line := range exampleCommands(ex) {
		for _, prog := range commandWords(line) {
			for _, f := range m.foreign {
				if prog == f {
					out = append(out, lintProblem{File: file, ID: label,
						Msg: fmt.Sprintf("command %q uses %s in sandbox %s; use %s", line, f, ex.Sandbox, m.own)})
				}
			}
		}
	}
	return out
}

// exampleCommands lists the command lines of an example: plan and phase commands and
// fix command actions.
func exampleCommands(ex atesor.Example) []string {
	var out []string
	for _, ph := range ex.Plan {
		out = append(out, ph.Commands...)
	}
	for _, ph := range ex.Phases {
		out = append(out, ph.Commands...)
	}
	if ex.Fix != nil {
		for _, a := range ex.Fix.Actions {
			if a.Type == atesor.ActionCommand {
				out = append(out, a.Command)
			}
		}
	}
	return out
}

var commandSeparators = regexp.MustCompile(`&&|\|\||[;|&()\n]`)

// commandWords returns the program of each simple command of a line, skipping sudo and
// leading VAR=value assignments. It is a lint heuristic, not a shell parser.
func commandWords(line string) []string {
	var out []string
	for _, part := range commandSeparators.Split(line, -1) {
		fields := strings.Fields(part)
		for len(fields) > 0 && (fields[0] == "sudo" || fields[0] == "env" || strings.Contains(fields[0], "=")) {
			fields = fields[1:]
		}
		if len(fields) > 0 {
			out = append(out, filepath.Base(fields[0]))
		}
	}
	return out
}
