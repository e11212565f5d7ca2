package jail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

// Jail enters commands into a riscv64 root filesystem with bwrap, hardened as the
// sandbox package's "Security model" says: Docker's capability set, no_new_privs, Docker's
// seccomp profile, read-only and masked kernel interfaces, a network namespace of its
// own (slirp4netns behind it when the command wants network), the host's CA bundle and
// resolver configuration copied in rather than bound, and a cgroup per command with the
// memory and process limits.
type Jail struct {
	cfg     Config
	filter  []byte
	limits  Limits
	cgroups *cgroupHier // nil when the host has none for us
}

// Config is what a jail takes from its sandbox.
type Config struct {
	// Logger gets the jail's warnings (retried starts, stale cgroups removed).
	Logger *slog.Logger
	// Limits bounds each command (zero fields: the defaults, see [Limits.Resolve]).
	Limits Limits
	// CABundle returns the host CA bundle copied into the root filesystem for a command
	// with network ("" for none). It is asked for each such command.
	CABundle func() string
}

// New prepares the seccomp program and finds the cgroups.
func New(cfg Config) (*Jail, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CABundle == nil {
		cfg.CABundle = func() string { return "" }
	}
	filter, err := seccompFilter(dockerCaps)
	if err != nil {
		return nil, err
	}
	j := &Jail{cfg: cfg, filter: filter, limits: cfg.Limits.Resolve()}
	if h, err := findCgroups(); err == nil {
		j.cgroups = &h
		removeStaleCgroups(h, cfg.Logger)
	} else {
		cfg.Logger.Debug("sandbox: no per-command limits on this host", "why", err)
	}
	return j, nil
}

// Command is one command for [Jail.Run].
type Command struct {
	// Spec is the root filesystem and how bwrap enters it.
	Spec Spec
	// Line runs with /bin/sh -c.
	Line string
	// Network gives the command a network namespace with slirp4netns behind it; without
	// it the command has loopback only.
	Network bool
	// Timeout bounds the command (0: [proc.DefaultTimeout]).
	Timeout time.Duration
	// Stdout, Stderr and Stdin are the command's live output and its input (nil:
	// /dev/null).
	Stdout io.Writer
	Stdin  io.Reader
	Stderr io.Writer
}

// startAttempts bounds how often a command whose sandbox could not be set up is started
// (see [proc.StartError]); startBackoff is the pause before the first retry, doubled after
// each.
const (
	startAttempts = 3
	startBackoff  = 100 * time.Millisecond
)

// Run runs /bin/sh -c line in the root filesystem spec.Root, starting it again when its
// sandbox could not be set up (see [retryStart]).
func (j *Jail) Run(ctx context.Context, c Command) (atesor.CommandResult, error) {
	return retryStart(ctx, j.cfg.Logger, c.Line, c.Stdin, func() (atesor.CommandResult, error) { return j.runOnce(ctx, c) })
}

// retryStart runs once until the command starts: a command that did not start (bwrap,
// its cgroup or its network could not be set up, a [*proc.StartError]: an infrastructure
// fault, never the command's) is started again, up to startAttempts times in all, each
// retry logged. The result counts the retries; only the last failure is returned. A
// missing tool, a cancelled context, or stdin that cannot be read again ends it at once.
func retryStart(ctx context.Context, logger *slog.Logger, line string, stdin io.Reader, once func() (atesor.CommandResult, error)) (atesor.CommandResult, error) {
	for attempt := 1; ; attempt++ {
		res, err := once()
		res.StartRetries = attempt - 1
		var se *proc.StartError
		if err == nil || !errors.As(err, &se) || ctx.Err() != nil {
			return res, err
		}
		var missing *proc.MissingToolError
		switch {
		case errors.As(err, &missing):
			return res, err
		case !replayableStdin(stdin):
			// What was read from the caller's stdin before the failure is gone.
			return res, err
		case attempt == startAttempts:
			return res, fmt.Errorf("sandbox: the command did not start, %d times; see the host's bwrap, slirp4netns and cgroups: %w", attempt, err)
		}
		logger.Warn("sandbox: the command's sandbox could not be set up; starting it again",
			"attempt", attempt, "of", startAttempts, "cmd", line, "err", err)
		t := time.NewTimer(startBackoff << (attempt - 1))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return res, fmt.Errorf("sandbox: %w (while starting a command again after: %w)", context.Cause(ctx), err)
		}
	}
}

