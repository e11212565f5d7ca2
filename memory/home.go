package memory

import (
	"fmt"
	"os"
	"path/filepath"
)

// Home returns Atesor's state home: $ATESOR_HOME, else $XDG_DATA_HOME/atesor-ai, else
// ~/.local/share/atesor-ai. In a source checkout, ATESOR_HOME=. uses the checkout's own
// data/ directory.
func Home() (string, error) {
	if h := os.Getenv("ATESOR_HOME"); h != "" {
		return h, nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "atesor-ai"), nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the state home: set ATESOR_HOME or XDG_DATA_HOME: %w", err)
	}
	return filepath.Join(u, ".local", "share", "atesor-ai"), nil
}

// ExamplesDir is the examples directory of a state home: <home>/data/examples.
func ExamplesDir(home string) string { return filepath.Join(home, "data", "examples") }

// RecipeCachePath is the recipe cache of a state home: <home>/data/recipe_cache.json.
func RecipeCachePath(home string) string { return filepath.Join(home, "data", RecipeCacheFile) }
