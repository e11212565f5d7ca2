package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/internal/ctxio"
	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
	"github.com/eclipse-atesor/atesor-go/internal/redact"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/jail"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

var (
	_ atesor.Sandbox = (*Docker)(nil)
	_ HostPather     = (*Docker)(nil)
)

// Docker runs commands in a riscv64 container through the docker CLI (the reference
// system's way): the image runs with --platform linux/riscv64, the sandbox's /workspace
// is bind-mounted from <workdir>/workspace, and every command is a docker exec with the
// same environment allowlist. The network is switched per command by disconnecting the
// container from its network while a command without network runs.
type Docker struct {
	platform  atesor.Platform
	o         *options
	root      string
	owned     bool
	bin       string
	container string

	repoTracker
	closer
	mu      sync.Mutex // serialises commands (network switching)
	network bool
}

// defaultDockerImage returns the image of the platform's profile.
func defaultDockerImage(p atesor.Platform) string {
	if provision.ProfileOf(p) == "alpine" {
		return "alpine:latest"
	}
	return "debian:trixie"
}

// ErrBinfmtMissing says qemu-riscv64 is not registered and enabled in binfmt_misc;
// [SetupBinfmt] registers it.
var ErrBinfmtMissing = errors.New("qemu-riscv64 is not registered in binfmt_misc")

