package sandbox

// The parts every backend shares: the repository directory, the closed flag, and the
// verdict on a git clone.

import (
	"fmt"
	"path"
	"sync"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/redact"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

// repoTracker remembers the repository directory (/workspace/<repo>) of a sandbox:
// relative paths, the default working directory and the write boundary of
// WriteFile refer to it. Every backend embeds one. Safe for concurrent use.
type repoTracker struct {
	repoMu sync.Mutex
	repo   string
}

// setRepo sets the repository from its name (the [WithRepo] option); "" keeps it unset.
func (t *repoTracker) setRepo(name string) {
	if name == "" {
		return
	}
	t.repoMu.Lock()
	defer t.repoMu.Unlock()
	t.repo = path.Join(Workspace, name)
}

// repoDir returns the repository directory, or "" before it is known.
func (t *repoTracker) repoDir() string {
	t.repoMu.Lock()
	defer t.repoMu.Unlock()
	return t.repo
}

// noteRepo sets the repository from the first CopyIn destination below /workspace.
func (t *repoTracker) noteRepo(p string) {
	t.repoMu.Lock()
	defer t.repoMu.Unlock()
	if t.repo == "" {
		t.repo = RepoOf(p)
	}
}

// workDir returns the sandbox directory a command runs in: dir when absolute, else dir
// relative to the repository (or to /workspace before the repository is known).
func (t *repoTracker) workDir(dir string) string {
	if path.IsAbs(dir) {
		return path.Clean(dir)
	}
	base := t.repoDir()
	if base == "" {
		base = Workspace
	}
	return path.Join(base, dir)
}

// closer records that a sandbox was closed. Safe for concurrent use.
type closer struct {
	closeMu sync.Mutex
	closed  bool
}

// isClosed reports whether Close was called.
func (c *closer) isClosed() bool {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	return c.closed
}

// markClosed marks the sandbox closed and reports whether this call closed it (false
// when it already was).
func (c *closer) markClosed() bool {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	first := !c.closed
	c.closed = true
	return first
}

// cloneError turns the result of a git clone command into an error, or nil.
func cloneError(src string, res atesor.CommandResult, err error) error {
	if err != nil {
		return fmt.Errorf("sandbox: git clone %s: %w", redact.URLs(src), err)
	}
	if !res.OK() {
		return fmt.Errorf("sandbox: git clone %s failed (exit %d): %s", redact.URLs(src), res.ExitCode, redact.URLs(proc.Tail(res.Output, 2000)))
	}
	return nil
}
