// Package statehome finds Atesor's state home, the directory that holds what outlives a
// run: the cached root filesystems and accelerator layers, run states for resume, the
// learned examples and recipe cache, downloads and indexes. Every part that keeps such
// files takes the home as a setting; this is the one place that derives its default
// from the environment, so the sandbox cache and the example store can never disagree
// about where the home is. The library does not call it on its own: the command line
// (through memory.Home) does and passes the result down.
package statehome

import (
	"errors"
	"path/filepath"
)

// Variable names the state home explicitly.
const Variable = "ATESOR_HOME"

// ErrNoHome is wrapped by [Find]'s error when the environment names no directory.
var ErrNoHome = errors.New("find the state home: set ATESOR_HOME or XDG_DATA_HOME")

// Find returns the state home named by getenv: $ATESOR_HOME, else
// $XDG_DATA_HOME/atesor-ai, else $HOME/.local/share/atesor-ai. It fails, wrapping
// [ErrNoHome], when all three are empty, rather than guessing a directory that may
// belong to another user.
func Find(getenv func(string) string) (string, error) {
	if h := getenv(Variable); h != "" {
		return h, nil
	}
	if x := getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "atesor-ai"), nil
	}
	if u := getenv("HOME"); u != "" {
		return filepath.Join(u, ".local", "share", "atesor-ai"), nil
	}
	return "", ErrNoHome
}
