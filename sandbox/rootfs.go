package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
	"github.com/eclipse-atesor/atesor-go/internal/redact"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/accel"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/jail"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

var (
	_ atesor.Sandbox    = (*Rootfs)(nil)
	_ HostPather        = (*Rootfs)(nil)
	_ ToolchainReporter = (*Rootfs)(nil)
	_ HostProgramRunner = (*Rootfs)(nil)
)

// overlayFlags are the mount flags of a run's overlay.
const overlayFlags = syscall.MS_NODEV | syscall.MS_NOSUID

// ErrClosed is returned by a sandbox that was closed.
var ErrClosed = errors.New("sandbox is closed")

// Rootfs is the default sandbox: a cached riscv64 root filesystem (see [Provision]) with
// a per-run overlay on top, every command entered with bwrap. Nothing a run does reaches
// the cache or the next run. It needs root (for the overlay mount). Safe for concurrent
// use; package-manager commands are serialised.
type Rootfs struct {
	platform atesor.Platform
	o        *options
	cache    string
	runDir   string
	upper    string
	merged   string
	acc      *accel.Run
	disk     int64 // the bound of what upper may hold, 0 for none (see [Limits.Disk])

	repoTracker
	closer
	pkgMu sync.Mutex

	jailOnce sync.Once
	jail     *jail.Jail
	jailErr  error
}

