package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// RecipeCacheVersion is the version of the recipe cache files this package writes.
const RecipeCacheVersion = "1"

// recipeCache is recipe_cache.json: one entry per package and sandbox, sorted by both.
type recipeCache struct {
	Version string                `json:"version"`
	Entries []atesor.CachedRecipe `json:"entries"`
}

type recipeKey struct{ pkg, sandbox string }

func keyOf(r *atesor.CachedRecipe) recipeKey { return recipeKey{r.Package, r.Sandbox} }

// ParseRecipeCache decodes a recipe cache file and checks that no package and sandbox has
// two entries.
func ParseRecipeCache(data []byte) ([]atesor.CachedRecipe, error) {
	var c recipeCache
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON object")
	}
	if c.Version == "" {
		return nil, errors.New(`no "version": not a recipe cache`)
	}
	seen := map[recipeKey]bool{}
	for i := range c.Entries {
		k := keyOf(&c.Entries[i])
		if k.pkg == "" || k.sandbox == "" {
			return nil, fmt.Errorf("entry %d has no package or no sandbox", i)
		}
		if seen[k] {
			return nil, fmt.Errorf("two entries for package %s in sandbox %s", k.pkg, k.sandbox)
		}
		seen[k] = true
	}
	return c.Entries, nil
}

func encodeRecipeCache(entries []atesor.CachedRecipe) ([]byte, error) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := keyOf(&entries[i]), keyOf(&entries[j])
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		return a.sandbox < b.sandbox
	})
	if entries == nil {
		entries = []atesor.CachedRecipe{}
	}
	b, err := json.MarshalIndent(recipeCache{Version: RecipeCacheVersion, Entries: entries}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// readRecipeCache reads a recipe cache; a missing file is an empty cache, an invalid one
// a *BadFileError.
func readRecipeCache(path string) ([]atesor.CachedRecipe, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	entries, err := ParseRecipeCache(data)
	if err != nil {
		return nil, &BadFileError{Path: path, Err: err}
	}
	return entries, nil
}

// Recipe returns the cache entry of pkg in sandbox (empty: the active sandbox), whatever
// source it was built from, or nil, nil on a miss. Use RecipeFor to also match the
// source. An invalid cache file is logged and misses.
func (s *Store) Recipe(ctx context.Context, pkg, sandbox string) (*atesor.CachedRecipe, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sandbox == "" {
		sandbox = s.sandbox
	}
	entries, err := readRecipeCache(s.recipePath)
	var bad *BadFileError
	if errors.As(err, &bad) {
		s.log.Error("recipe cache is not valid JSON; every lookup misses until it is repaired",
			"path", bad.Path, "error", bad.Err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if entries[i].Package == pkg && entries[i].Sandbox == sandbox {
			r := entries[i]
			return &r, nil
		}
	}
	return nil, nil
}

// RecipeFor returns the cache entry of pkg in sandbox when it was built from the same
// source: the same source URL or path, the same SHA-256 and the same commit (a directory
// source records neither). Any difference is a miss (nil, nil), so a changed tarball or
// a new commit is built again.
func (s *Store) RecipeFor(ctx context.Context, pkg, sandbox, source, sha256, commit string) (*atesor.CachedRecipe, error) {
	r, err := s.Recipe(ctx, pkg, sandbox)
	if err != nil || r == nil {
		return nil, err
	}
	if !SameSource(r, source, sha256, commit) {
		return nil, nil
	}
	return r, nil
}

// SameSource reports whether r was built from the given source, SHA-256 and commit.
func SameSource(r *atesor.CachedRecipe, source, sha256, commit string) bool {
	return r.Source == source && r.SourceSHA256 == sha256 && r.SourceCommit == commit
}

// SaveRecipe stores r, replacing the entry of the same package and sandbox (an empty
// sandbox gets the active one). The cache's lock is held and the file replaced
// atomically; an invalid cache file is not touched and SaveRecipe returns an error naming
// it.
func (s *Store) SaveRecipe(ctx context.Context, r atesor.CachedRecipe) error {
	if r.Package == "" {
		return errors.New("save a recipe: the entry has no package name")
	}
	if r.Sandbox == "" {
		r.Sandbox = s.sandbox
	}
	if err := os.MkdirAll(dirOf(s.recipePath), 0o755); err != nil {
		return fmt.Errorf("save a recipe: %w", err)
	}
	lock, err := lockFile(ctx, s.recipePath)
	if err != nil {
		return err
	}
	defer lock.unlock()
	entries, err := readRecipeCache(s.recipePath)
	if err != nil {
		return fmt.Errorf("save the recipe of %s: %w", r.Package, err)
	}
	replaced := false
	for i := range entries {
		if keyOf(&entries[i]) == keyOf(&r) {
			entries[i] = r
			replaced = true
		}
	}
	if !replaced {
		entries = append(entries, r)
	}
	data, err := encodeRecipeCache(entries)
	if err != nil {
		return fmt.Errorf("save the recipe of %s: %w", r.Package, err)
	}
	if err := writeAtomic(s.recipePath, data, s.beforeRename); err != nil {
		return fmt.Errorf("save the recipe of %s: %w", r.Package, err)
	}
	return nil
}
