package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"

	"github.com/eclipse-atesor/atesor-go"
)

// Factory builds a provider from a configuration. Provider packages register one each.
type Factory func(ctx context.Context, cfg Config) (atesor.Provider, error)

// ModulePath is the import path of this package; provider packages live below it.
const ModulePath = "github.com/eclipse-atesor/atesor-go/provider"

// registry is the set of linked providers. Like database/sql drivers, it is written only
// by the init functions of the provider packages and read afterwards.
var registry = struct {
	sync.RWMutex
	m map[string]Factory
}{m: map[string]Factory{}}

// Register makes a provider available to [FromEnv] under name. Provider packages call it
// from init, so importing a package (or provider/all) links the provider in. Registering
// a name twice, or a nil factory, panics: it is a programming error.
func Register(name string, f Factory) {
	if f == nil {
		panic("provider: Register of " + name + " with a nil factory")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[name]; dup {
		panic("provider: Register called twice for " + name)
	}
	registry.m[name] = f
}

// Registered lists the names of the linked providers, sorted.
func Registered() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookup(name string) (Factory, bool) {
	registry.RLock()
	defer registry.RUnlock()
	f, ok := registry.m[name]
	return f, ok
}

// FromEnv builds the provider LLM_PROVIDER selects, configured by the environment (see
// [LoadSettingsFrom]). For LLM_PROVIDER=none it returns nil, nil: there is no provider,
// and every LLM node of the pipeline uses its fallback. It fails for an unknown name
// (listing the known ones), for a known provider whose package is not linked into the
// program (naming the package to import), and for a missing API key (naming the variable).
func FromEnv(ctx context.Context) (atesor.Provider, error) {
	return FromLookup(ctx, os.Getenv)
}

// FromLookup is [FromEnv] with the environment read through getenv.
func FromLookup(ctx context.Context, getenv func(string) string) (atesor.Provider, error) {
	s, err := LoadSettingsFrom(getenv)
	var missing *MissingKeyError
	if errors.As(err, &missing) {
		// A program that cannot use the provider at all says so before asking for a key.
		if lerr := Linked(s.Provider); lerr != nil {
			return nil, lerr
		}
	}
	if err != nil {
		return nil, err
	}
	if s.Provider == None {
		return nil, nil
	}
	if err := Linked(s.Provider); err != nil {
		return nil, err
	}
	return New(ctx, s.Provider, s.Config())
}

// Linked reports, as an error naming the package to import, that the provider name is
// known but not linked into the program; nil when it is linked (or is none).
func Linked(name string) error {
	if name == None {
		return nil
	}
	if _, ok := lookup(name); ok {
		return nil
	}
	if !slices.Contains(KnownProviders(), name) {
		return fmt.Errorf("unknown provider %q: known providers are %v", name, KnownProviders())
	}
	return fmt.Errorf("provider %s is not linked into this program: import _ %q (or %q for all four)",
		name, ModulePath+"/"+name, ModulePath+"/all")
}

// New builds a registered provider by name from an explicit configuration.
func New(ctx context.Context, name string, cfg Config) (atesor.Provider, error) {
	if err := Linked(name); err != nil {
		return nil, err
	}
	if name == None {
		return nil, fmt.Errorf("provider %q builds no provider", None)
	}
	f, _ := lookup(name)
	p, err := f(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create %s provider: %w", name, err)
	}
	return p, nil
}