// replayableStdin reports whether a command may be started again with in: nothing, or a
// file the command's process inherits (nothing reads it before the command runs). Any
// other reader is copied into a pipe as soon as the process starts.
func replayableStdin(in io.Reader) bool {
	if in == nil {
		return true
	}
	_, ok := in.(*os.File)
	return ok
}

// runOnce starts the command once. A command with network is started in a network
// namespace of its own, made when bwrap's process is cloned rather than by bwrap: bwrap
// sets up the loopback of a namespace it makes after it has reported the sandbox's pid,
// and its RTM_NEWADDR of 127.0.0.1 (NLM_F_EXCL) fails with EEXIST when slirp4netns, which
// attaches after that report, has already set lo up (the kernel adds 127.0.0.1 to a
// loopback that comes up). In a namespace that exists before bwrap runs, slirp4netns is
// the only one configuring it, and it is done before bwrap lets the command run.
func (j *Jail) runOnce(ctx context.Context, c Command) (atesor.CommandResult, error) {
	if c.Network && !c.Spec.ReadOnly {
		if err := j.installHostConfig(c.Spec.Root); err != nil {
			return atesor.CommandResult{Line: c.Line}, err
		}
	}
	secR, secW, err := os.Pipe()
	if err != nil {
		return atesor.CommandResult{Line: c.Line}, fmt.Errorf("sandbox: %w", err)
	}
	// The program (a few KiB) fits the pipe's buffer; bwrap reads it to the end.
	if _, err := secW.Write(j.filter); err != nil {
		secR.Close()
		secW.Close()
		return atesor.CommandResult{Line: c.Line}, fmt.Errorf("sandbox: seccomp pipe: %w", err)
	}
	secW.Close()
	infoR, infoW, err := os.Pipe()
	if err != nil {
		secR.Close()
		return atesor.CommandResult{Line: c.Line}, fmt.Errorf("sandbox: %w", err)
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		secR.Close()
		infoW.Close()
		return atesor.CommandResult{Line: c.Line}, fmt.Errorf("sandbox: %w", err)
	}
	defer blockW.Close()
	spec := c.Spec
	spec.seccompFD, spec.infoFD, spec.blockFD = 3, 4, 5
	var cloneflags uintptr
	if c.Network {
		spec.ownNetns = true
		cloneflags = syscall.CLONE_NEWNET
	}
	argv := append(bwrapArgs(spec), "/bin/sh", "-c", c.Line)
	started := func(ctx context.Context, pid int) (func(*atesor.CommandResult), error) {
		return j.enter(ctx, pid, infoR, blockW, c.Network)
	}
	return proc.Run(ctx, proc.Process{Argv: argv, Line: c.Line, Timeout: c.Timeout, Stdout: c.Stdout, Stderr: c.Stderr, Stdin: c.Stdin,
		ExtraFiles: []*os.File{secR, infoW, blockR}, Cloneflags: cloneflags, Started: started})
}

