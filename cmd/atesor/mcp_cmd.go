package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/cmd/atesor/internal/mcpserver"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/replay"
)

var mcpUsage = usage{
	synopsis: "atesor mcp [--root DIR]... [--out DIR] [--http 127.0.0.1:PORT] [flags]",
	description: `Serve Atesor's tools to a coding agent over the Model Context Protocol: on standard
input and output (the default: the client starts atesor mcp), or as streamable HTTP on
a loopback address with --http.

Tools: port, replay, sandbox_run, report, recipe and doctor. They run what the commands
of the same names run, with these limits: a path a client names must lie below a --root
(default: the working directory) or --out, and may not leave it through a symbolic
link; every output goes below --out; the sandbox is always the isolated rootfs one
(never the host); sandbox_run's command must pass the rules a model's fix command
passes, its time is bounded by --max-timeout, its output by --max-output, and it gets
network access only when asked and --allow-network is given. A second port of the same
package while one runs is refused. Cancelling a call ends its run and its sandbox.`,
}

// mcpFlags are the flags of mcp.
type mcpFlags struct {
	roots        multiFlag
	out, http    string
	allowNetwork bool
	noAccel      bool
	maxTimeout   int
	maxOutput    int
}

// multiFlag is a flag that may be given more than once.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

var _ flag.Value = (*multiFlag)(nil)

