package memory

import (
	"os"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go/internal/statehome"
)

// Home returns Atesor's state home from the environment: $ATESOR_HOME, else
// $XDG_DATA_HOME/atesor-ai, else ~/.local/share/atesor-ai, and an error when none of
// them is set. In a source checkout, ATESOR_HOME=. uses the checkout's own data/
// directory. The library never calls it itself: a program calls it once and passes the
// home to what keeps files there (graph.Config, sandbox.WithHome, [ExamplesDir]).
func Home() (string, error) { return statehome.Find(os.Getenv) }

// ExamplesDir is the examples directory of a state home: <home>/data/examples.
func ExamplesDir(home string) string { return filepath.Join(home, "data", "examples") }

// RecipeCachePath is the recipe cache of a state home: <home>/data/recipe_cache.json.
func RecipeCachePath(home string) string { return filepath.Join(home, "data", RecipeCacheFile) }
