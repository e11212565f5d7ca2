package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Save stores a learned example of agent. It saves nothing (false, nil) when the example
// has no name or no build_system, or when it duplicates an example of the same sandbox:
// same repo_name and build_system; for scout and builder examples the same set of
// commands; for fixer examples the same error_pattern and build_system. A saved example
// gets the sandbox of the active platform when it has none, the id <agent>-auto-NNN (one
// above the highest auto number in the file on disk), source auto and today's date. The
// file then keeps at most 100 examples: every manual one and the newest auto ones.
//
// The file's lock (<file>.lock) is held from reading to the atomic replace. A file that
// is not valid JSON is not touched: Save returns an error naming it.
func (s *Store) Save(ctx context.Context, agent atesor.Agent, ex atesor.Example) (bool, error) {
	path, err := s.path(agent)
	if err != nil {
		return false, err
	}
	if strings.TrimSpace(ex.Name) == "" || ex.BuildSystem == "" {
		s.log.Debug("few-shot example not saved: it needs a name and a build_system", "agent", string(agent))
		return false, nil
	}
	if ex.Sandbox == "" {
		ex.Sandbox = s.sandbox
	}
	lock, err := lockFile(ctx, path)
	if err != nil {
		return false, err
	}
	defer lock.unlock()

	d, err := readDoc(path)
	if errors.Is(err, fs.ErrNotExist) {
		d, err = bundledHeader(agent)
	}
	if err != nil {
		return false, fmt.Errorf("save a %s example: %w", agent, err)
	}
	if dup := findDuplicate(agent, d.Examples, ex); dup != nil {
		s.log.Debug("few-shot example not saved: duplicate", "agent", string(agent), "of", dup.ID, "name", ex.Name)
		return false, nil
	}
	ex.ID = fmt.Sprintf("%s-auto-%03d", agent, maxAutoNumber(agent, d.Examples)+1)
	ex.Source = atesor.SourceAuto
	ex.Timestamp = s.now().Format("2006-01-02")
	d.Examples = capExamples(agent, append(d.Examples, ex), MaxExamplesPerAgent)
	data, err := d.marshal()
	if err != nil {
		return false, fmt.Errorf("save a %s example: encode %s: %w", agent, path, err)
	}
	if err := writeAtomic(path, data, s.beforeRename); err != nil {
		return false, fmt.Errorf("save a %s example: %w", agent, err)
	}
	return true, nil
}

// bundledHeader is an empty file for agent with the bundled file's version, description
// and guidelines, used when the file on disk was deleted.
func bundledHeader(agent atesor.Agent) (exampleDoc, error) {
	name, err := FileName(agent)
	if err != nil {
		return exampleDoc{}, err
	}
	d := exampleDoc{ExampleFile: atesor.ExampleFile{Version: FileVersion}}
	data, err := fs.ReadFile(Bundled(), name)
	if err != nil {
		return d, nil
	}
	b, err := parseDoc(data)
	if err != nil {
		return d, nil
	}
	b.Examples = nil
	return b, nil
}

// autoNumber returns NNN of an id <agent>-auto-NNN, or -1.
func autoNumber(agent atesor.Agent, id string) int {
	rest, ok := strings.CutPrefix(id, string(agent)+"-auto-")
	if !ok || rest == "" {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || strings.HasPrefix(rest, "+") {
		return -1
	}
	return n
}

// maxAutoNumber is the highest auto number among examples (0 when there is none).
func maxAutoNumber(agent atesor.Agent, examples []atesor.Example) int {
	m := 0
	for _, e := range examples {
		m = max(m, autoNumber(agent, e.ID))
	}
	return m
}

// findDuplicate returns the example of examples that ex duplicates, or nil. Both must be
// in the same sandbox (no sandbox counts as alpine-riscv64).
func findDuplicate(agent atesor.Agent, examples []atesor.Example, ex atesor.Example) *atesor.Example {
	for i := range examples {
		if isDuplicate(agent, &examples[i], &ex) {
			return &examples[i]
		}
	}
	return nil
}

func isDuplicate(agent atesor.Agent, a, b *atesor.Example) bool {
	if a.SandboxOrDefault() != b.SandboxOrDefault() {
		return false
	}
	if a.RepoName != "" && a.RepoName == b.RepoName && a.BuildSystem == b.BuildSystem {
		return true
	}
	switch agent {
	case atesor.AgentScout, atesor.AgentBuilder:
		ca, cb := commandSet(a), commandSet(b)
		return len(ca) > 0 && slices.Equal(ca, cb)
	case atesor.AgentFixer:
		return a.ErrorPattern != "" && a.ErrorPattern == b.ErrorPattern && a.BuildSystem == b.BuildSystem
	}
	return false
}

// commandSet is the sorted set of the commands of a scout plan or builder phases.
func commandSet(e *atesor.Example) []string {
	var cs []string
	for _, ps := range [][]atesor.Phase{e.Plan, e.Phases} {
		for _, p := range ps {
			for _, c := range p.Commands {
				if c = strings.TrimSpace(c); c != "" {
					cs = append(cs, c)
				}
			}
		}
	}
	sort.Strings(cs)
	return slices.Compact(cs)
}

// capExamples keeps at most limit examples: all manual ones, and of the auto ones the
// newest by timestamp (between equal dates, the higher auto number is newer). The order
// of the kept examples does not change. When manual examples alone exceed limit, all of
// them stay.
func capExamples(agent atesor.Agent, examples []atesor.Example, limit int) []atesor.Example {
	excess := len(examples) - limit
	if excess <= 0 {
		return examples
	}
	var autos []int
	for i, e := range examples {
		if !e.IsManual() {
			autos = append(autos, i)
		}
	}
	sort.SliceStable(autos, func(x, y int) bool {
		a, b := &examples[autos[x]], &examples[autos[y]]
		if a.Timestamp != b.Timestamp {
			return a.Timestamp < b.Timestamp
		}
		return autoNumber(agent, a.ID) < autoNumber(agent, b.ID)
	})
	drop := map[int]bool{}
	for _, i := range autos[:min(excess, len(autos))] {
		drop[i] = true
	}
	out := make([]atesor.Example, 0, len(examples)-len(drop))
	for i, e := range examples {
		if !drop[i] {
			out = append(out, e)
		}
	}
	return out
}
