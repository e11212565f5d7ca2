package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// MaxExamplesPerAgent is the cap of each example file: after a save, a file with more
// examples keeps every manual one and drops the oldest auto-learned ones.
const MaxExamplesPerAgent = 100

// RecipeCacheFile is the file name of the recipe cache.
const RecipeCacheFile = "recipe_cache.json"

// Store is the few-shot example store and recipe cache of one state home. It is safe for
// concurrent use, also by several processes sharing the files.
type Store struct {
	dir        string
	recipePath string
	sandbox    string
	log        *slog.Logger
	now        func() time.Time

	// beforeRename is a test hook run between writing a temporary file and the rename.
	beforeRename func(tmp string)

	mu    sync.Mutex
	cache map[atesor.Agent]*loaded
}

var _ atesor.MemoryStore = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithRecipeCache sets the recipe cache file. The default is recipe_cache.json in the
// parent of the examples directory, that is <home>/data/recipe_cache.json.
func WithRecipeCache(path string) Option { return func(s *Store) { s.recipePath = path } }

// WithSandbox sets the active sandbox key, for example debian-riscv64 (see
// atesor.Platform.SandboxKey). Save fills it into examples without a sandbox, and Relevant
// uses it for a query without one. The default is alpine-riscv64, as in the reference
// system.
func WithSandbox(key string) Option { return func(s *Store) { s.sandbox = key } }

// WithLogger sets the logger for reports such as an invalid file. The default is
// slog.Default().
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithClock sets the clock that dates learned examples (default the wall clock): the
// pipeline's clock, or a test's.
func WithClock(c atesor.Clock) Option {
	return func(s *Store) {
		if c != nil {
			s.now = c.Now
		}
	}
}

// Open opens the examples directory dir, creating it when needed, and copies each bundled
// file that dir does not have. An existing file is never replaced.
func Open(dir string, opts ...Option) (*Store, error) {
	s := &Store{
		dir:     dir,
		sandbox: atesor.DefaultSandboxKey,
		log:     slog.Default(),
		now:     time.Now,
		cache:   map[atesor.Agent]*loaded{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.recipePath == "" {
		s.recipePath = filepath.Join(filepath.Dir(filepath.Clean(dir)), RecipeCacheFile)
	}
	if s.sandbox == "" {
		s.sandbox = atesor.DefaultSandboxKey
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the examples directory %s: %w", dir, err)
	}
	if err := installBundled(dir); err != nil {
		return nil, fmt.Errorf("install the bundled examples into %s: %w", dir, err)
	}
	return s, nil
}

// Dir returns the examples directory.
func (s *Store) Dir() string { return s.dir }

// RecipeCachePath returns the recipe cache file.
func (s *Store) RecipeCachePath() string { return s.recipePath }

// Sandbox returns the active sandbox key.
func (s *Store) Sandbox() string { return s.sandbox }

// path returns the example file of agent.
func (s *Store) path(agent atesor.Agent) (string, error) {
	n, err := FileName(agent)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.dir, n), nil
}

// loaded is a parsed example file with its compiled error patterns, reused while the
// file on disk is unchanged.
type loaded struct {
	info     fs.FileInfo
	mod      time.Time
	size     int64
	examples []atesor.Example
	patterns []*pattern
	bad      bool
}

// examples returns the examples of agent with their compiled patterns. A missing file
// has none; an invalid one is logged (once per version of the file) and has none.
func (s *Store) examples(agent atesor.Agent) (*loaded, error) {
	path, err := s.path(agent)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &loaded{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the %s examples: %w", agent, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.cache[agent]; l != nil && l.info != nil && os.SameFile(l.info, st) && l.mod.Equal(st.ModTime()) && l.size == st.Size() {
		return l, nil
	}
	d, err := readDoc(path)
	var bad *BadFileError
	switch {
	case errors.As(err, &bad):
		s.log.Error("few-shot example file is not valid JSON; the agent gets no examples until it is repaired",
			"agent", string(agent), "path", path, "error", bad.Err)
		l := &loaded{info: st, mod: st.ModTime(), size: st.Size(), bad: true}
		s.cache[agent] = l
		return l, nil
	case errors.Is(err, fs.ErrNotExist):
		return &loaded{}, nil
	case err != nil:
		return nil, fmt.Errorf("read the %s examples: %w", agent, err)
	}
	l := &loaded{info: st, mod: st.ModTime(), size: st.Size(), examples: d.Examples,
		patterns: make([]*pattern, len(d.Examples))}
	for i, ex := range d.Examples {
		l.patterns[i] = compilePattern(ex.ErrorPattern)
	}
	s.cache[agent] = l
	return l, nil
}

// Relevant returns at most limit examples of agent that match q, best first (limit <= 0
// means no limit). Examples of other sandboxes are dropped first; a query without a
// sandbox uses the store's active sandbox. A missing or invalid file yields no examples.
func (s *Store) Relevant(ctx context.Context, agent atesor.Agent, q atesor.Query, limit int) ([]atesor.Example, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.Sandbox == "" {
		q.Sandbox = s.sandbox
	}
	l, err := s.examples(agent)
	if err != nil {
		return nil, err
	}
	return rank(l.examples, l.patterns, q, limit), nil
}