// enter finishes the sandbox of a started bwrap (pid): it learns the sandbox's first
// process from bwrap's info descriptor, moves bwrap and the sandbox into the command's
// cgroup, attaches slirp4netns for network to the namespace bwrap was started in, and
// then lets bwrap run the command.
func (j *Jail) enter(ctx context.Context, bwrapPid int, info *os.File, block *os.File, network bool) (func(*atesor.CommandResult), error) {
	_ = info.SetReadDeadline(time.Now().Add(time.Minute))
	var msg struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(info).Decode(&msg); err != nil || msg.ChildPid <= 0 {
		return nil, fmt.Errorf("sandbox: bwrap did not start the sandbox (info: %v)", err)
	}
	var cg *commandCgroup
	var sl *slirp
	finish := func(res *atesor.CommandResult) {
		sl.stop()
		if cg != nil {
			cg.annotate(res)
			// Emptying and removing the cgroup can take a few tens of milliseconds while
			// the kernel reaps the sandbox; the result does not wait for it.
			go cg.remove()
		}
	}
	if j.cgroups != nil {
		var err error
		if cg, err = newCommandCgroup(*j.cgroups, j.limits); err != nil {
			return finish, err
		}
		if err := cg.add(append([]int{bwrapPid, msg.ChildPid}, descendants(msg.ChildPid)...)...); err != nil {
			return finish, err
		}
	}
	if network {
		var err error
		if sl, err = startSlirp(ctx, bwrapPid); err != nil {
			return finish, err
		}
	}
	if _, err := block.Write([]byte{1}); err != nil {
		return finish, fmt.Errorf("sandbox: release bwrap: %w", err)
	}
	block.Close()
	return finish, nil
}

// descendants returns the pids below pid (from /proc/PID/task/*/children).
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		for _, t := range tasks {
			data, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

// aptBuildConfig is the apt configuration a Debian root filesystem gets for commands
// with network (the ones that install packages): build dependencies without their
// Recommends, as Debian's own build daemons install them. A package's Build-Depends
// name what its build needs; their Recommends are a user's comforts, and under
// emulation they cost minutes (a test dependency's Recommends pulled the Python data
// science stack into one port, 15 minutes of byte-compiling before its build ran).
const aptBuildConfig = `// Written by atesor before each command with network: build dependencies are
// installed as Debian's build daemons install them, without Recommends.
APT::Install-Recommends "false";
`

// aptBuildConfigFile is where aptBuildConfig goes, relative to the root filesystem.
const aptBuildConfigFile = "etc/apt/apt.conf.d/90atesor-build"

// installHostConfig copies the host's CA bundle and resolver configuration into the
// root filesystem (never bind mounts of host files), through an [os.Root] so that links
// the sandbox made cannot redirect the writes, and gives a root filesystem with apt
// its build configuration (aptBuildConfig).
func (j *Jail) installHostConfig(root string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	defer r.Close()
	if fi, err := r.Lstat(path.Dir(aptBuildConfigFile)); err == nil && fi.IsDir() {
		if err := writeConfig(r, aptBuildConfigFile, []byte(aptBuildConfig)); err != nil {
			return fmt.Errorf("sandbox: write the apt build configuration: %w", err)
		}
	}
	if host, err := os.ReadFile("/etc/resolv.conf"); err == nil || os.IsNotExist(err) {
		if err := writeConfig(r, "etc/resolv.conf", resolvConf(host)); err != nil {
			return fmt.Errorf("sandbox: copy the resolver configuration in: %w", err)
		}
	}
	if ca := j.cfg.CABundle(); ca != "" {
		data, err := os.ReadFile(ca)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return fmt.Errorf("sandbox: read the CA bundle %s: %w", ca, err)
		}
		if err := writeConfig(r, strings.TrimPrefix(CABundleInside, "/"), data); err != nil {
			return fmt.Errorf("sandbox: copy the CA bundle in: %w", err)
		}
	}
	return nil
}

func writeConfig(r *os.Root, rel string, data []byte) error {
	if err := osroot.MkdirAll(r, path.Dir(rel), 0o755); err != nil {
		return err
	}
	return osroot.WriteFile(r, rel, strings.NewReader(string(data)), 0o644, time.Time{})
}

// Run runs one command in the root filesystem of its spec through a jail made for it
// (provisioning's commands; a sandbox instance keeps its jail).
func Run(ctx context.Context, cfg Config, c Command) (atesor.CommandResult, error) {
	j, err := New(cfg)
	if err != nil {
		return atesor.CommandResult{Line: c.Line}, err
	}
	return j.Run(ctx, c)
}
