package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/source"
)

// shellFlags are the flags sandbox shell and sandbox run share.
type shellFlags struct {
	source, kept, name string
	network, noAccel   bool
	timeout            time.Duration
}

func (f *shellFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.source, "source", "", "put this package source (directory, tarball or git URL) at /workspace/<name>")
	fs.StringVar(&f.kept, "from", "", "start from a kept run: the run directory (or its upper directory) that port --keep-sandbox left")
	fs.StringVar(&f.name, "name", "", "package name (default: derived from --source, or the kept run's package)")
	fs.BoolVar(&f.network, "network", true, "give the command network access (apt, go and cargo fetch)")
	fs.BoolVar(&f.noAccel, "no-accel", false, "use the emulated riscv64 toolchain instead of the accelerated one")
}

const shellDescription = "The sandbox is a fresh overlay of the cached root filesystem, isolated as a port's\n" +
	"commands are; nothing done in it reaches the cache, and it is removed on exit.\n" +
	"With --source the package is placed at /workspace/<name> and commands start there;\n" +
	"with --from the overlay starts from a kept run's changes (port --keep-sandbox)."

func sandboxShell(ctx context.Context, a *app, args []string) int {
	var f shellFlags
	fs := flagSet("sandbox shell")
	f.register(fs)
	u := usage{synopsis: "atesor sandbox shell [--source SRC | --from RUN] [--name NAME] [PLATFORM]",
		description: "Open an interactive shell in a riscv64 sandbox, to debug a port by hand.\n" + shellDescription +
			"\nThe shell has no job control; leave it with exit (Ctrl-C ends it)."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	return inSandbox(ctx, a, "sandbox shell", f, pos, "if [ -x /bin/bash ]; then exec /bin/bash -i; else exec /bin/sh -i; fi", os.Stdin, 24*time.Hour)
}

func sandboxRun(ctx context.Context, a *app, args []string) int {
	var f shellFlags
	fs := flagSet("sandbox run")
	f.register(fs)
	fs.DurationVar(&f.timeout, "timeout", sandbox.DefaultTimeout, "time bound of the command")
	u := usage{synopsis: "atesor sandbox run [--source SRC | --from RUN] [--name NAME] [PLATFORM] -- CMD [ARG...]",
		description: "Run one command (with sh -c when given as one word with spaces, else as its words)\n" +
			"in a riscv64 sandbox; its output goes to stdout and stderr and its exit status is\n" +
			"the exit status of atesor (128+N when a signal N killed it, 124 on timeout).\n" + shellDescription}
	var cmdArgs []string
	for i, arg := range args {
		if arg == "--" {
			args, cmdArgs = args[:i], args[i+1:]
			break
		}
	}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	if len(cmdArgs) == 0 {
		return usageError(a, "sandbox run", "want a command after --")
	}
	line := cmdArgs[0]
	if len(cmdArgs) > 1 {
		quoted := make([]string, len(cmdArgs))
		for i, w := range cmdArgs {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		line = strings.Join(quoted, " ")
	}
	return inSandbox(ctx, a, "sandbox run", f, pos, line, nil, f.timeout)
}

// inSandbox opens a fresh rootfs sandbox (with the package or the kept run), runs line
// with the terminal's streams and returns its exit status.
func inSandbox(ctx context.Context, a *app, cmd string, f shellFlags, pos []string, line string, stdin io.Reader, timeout time.Duration) int {
	p, code, ok := platformArg(a, cmd, pos)
	if !ok {
		return code
	}
	prog := newProgress(a.stderr, a.terminal, false)
	res, err := sandboxExec(ctx, a, sandboxJob{flags: f, platform: p, line: line, stdin: stdin,
		stdout: a.stdout, stderr: a.stderr, timeout: timeout, provision: prog.Provision, opened: prog.Done})
	prog.Done()
	if err != nil {
		var ue *portUsageError
		switch {
		case errors.As(err, &ue):
			return usageError(a, cmd, "%s", ue.msg)
		case ctx.Err() != nil:
			return exitInterrupted
		}
		fmt.Fprintf(a.stderr, "atesor %s: %v\n", cmd, err)
		return exitUsage
	}
	return exitStatus(res)
}

// sandboxJob is one command in a fresh sandbox, as `atesor sandbox run` and `sandbox
// shell` and the MCP server's sandbox_run tool run it.
type sandboxJob struct {
	flags    shellFlags
	platform atesor.Platform
	line     string
	stdin    io.Reader
	// stdout and stderr receive the command's output as it comes (nil: kept only in
	// the result, within the sandbox's bounds).
	stdout, stderr io.Writer
	timeout        time.Duration
	provision      func(sandbox.Progress)
	// opened, when set, is called once the sandbox is open, before the command runs.
	opened func()
}

// sandboxExec opens a fresh rootfs sandbox (with the package or the kept run the flags
// name), runs the job's line in it and closes it.
func sandboxExec(ctx context.Context, a *app, j sandboxJob) (atesor.CommandResult, error) {
	f, p := j.flags, j.platform
	if f.source != "" && f.kept != "" {
		return atesor.CommandResult{}, &portUsageError{"--source and --from do not go together (a kept run already holds its package)"}
	}
	provision := j.provision
	if provision == nil {
		provision = func(sandbox.Progress) {}
	}
	opts := append(envSandboxOptions(), sandbox.WithAccel(!f.noAccel))
	name := strings.TrimSpace(f.name)
	if f.kept != "" {
		upper, repos, err := sandbox.KeptUpper(f.kept)
		if err != nil {
			return atesor.CommandResult{}, err
		}
		if name == "" && len(repos) == 1 {
			name = repos[0]
		}
		opts = append(opts, sandbox.WithBase(upper))
	}
	if f.source != "" && name == "" {
		name = source.PackageName(f.source)
	}
	if name != "" {
		name = source.SanitizeName(name)
		opts = append(opts, sandbox.WithRepo(name))
	}
	var sb atesor.Sandbox
	var err error
	if a.openSandbox != nil {
		sb, err = a.openSandbox(ctx, p)
	} else {
		if err := prepareHost(ctx, a, p, provision); err != nil {
			return atesor.CommandResult{}, err
		}
		sb, err = sandbox.NewRootfs(ctx, p, append(opts, sandbox.WithProgress(provision))...)
	}
	if j.opened != nil {
		j.opened()
	}
	if err != nil {
		return atesor.CommandResult{}, err
	}
	defer sb.Close()
	dir := "/root"
	if name != "" {
		dir = "/workspace/" + name
	}
	if f.source != "" {
		if err := sb.CopyIn(ctx, f.source, dir); err != nil {
			return atesor.CommandResult{}, fmt.Errorf("put the source in: %w", err)
		}
	}
	return sb.Exec(ctx, atesor.Command{Line: j.line, Dir: dir, Network: f.network, Timeout: j.timeout,
		Stdin: j.stdin, Stdout: j.stdout, Stderr: j.stderr})
}

// exitStatus is the shell's exit status for a command result: its exit code, 128+N for
// a signal N, 124 for a timeout.
func exitStatus(res atesor.CommandResult) int {
	switch {
	case res.TimedOut:
		return 124
	case res.Signal != "":
		for n := syscall.Signal(1); n < 65; n++ {
			if signalNameOf(n) == res.Signal {
				return 128 + int(n)
			}
		}
		return 128
	}
	return res.ExitCode
}

// signalNameOf names a signal as the sandbox reports it (SIGSEGV, ...).
func signalNameOf(s syscall.Signal) string {
	names := map[syscall.Signal]string{syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
		syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV", syscall.SIGPIPE: "SIGPIPE",
		syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM"}
	return names[s]
}