// NewRootfs provisions (or reuses) the platform's cached root filesystem and mounts a
// fresh overlay for this instance. It needs qemu-riscv64 registered in binfmt_misc with
// the F flag and fails with [ErrBinfmtMissing] without it: registering is
// [SetupBinfmt], the caller's explicit step, since it changes the host for every process.
func NewRootfs(ctx context.Context, p atesor.Platform, opts ...Option) (*Rootfs, error) {
	o := buildOptions(opts)
	if os.Geteuid() != 0 {
		return nil, errors.New("sandbox: the root-filesystem sandbox mounts an overlay and needs root; run as root, or use the docker or host sandbox")
	}
	cache, err := provision.Rootfs(ctx, p, o.provisionConfig())
	if err != nil {
		return nil, err
	}
	acc := accel.Prepare(ctx, p, cache, o.provisionConfig(), o.noAccel)
	runs := provision.RunsDir(o.home)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	provision.CleanStaleRuns(runs, o.logger)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	runDir, err := os.MkdirTemp(runs, fmt.Sprintf("%s-%s-%s-", p.SandboxKey(), time.Now().UTC().Format("20060102T150405"), hex.EncodeToString(b)))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := provision.WriteOwner(runDir, provision.CurrentOwner(p.SandboxKey())); err != nil {
		os.RemoveAll(runDir)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	r := &Rootfs{platform: p, o: o, cache: cache, runDir: runDir, acc: acc,
		upper: filepath.Join(runDir, "upper"), merged: filepath.Join(runDir, "merged")}
	r.disk = jail.DiskLimit(o.limits.Resolve().Disk, runDir)
	work := filepath.Join(runDir, "work")
	for _, d := range []string{r.upper, work, r.merged} {
		if err := os.Mkdir(d, 0o755); err != nil {
			os.RemoveAll(runDir)
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	data := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", baseLayers(o, r.acc.Lowerdir()), r.upper, work)
	// nodev: a device node in the tree (the cached root filesystem's, or one a build made)
	// opens nothing when the host reads the merged tree; the sandbox gets its own /dev
	// from bwrap. nosuid: no set-user-ID program of the tree gains anything either.
	if err := syscall.Mount("overlay", r.merged, "overlay", overlayFlags, data); err != nil {
		os.RemoveAll(runDir)
		return nil, fmt.Errorf("sandbox: mount overlay on %s: %w", r.merged, err)
	}
	if err := os.MkdirAll(filepath.Join(r.merged, "workspace"), 0o755); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	r.acc.Attach(r.merged)
	r.setRepo(o.repo)
	if repo := r.repoDir(); repo != "" {
		if err := os.MkdirAll(osroot.HostPath(r.merged, repo), 0o755); err != nil {
			r.Close()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	o.logger.Info("sandbox: rootfs instance ready", "platform", p.SandboxKey(), "run", runDir)
	return r, nil
}

// Toolchain says which toolchain the instance's commands use now: accelerated (with the
// versions of the native builds) or emulated, and why.
func (r *Rootfs) Toolchain() Toolchain { return r.acc.Toolchain() }

// RunsHostPrograms reports true: the sandbox is entered on the host's own kernel, so a
// host program runs natively inside it when its loader and libraries are copied along
// (the accelerated toolchain and the instruction counter are such programs).
func (r *Rootfs) RunsHostPrograms() bool { return true }

// Platform returns the sandbox's distro profile.
func (r *Rootfs) Platform() atesor.Platform { return r.platform }

// Root returns the host directory of the instance's merged file tree.
func (r *Rootfs) Root() string { return r.merged }

// UpperDir returns the host directory that holds what this run changed.
func (r *Rootfs) UpperDir() string { return r.upper }

// HostPath maps a sandbox path to its host path in the merged tree, resolving links in
// sandbox coordinates.
func (r *Rootfs) HostPath(p string) (string, error) {
	resolved, err := ResolvePath(r.merged, p)
	if err != nil {
		return "", err
	}
	return osroot.HostPath(r.merged, resolved), nil
}

// Exec runs cmd.Line with /bin/sh -c inside the sandbox (see the package doc for the
// isolation). The line runs as given. Package-manager commands run one at a time, and
// after a stale-index failure the index is refreshed and the command rerun once.
func (r *Rootfs) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	if r.isClosed() {
		return atesor.CommandResult{Line: cmd.Line}, ErrClosed
	}
	if IsPackageManagerCommand(cmd.Line) {
		r.pkgMu.Lock()
		defer r.pkgMu.Unlock()
		defer r.acc.Sync(cmd.Line)
		res, err := r.exec(ctx, cmd, nil)
		if err != nil || res.OK() || !staleIndex.MatchString(res.Output) {
			return res, err
		}
		update := provision.UpdateCommand(r.platform)
		r.o.logger.Info("sandbox: package index looks stale; refreshing and retrying", "cmd", cmd.Line)
		up, err := r.exec(ctx, atesor.Command{Line: update, Dir: "/", Network: true, Timeout: 15 * time.Minute, Stdout: cmd.Stdout, Stderr: cmd.Stderr}, nil)
		if err != nil || !up.OK() {
			return res, err
		}
		provision.MarkListsStale(r.o.home, r.platform)
		retry, err := r.exec(ctx, cmd, nil)
		retry.Duration += res.Duration + up.Duration
		return retry, err
	}
	return r.exec(ctx, cmd, nil)
}

func (r *Rootfs) exec(ctx context.Context, cmd atesor.Command, roBinds []string) (atesor.CommandResult, error) {
	dir := r.workDir(cmd.Dir)
	timeout := cmd.Timeout
	if timeout <= 0 {
		timeout = r.o.timeout
	}
	r.jailOnce.Do(func() { r.jail, r.jailErr = jail.New(r.o.jailConfig()) })
	if r.jailErr != nil {
		return atesor.CommandResult{Line: cmd.Line}, r.jailErr
	}
	spec := jail.Spec{Root: r.merged, Env: proc.Env(DefaultPath, SandboxHome, r.o.cc, r.o.cxx, cmd.Env), Dir: dir, ROBinds: roBinds}
	return jail.ExecBounded(ctx, r.upper, r.disk, jail.DiskInterval, func(ctx context.Context) (atesor.CommandResult, error) {
		return r.jail.Run(ctx, jail.Command{Spec: spec, Line: cmd.Line, Network: cmd.Network, Timeout: timeout, Stdout: cmd.Stdout, Stderr: cmd.Stderr, Stdin: cmd.Stdin})
	})
}

// CopyIn copies a host directory or file into the sandbox, unpacks a source tarball
// (.tar.gz, .tar.xz, .tar.bz2, .zip) there, or clones a git URL inside the sandbox
// (git clone --depth 1 with submodules, network on; a file:// repository is bound
// read-only by itself, see [ErrLocalSubmodule]).
func (r *Rootfs) CopyIn(ctx context.Context, hostSrc, sandboxPath string) error {
	if r.isClosed() {
		return ErrClosed
	}
	dest, err := ResolvePath(r.merged, sandboxPath)
	if err != nil {
		return fmt.Errorf("sandbox: copy in to %s: %w", sandboxPath, err)
	}
	if IsGitURL(hostSrc) {
		if err := os.MkdirAll(osroot.HostPath(r.merged, path.Dir(dest)), 0o755); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		run := func(ctx context.Context, line, dir string, network bool, binds []string) (atesor.CommandResult, error) {
			return r.exec(ctx, atesor.Command{Line: line, Dir: dir, Network: network, Timeout: cloneTimeout}, binds)
		}
		if err := cloneGit(ctx, run, hostSrc, dest); err != nil {
			return err
		}
		if err := scrubGitCredentials(osroot.HostPath(r.merged, dest)); err != nil {
			return fmt.Errorf("sandbox: remove credentials from the clone of %s: %w", redact.URLs(hostSrc), err)
		}
		r.noteRepo(dest)
		return nil
	}
	if err := copyInHost(ctx, hostSrc, osroot.HostPath(r.merged, dest), r.o.extract, r.o.logger); err != nil {
		return fmt.Errorf("sandbox: copy %s in to %s: %w", hostSrc, sandboxPath, err)
	}
	r.noteRepo(dest)
	return nil
}

// CopyOut copies a sandbox file or directory to the host within [DefaultCopyLimits]:
// regular files, directories and the links that stay inside the copied tree; a single
// path that is a link, device or FIFO is refused (see [copyOutHost]).
func (r *Rootfs) CopyOut(ctx context.Context, sandboxPath, hostDest string) error {
	if r.isClosed() {
		return ErrClosed
	}
	src, err := r.HostPath(sandboxPath)
	if err != nil {
		return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	if err := copyOutHost(ctx, src, hostDest, DefaultCopyLimits(), r.o.logger); err != nil {
		return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	return nil
}

// ReadFile reads a file of the repository, resolving links in sandbox coordinates.
func (r *Rootfs) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if r.isClosed() {
		return nil, ErrClosed
	}
	return ReadFileIn(ctx, r.merged, r.repoDir(), p)
}

// WriteFile writes a file of the repository, resolving links in sandbox coordinates and
// refusing a target outside the repository.
func (r *Rootfs) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	if r.isClosed() {
		return ErrClosed
	}
	return WriteFileIn(r.merged, r.repoDir(), p, data, perm)
}

// Close unmounts the overlay and removes the run directory; with [WithKeep] the upper
// directory (what the run changed) stays. The run directory of a process that died
// without Close is removed by the next [NewRootfs] under the same state home.
func (r *Rootfs) Close() error {
	if !r.markClosed() {
		return nil
	}
	// Wait for running package-manager commands.
	r.pkgMu.Lock()
	defer r.pkgMu.Unlock()
	var errs []error
	if err := syscall.Unmount(r.merged, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
		if err2 := syscall.Unmount(r.merged, syscall.MNT_DETACH); err2 != nil {
			// Still mounted: removing files now would go through the overlay.
			return fmt.Errorf("sandbox: unmount %s: %w", r.merged, err)
		}
	}
	if r.o.keep {
		// Without its owner file, the kept run is never taken for a crashed one.
		_ = os.Remove(filepath.Join(r.runDir, provision.OwnerFile))
		_ = os.RemoveAll(filepath.Join(r.runDir, "work"))
		_ = os.Remove(r.merged)
		r.o.logger.Info("sandbox: kept the run's changes", "upper", r.upper)
	} else if err := os.RemoveAll(r.runDir); err != nil {
		errs = append(errs, fmt.Errorf("sandbox: remove %s: %w", r.runDir, err))
	}
	return errors.Join(errs...)
}