func runMCP(ctx context.Context, a *app, args []string) int {
	var f mcpFlags
	fs := flagSet("mcp")
	fs.Var(&f.roots, "root", "a directory whose files clients may name (repeat for more; default the working directory)")
	fs.StringVar(&f.out, "out", defaultOutDir, "output directory of every tool")
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT) instead of stdio")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "let sandbox_run give a command network access when the client asks")
	fs.BoolVar(&f.noAccel, "no-accel", false, "run the emulated riscv64 toolchain instead of the accelerated one")
	fs.IntVar(&f.maxTimeout, "max-timeout", int(mcpserver.DefaultMaxTimeout.Seconds()), "the longest sandbox_run timeout a client may ask for, in seconds")
	fs.IntVar(&f.maxOutput, "max-output", mcpserver.DefaultMaxOutput, "the most output sandbox_run returns, in bytes")
	pos, code, done := parseOrExit(a, fs, mcpUsage, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return usageError(a, "mcp", "unexpected argument %q", pos[0])
	}
	if f.maxTimeout <= 0 || f.maxOutput <= 0 {
		return usageError(a, "mcp", "--max-timeout and --max-output must be more than 0")
	}
	if len(f.roots) == 0 {
		cwd, err := os.Getwd()
		if err != nil {
			return usageError(a, "mcp", "no working directory (%v): give --root DIR", err)
		}
		f.roots = multiFlag{cwd}
	}
	srv, err := newMCPServer(a, f)
	if err != nil {
		return usageError(a, "mcp", "%s", escape.Text(err.Error()))
	}
	if f.http != "" {
		ln, err := mcpserver.ListenLoopback(f.http)
		if err != nil {
			return usageError(a, "mcp", "%v", err)
		}
		fmt.Fprintf(a.stderr, "atesor mcp: serving streamable HTTP on http://%s\n", ln.Addr())
		if err := srv.ServeHTTP(ctx, ln); err != nil {
			fmt.Fprintf(a.stderr, "atesor mcp: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(a.stderr, "atesor mcp: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// newMCPServer makes the server with the command line's operations.
func newMCPServer(a *app, f mcpFlags) (*mcpserver.Server, error) {
	out, err := filepath.Abs(f.out)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	kept := ""
	if home, err := memory.Home(); err == nil {
		kept = filepath.Join(home, "sandboxes", "runs")
	}
	return mcpserver.New(mcpserver.Options{
		Roots: f.roots, OutDir: out, KeptRuns: kept, AllowNetwork: f.allowNetwork,
		MaxTimeout: time.Duration(f.maxTimeout) * time.Second, MaxOutput: f.maxOutput, Version: versionString(),
		Ops: &mcpOps{a: a, noAccel: f.noAccel},
	})
}

// mcpOps are the server's operations: the commands' own functions, with the sandbox
// fixed to the isolated rootfs backend.
type mcpOps struct {
	a       *app
	noAccel bool
}

var _ mcpserver.Operations = (*mcpOps)(nil)

// flags parses a port's settings with port's own flag set, so each is checked as the
// command line checks it; the backend is always rootfs.
func (o *mcpOps) flags(args []string) (portFlags, error) {
	var f portFlags
	args = append(args, "--sandbox", "rootfs", "--no-accel="+strconv.FormatBool(o.noAccel))
	pos, err := parseArgs(portFlagSet(&f), args)
	if err != nil {
		return f, err
	}
	if len(pos) > 0 {
		return f, fmt.Errorf("unexpected argument %q", pos[0])
	}
	if f.sandbox != "rootfs" || f.unsafeHost {
		return f, errors.New("only the rootfs sandbox runs through the MCP server")
	}
	return f, nil
}

// Port implements [mcpserver.Operations].
func (o *mcpOps) Port(ctx context.Context, req mcpserver.PortRequest, events func(atesor.Event)) (*atesor.Result, error) {
	args := []string{"--out", req.OutDir}
	add := func(set bool, flagArgs ...string) {
		if set {
			args = append(args, flagArgs...)
		}
	}
	add(req.Platform != "", "--platform", req.Platform)
	add(req.Name != "", "--name", req.Name)
	add(req.Offline, "--offline")
	add(req.Optimize, "--optimize")
	add(req.Force, "--force")
	add(req.Resume, "--resume")
	add(req.MaxAttempts != 0, "--max-attempts", strconv.Itoa(req.MaxAttempts))
	add(req.MaxCostUSD != 0, "--max-cost", strconv.FormatFloat(req.MaxCostUSD, 'g', -1, 64))
	f, err := o.flags(args)
	if err != nil {
		return nil, err
	}
	res, err := portRun(ctx, o.a, portJob{flags: f, source: req.Source, events: events,
		busy: func(lock string) error {
			return fmt.Errorf("refused: another port of this package into %s is running (lock %s); wait for it to end, or cancel it", req.OutDir, lock)
		}})
	if err != nil {
		return nil, mcpError(err)
	}
	return res.Result, nil
}

// mcpError words a port's error for a client: the same facts as the command line's
// messages, without its flags' spelling where a tool has none.
func mcpError(err error) error {
	var nk *needKeyError
	var ie *portInterruptedError
	switch {
	case errors.As(err, &nk):
		return fmt.Errorf("%w; set the key in the server's environment (or a .env file) and restart it, or call port with offline", nk.err)
	case errors.As(err, &ie):
		if ie.started {
			return errors.New("cancelled; the run state is saved: call port with resume to continue it")
		}
		return fmt.Errorf("cancelled: %s", ie.Error())
	}
	return err
}

// Replay implements [mcpserver.Operations].
func (o *mcpOps) Replay(ctx context.Context, req mcpserver.ReplayRequest, events func(atesor.Event)) (*replay.Result, error) {
	var args []string
	if req.Platform != "" {
		args = append(args, "--platform", req.Platform)
	}
	f, err := o.flags(args)
	if err != nil {
		return nil, err
	}
	f.out = ""
	return replayRun(ctx, o.a, replayJob{flags: f, target: req.Target, source: req.Source, outBase: req.OutDir, events: events})
}

// SandboxRun implements [mcpserver.Operations].
func (o *mcpOps) SandboxRun(ctx context.Context, req mcpserver.SandboxRequest) (atesor.CommandResult, error) {
	p, err := knowledge.Profile(platformOr(req.Platform))
	if err != nil {
		return atesor.CommandResult{}, err
	}
	f := shellFlags{source: req.Source, kept: req.Kept, name: req.Name, network: req.Network, noAccel: o.noAccel}
	return sandboxExec(ctx, o.a, sandboxJob{flags: f, platform: p, line: req.Line, timeout: req.Timeout})
}

// Recipe implements [mcpserver.Operations].
func (o *mcpOps) Recipe(ctx context.Context, platform, pkg string) (*atesor.CachedRecipe, error) {
	p, err := knowledge.Profile(platformOr(platform))
	if err != nil {
		return nil, err
	}
	r, _, err := cachedRecipe(ctx, p, pkg)
	return r, err
}

// Doctor implements [mcpserver.Operations].
func (o *mcpOps) Doctor(ctx context.Context, platform string) (*mcpserver.DoctorOutput, error) {
	p, err := knowledge.Profile(platformOr(platform))
	if err != nil {
		return nil, err
	}
	r := doctorChecks(ctx, o.a, p)
	out := &mcpserver.DoctorOutput{Header: doctorHeader(o.a, p), Problems: r.problems, Fixes: r.fixes,
		Sections: []mcpserver.DoctorSection{}}
	for _, s := range r.sections {
		sec := mcpserver.DoctorSection{Name: s.Name, Findings: []mcpserver.DoctorFinding{}}
		for _, f := range s.Findings {
			sec.Findings = append(sec.Findings, mcpserver.DoctorFinding{Level: f.Level, Text: f.Text})
		}
		out.Sections = append(out.Sections, sec)
	}
	return out, nil
}

// platformOr is the platform a tool names, else the command line's default.
func platformOr(name string) string {
	if name != "" {
		return name
	}
	return envOr("ATESOR_PLATFORM", "debian")
}
