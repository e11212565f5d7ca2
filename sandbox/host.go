package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
	"github.com/eclipse-atesor/atesor-go/internal/redact"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

var (
	_ atesor.Sandbox = (*Host)(nil)
	_ HostPather     = (*Host)(nil)
)

// Host runs commands on the host itself, in a private file tree whose /workspace is
// <workdir>/workspace: right on a native riscv64 machine, and used by tests anywhere (its
// artifacts then fail verification, as they should). Commands get the same environment
// allowlist as the other backends (PATH is the host's, HOME is <workdir>/root), stdin
// from /dev/null, and their whole process group is killed on timeout or cancellation.
// It runs model-chosen commands on the host without isolation: the CLI asks for
// --unsafe-host.
type Host struct {
	platform atesor.Platform
	o        *options
	root     string
	owned    bool
	repoTracker
	pkgMu sync.Mutex
}

// NewHost makes a host sandbox for the platform.
func NewHost(p atesor.Platform, opts ...Option) (*Host, error) {
	o := buildOptions(opts)
	h := &Host{platform: p, o: o, root: o.workdir}
	if h.root == "" {
		if err := os.MkdirAll(filepath.Join(o.home, "sandboxes", "runs"), 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		dir, err := os.MkdirTemp(filepath.Join(o.home, "sandboxes", "runs"), "host-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		h.root, h.owned = dir, true
	}
	abs, err := filepath.Abs(h.root)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	h.root = abs
	for _, d := range []string{"workspace", "root"} {
		if err := os.MkdirAll(filepath.Join(h.root, d), 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	h.setRepo(o.repo)
	if repo := h.repoDir(); repo != "" {
		if err := os.MkdirAll(osroot.HostPath(h.root, repo), 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	return h, nil
}

// Platform returns the sandbox's distro profile.
func (h *Host) Platform() atesor.Platform { return h.platform }

// Root returns the host directory that plays the sandbox's /.
func (h *Host) Root() string { return h.root }

// HostPath maps a sandbox path to the host.
func (h *Host) HostPath(p string) (string, error) {
	resolved, err := ResolvePath(h.root, p)
	if err != nil {
		return "", err
	}
	return osroot.HostPath(h.root, resolved), nil
}

// Exec runs cmd.Line with /bin/sh -c on the host. The Network switch cannot be enforced
// on the host and is ignored.
func (h *Host) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	hdir, err := h.HostPath(h.workDir(cmd.Dir))
	if err != nil {
		return atesor.CommandResult{Line: cmd.Line}, fmt.Errorf("sandbox: %w", err)
	}
	if IsPackageManagerCommand(cmd.Line) {
		h.pkgMu.Lock()
		defer h.pkgMu.Unlock()
	}
	timeout := cmd.Timeout
	if timeout <= 0 {
		timeout = h.o.timeout
	}
	pathEnv := os.Getenv("PATH")
	if pathEnv == "" {
		pathEnv = DefaultPath
	}
	env := proc.Env(pathEnv, filepath.Join(h.root, "root"), h.o.cc, h.o.cxx, cmd.Env)
	return proc.Run(ctx, proc.Process{Argv: []string{"/bin/sh", "-c", cmd.Line}, Dir: hdir, Env: env, Line: cmd.Line,
		Timeout: timeout, Stdout: cmd.Stdout, Stderr: cmd.Stderr})
}

// CopyIn copies a host directory or file into the sandbox tree, unpacks a source
// tarball there, or clones a git URL (git clone --depth 1 with submodules).
func (h *Host) CopyIn(ctx context.Context, src, sandboxPath string) error {
	dest, err := ResolvePath(h.root, sandboxPath)
	if err != nil {
		return fmt.Errorf("sandbox: copy in to %s: %w", sandboxPath, err)
	}
	if IsGitURL(src) {
		hdest := osroot.HostPath(h.root, dest)
		if err := os.MkdirAll(filepath.Dir(hdest), 0o755); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		// The host's own git runs the clone: it could read any host path anyway, but the
		// submodules follow the same rules as in the other sandboxes, so a port behaves the
		// same everywhere.
		run := func(ctx context.Context, line, dir string, network bool, _ []string) (atesor.CommandResult, error) {
			return h.Exec(ctx, atesor.Command{Line: line, Dir: dir, Network: network, Timeout: cloneTimeout})
		}
		if err := cloneGit(ctx, run, src, hdest); err != nil {
			return err
		}
		if err := scrubGitCredentials(hdest); err != nil {
			return fmt.Errorf("sandbox: remove credentials from the clone of %s: %w", redact.URLs(src), err)
		}
		h.noteRepo(dest)
		return nil
	}
	if err := copyInHost(ctx, src, osroot.HostPath(h.root, dest), h.o.extract, h.o.logger); err != nil {
		return fmt.Errorf("sandbox: copy %s in to %s: %w", src, sandboxPath, err)
	}
	h.noteRepo(dest)
	return nil
}

// CopyOut copies a sandbox file or directory to the host within [DefaultCopyLimits], as
// [Rootfs.CopyOut] does.
func (h *Host) CopyOut(ctx context.Context, sandboxPath, dest string) error {
	src, err := h.HostPath(sandboxPath)
	if err != nil {
		return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	if err := copyOutHost(ctx, src, dest, DefaultCopyLimits(), h.o.logger); err != nil {
		return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	return nil
}

// ReadFile reads a file of the repository, resolving links in sandbox coordinates.
func (h *Host) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return ReadFileIn(ctx, h.root, h.repoDir(), p)
}

// WriteFile writes a file of the repository, refusing a target outside it.
func (h *Host) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	return WriteFileIn(h.root, h.repoDir(), p, data, perm)
}

// Close removes the file tree when the sandbox made it (not a [WithWorkdir] directory),
// unless [WithKeep] is set.
func (h *Host) Close() error {
	if h.owned && !h.o.keep {
		if err := os.RemoveAll(h.root); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	return nil
}
