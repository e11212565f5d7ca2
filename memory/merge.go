package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Merge merges the example files srcs into the example file dst (created when missing),
// as the batch workflow does with the files of its shards. The agent is taken from dst's
// name (<agent>_examples.json). Examples are merged by id:
//
//   - equal examples are kept once;
//   - a manual example beats one that is not manual;
//   - between two manual examples, the newer timestamp wins (on equal dates the one met
//     first, dst before srcs in order);
//   - two auto examples with one id but different content come from different shards:
//     both are kept and the later one gets a new <agent>-auto-NNN id.
//
// Then the duplicate rules of Save drop auto examples that repeat an earlier example of
// the same sandbox, and the cap of 100 examples applies. dst's lock is held and dst is
// replaced atomically. An invalid file among dst and srcs stops the merge with an error
// naming it, before anything is written. Waiting for dst's lock ends with ctx.
func Merge(ctx context.Context, dst string, srcs ...string) error {
	return mergeExamples(ctx, dst, srcs, nil)
}

func agentOfFile(path string) (atesor.Agent, error) {
	base := filepath.Base(path)
	for a, n := range fileNames {
		if base == n {
			return a, nil
		}
	}
	name, ok := strings.CutSuffix(base, "_examples.json")
	if ok {
		for _, a := range atesor.Agents() {
			if strings.HasSuffix(name, string(a)) {
				return a, nil
			}
		}
	}
	return "", fmt.Errorf("merge %s: cannot tell the agent from the file name; name it scout_examples.json, fixer_examples.json or builder_examples.json", path)
}

func mergeExamples(ctx context.Context, dst string, srcs []string, beforeRename func(string)) error {
	agent, err := agentOfFile(dst)
	if err != nil {
		return err
	}
	lock, err := lockFile(ctx, dst)
	if err != nil {
		return err
	}
	defer lock.unlock()
	base, err := readDoc(dst)
	haveBase := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("merge into %s: %w", dst, err)
	}
	docs := []exampleDoc{base}
	for _, src := range srcs {
		d, err := readDoc(src)
		if err != nil {
			return fmt.Errorf("merge into %s: %w", dst, err)
		}
		if !haveBase {
			base, haveBase = exampleDoc{ExampleFile: d.ExampleFile, Extra: d.Extra}, true
		}
		docs = append(docs, d)
	}
	if base.Version == "" {
		base.Version = FileVersion
	}
	var all []atesor.Example
	for _, d := range docs {
		all = append(all, d.Examples...)
	}
	merged := mergeByID(agent, all)
	merged = dropDuplicates(agent, merged)
	base.Examples = capExamples(agent, merged, MaxExamplesPerAgent)
	data, err := base.marshal()
	if err != nil {
		return fmt.Errorf("merge into %s: %w", dst, err)
	}
	return writeAtomic(dst, data, beforeRename)
}

// mergeByID applies the id rules to examples in order.
func mergeByID(agent atesor.Agent, examples []atesor.Example) []atesor.Example {
	next := maxAutoNumber(agent, examples) + 1
	var out []atesor.Example
	byID := map[string][]int{} // id -> positions in out
	for _, e := range examples {
		if e.ID == "" {
			out = append(out, e)
			continue
		}
		pos := byID[e.ID]
		if len(pos) == 0 {
			byID[e.ID] = append(byID[e.ID], len(out))
			out = append(out, e)
			continue
		}
		if containsEqual(out, pos, e) {
			continue
		}
		i := pos[0]
		cur := &out[i]
		switch {
		case cur.IsManual() && !e.IsManual():
			// the manual example stays
		case !cur.IsManual() && e.IsManual():
			*cur = e
		case cur.IsManual() && e.IsManual():
			if e.Timestamp > cur.Timestamp {
				*cur = e
			}
		default:
			// Two auto examples from different shards: keep both.
			e.ID = fmt.Sprintf("%s-auto-%03d", agent, next)
			next++
			byID[e.ID] = append(byID[e.ID], len(out))
			out = append(out, e)
		}
	}
	return out
}

func containsEqual(out []atesor.Example, pos []int, e atesor.Example) bool {
	eb, err := json.Marshal(e)
	if err != nil {
		return false
	}
	for _, i := range pos {
		ob, err := json.Marshal(out[i])
		if err == nil && string(ob) == string(eb) {
			return true
		}
	}
	return false
}

// dropDuplicates removes auto examples that duplicate a manual example or an earlier
// auto example. Manual examples always stay.
func dropDuplicates(agent atesor.Agent, examples []atesor.Example) []atesor.Example {
	var seen []atesor.Example
	for _, e := range examples {
		if e.IsManual() {
			seen = append(seen, e)
		}
	}
	drop := map[int]bool{}
	for i, e := range examples {
		if e.IsManual() {
			continue
		}
		if findDuplicate(agent, seen, e) != nil {
			drop[i] = true
			continue
		}
		seen = append(seen, e)
	}
	out := make([]atesor.Example, 0, len(examples)-len(drop))
	for i, e := range examples {
		if !drop[i] {
			out = append(out, e)
		}
	}
	return out
}

// MergeRecipeCaches merges the recipe caches srcs into dst (created when missing): per
// package and sandbox the entry with the newest last_built wins (on equal times the one
// met first, dst before srcs in order). dst's lock is held and dst is replaced
// atomically; an invalid file stops the merge before anything is written. Waiting for
// dst's lock ends with ctx.
func MergeRecipeCaches(ctx context.Context, dst string, srcs ...string) error {
	return mergeRecipeCaches(ctx, dst, srcs, nil)
}

func mergeRecipeCaches(ctx context.Context, dst string, srcs []string, beforeRename func(string)) error {
	lock, err := lockFile(ctx, dst)
	if err != nil {
		return err
	}
	defer lock.unlock()
	var out []atesor.CachedRecipe
	index := map[recipeKey]int{}
	for _, p := range append([]string{dst}, srcs...) {
		entries, err := readRecipeCache(p)
		if err != nil {
			return fmt.Errorf("merge recipe caches into %s: %w", dst, err)
		}
		for _, r := range entries {
			k := keyOf(&r)
			if i, ok := index[k]; ok {
				if r.LastBuilt.After(out[i].LastBuilt) {
					out[i] = r
				}
				continue
			}
			index[k] = len(out)
			out = append(out, r)
		}
	}
	data, err := encodeRecipeCache(out)
	if err != nil {
		return fmt.Errorf("merge recipe caches into %s: %w", dst, err)
	}
	return writeAtomic(dst, data, beforeRename)
}