// NewDocker starts a long-running riscv64 container for the platform. It needs
// qemu-riscv64 registered in binfmt_misc (see [SetupBinfmt]), and returns an error
// wrapping [ErrBinfmtMissing] without it; it changes nothing on the host but its own
// working directory and container.
func NewDocker(ctx context.Context, p atesor.Platform, opts ...Option) (*Docker, error) {
	o := buildOptions(opts)
	bin := o.dockerBin
	if bin == "" {
		bin = "docker"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return nil, &MissingToolError{Tool: bin, Package: "docker.io", Purpose: "runs the docker sandbox"}
	}
	// Registering an interpreter changes the host for every process on it: that is an
	// explicit step of the caller's (SetupBinfmt), never a side effect of a constructor.
	if s := ReadBinfmt(); !s.Registered || !s.Enabled {
		return nil, fmt.Errorf("sandbox: docker needs qemu-riscv64 registered and enabled in binfmt_misc to run riscv64 images "+
			"(registered=%v enabled=%v): %w; register it first with sandbox.SetupBinfmt (as root; the atesor CLI does), "+
			"or run: update-binfmts --enable qemu-riscv64", s.Registered, s.Enabled, ErrBinfmtMissing)
	}
	d := &Docker{platform: p, o: o, bin: bin, root: o.workdir, network: true}
	if d.root == "" {
		runs := filepath.Join(o.home, "sandboxes", "runs")
		if err := os.MkdirAll(runs, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		dir, err := os.MkdirTemp(runs, "docker-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		d.root, d.owned = dir, true
	}
	if err := os.MkdirAll(filepath.Join(d.root, "workspace"), 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	d.setRepo(o.repo)
	if repo := d.repoDir(); repo != "" {
		if err := os.MkdirAll(osroot.HostPath(d.root, repo), 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	image := o.image
	if image == "" {
		image = defaultDockerImage(p)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	d.container = "atesor-" + hex.EncodeToString(b)
	args := dockerRunArgs(d.container, filepath.Join(d.root, "workspace"), image, o.caBundlePath(), o.limits.Resolve())
	if out, err := d.docker(ctx, args...); err != nil {
		return nil, fmt.Errorf("sandbox: docker run %s: %w: %s", image, err, out)
	}
	return d, nil
}

// dockerRunArgs returns the docker run arguments of the sandbox's container: Docker's
// default seccomp profile (never unconfined), the rootfs sandbox's capability set,
// no-new-privileges, and the per-command limits as container limits (every command is
// a docker exec in the one container).
func dockerRunArgs(container, workspace, image, caBundle string, l Limits) []string {
	args := []string{"run", "-d", "--rm", "--platform", "linux/riscv64", "--name", container,
		"-v", workspace + ":" + Workspace, "-w", Workspace,
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges"}
	for _, c := range jail.Capabilities() {
		args = append(args, "--cap-add", strings.TrimPrefix(c, "CAP_"))
	}
	if l.Pids > 0 {
		args = append(args, "--pids-limit", strconv.FormatInt(l.Pids, 10))
	}
	if l.Memory > 0 {
		m := strconv.FormatInt(l.Memory, 10)
		args = append(args, "--memory", m, "--memory-swap", m)
	}
	if caBundle != "" {
		args = append(args, "-v", caBundle+":"+jail.CABundleInside+":ro")
	}
	return append(args, image, "sleep", "infinity")
}

// docker runs one docker CLI command and returns its combined output.
func (d *Docker) docker(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, d.bin, args...)
	cmd.Env = dockerCLIEnv()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// dockerCLIEnv is what the docker CLI itself needs from the host (never API keys).
func dockerCLIEnv() []string {
	return hostenv.Only([]string{"PATH", "HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY"})
}

// Platform returns the sandbox's distro profile.
func (d *Docker) Platform() atesor.Platform { return d.platform }

// Container returns the container name.
func (d *Docker) Container() string { return d.container }

// HostPath maps a sandbox path below /workspace to the bind-mounted host directory.
func (d *Docker) HostPath(p string) (string, error) {
	resolved, err := ResolvePath(d.root, p)
	if err != nil {
		return "", err
	}
	if !within(resolved, Workspace) {
		return "", fmt.Errorf("%s is not below %s, which is all the host sees of the container", p, Workspace)
	}
	return osroot.HostPath(d.root, resolved), nil
}

// setNetwork connects or disconnects the container's bridge network.
func (d *Docker) setNetwork(ctx context.Context, on bool) error {
	if d.network == on {
		return nil
	}
	verb := "disconnect"
	if on {
		verb = "connect"
	}
	if out, err := d.docker(ctx, "network", verb, "bridge", d.container); err != nil {
		return fmt.Errorf("sandbox: docker network %s: %w: %s", verb, err, out)
	}
	d.network = on
	return nil
}

// Exec runs cmd.Line with /bin/sh -c in the container.
func (d *Docker) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	if d.isClosed() {
		return atesor.CommandResult{Line: cmd.Line}, ErrClosed
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.setNetwork(ctx, cmd.Network); err != nil {
		return atesor.CommandResult{Line: cmd.Line}, err
	}
	dir := d.workDir(cmd.Dir)
	timeout := cmd.Timeout
	if timeout <= 0 {
		timeout = d.o.timeout
	}
	args := []string{d.bin, "exec", "-i=false", "-w", dir}
	for _, kv := range proc.Env(DefaultPath, SandboxHome, d.o.cc, d.o.cxx, cmd.Env) {
		args = append(args, "-e", kv)
	}
	args = append(args, d.container, "/bin/sh", "-c", cmd.Line)
	kill := func() {
		// Kill every process of the container except its init (sleep infinity).
		kctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = d.docker(kctx, "exec", d.container, "kill", "-KILL", "-1")
	}
	return proc.Run(ctx, proc.Process{Argv: args, Env: dockerCLIEnv(), Line: cmd.Line, Timeout: timeout,
		Stdout: cmd.Stdout, Stderr: cmd.Stderr, OnKill: kill})
}

// CopyIn copies a host directory or file into the bind-mounted workspace, unpacks a
// source tarball there, or clones a git URL inside the container.
func (d *Docker) CopyIn(ctx context.Context, src, sandboxPath string) error {
	if IsGitURL(src) {
		dest := path.Clean(sandboxPath)
		if strings.HasPrefix(src, "file://") {
			return fmt.Errorf("sandbox: git clone %s: the docker sandbox sees no host path; give the repository's directory as the source (it is copied in) or its network URL", redact.URLs(src))
		}
		res, err := d.Exec(ctx, atesor.Command{Line: "mkdir -p " + shellwords.Quote(path.Dir(dest)), Dir: "/", Timeout: time.Minute})
		if err := cloneError(src, res, err); err != nil {
			return err
		}
		// The container's git runs the clone; binds do not apply (no host path is mounted
		// but the workspace).
		run := func(ctx context.Context, line, dir string, network bool, _ []string) (atesor.CommandResult, error) {
			return d.Exec(ctx, atesor.Command{Line: line, Dir: dir, Network: network, Timeout: cloneTimeout})
		}
		if err := cloneGit(ctx, run, src, dest); err != nil {
			return err
		}
		if h, err := d.HostPath(dest); err == nil {
			if err := scrubGitCredentials(h); err != nil {
				return fmt.Errorf("sandbox: remove credentials from the clone of %s: %w", redact.URLs(src), err)
			}
		}
		d.noteRepo(dest)
		return nil
	}
	hdest, err := d.HostPath(sandboxPath)
	if err != nil {
		return fmt.Errorf("sandbox: copy in to %s: %w", sandboxPath, err)
	}
	if err := copyInHost(ctx, src, hdest, d.o.extract, d.o.logger); err != nil {
		return fmt.Errorf("sandbox: copy %s in to %s: %w", src, sandboxPath, err)
	}
	d.noteRepo(path.Clean(sandboxPath))
	return nil
}

// CopyOut copies a sandbox file or directory to the host within [DefaultCopyLimits], as
// [Rootfs.CopyOut] does: from the bind-mounted workspace directly, anything else through
// docker cp's tar stream (see [Docker.copyOutStream]).
func (d *Docker) CopyOut(ctx context.Context, sandboxPath, dest string) error {
	if src, err := d.HostPath(sandboxPath); err == nil {
		if err := copyOutHost(ctx, src, dest, DefaultCopyLimits(), d.o.logger); err != nil {
			return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
		}
		return nil
	}
	if err := d.copyOutStream(ctx, sandboxPath, dest, DefaultCopyLimits()); err != nil {
		return fmt.Errorf("sandbox: docker cp %s: %w", sandboxPath, err)
	}
	return nil
}

// copyOutStream copies a path of the container that is not bind-mounted: docker cp
// writes it as a tar stream, which is read into a private directory within a bound
// (twice l.MaxTotalBytes and 16 MiB for the tar framing), unpacked there within
// l.MaxTotalBytes (hard links and sparse entries counted in full), and copied to dest
// with the copy-out rules, so nothing reaches dest that [copyOutHost] would refuse.
func (d *Docker) copyOutStream(ctx context.Context, sandboxPath, dest string, l CopyLimits) error {
	ctx, cancel := withCopyDeadline(ctx, l, sandboxPath)
	defer cancel()
	tmp, err := os.MkdirTemp("", "atesor-dockercp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	stream := filepath.Join(tmp, "out.tar")
	f, err := os.Create(stream)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, d.bin, "cp", d.container+":"+sandboxPath, "-")
	cmd.Env = dockerCLIEnv()
	stderr := proc.NewBuffer(4096, 4096)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		f.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	var n, bound int64
	if l.MaxTotalBytes > 0 {
		bound = 2*l.MaxTotalBytes + 16<<20
		n, err = io.Copy(f, io.LimitReader(ctxio.Reader(ctx, out), bound+1))
	} else {
		n, err = io.Copy(f, ctxio.Reader(ctx, out))
	}
	if bound > 0 && n > bound {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		f.Close()
		return &CopyLimitError{Path: sandboxPath, What: "total", Size: n, Limit: l.MaxTotalBytes, Setting: l.totalSetting()}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("%w: %s", werr, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return err
	}
	tree := filepath.Join(tmp, "tree")
	if err := os.Mkdir(tree, 0o700); err != nil {
		return err
	}
	if err := archive.Extract(ctx, stream, tree, archive.Limits{MaxBytes: l.MaxTotalBytes, MaxEntries: 1_000_000}); err != nil {
		return err
	}
	// The unpacking strips a directory's own name; a single file keeps its name.
	src := tree
	if _, err := d.docker(ctx, "exec", d.container, "test", "-d", sandboxPath); err != nil {
		src = filepath.Join(tree, path.Base(path.Clean(sandboxPath)))
	}
	return copyOutHost(ctx, src, dest, l, d.o.logger)
}

// ReadFile reads a file of the repository, resolving links in sandbox coordinates.
func (d *Docker) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return ReadFileIn(ctx, d.root, d.repoDir(), p)
}

// WriteFile writes a file of the repository, refusing a target outside it.
func (d *Docker) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	return WriteFileIn(d.root, d.repoDir(), p, data, perm)
}

// Close removes the container and, when the sandbox made it, the workspace directory.
func (d *Docker) Close() error {
	if !d.markClosed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var errs []error
	if out, err := d.docker(ctx, "rm", "-f", d.container); err != nil {
		errs = append(errs, fmt.Errorf("sandbox: docker rm %s: %w: %s", d.container, err, out))
	}
	if d.owned && !d.o.keep {
		if err := os.RemoveAll(d.root); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
