package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/replay"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

var replayUsage = usage{
	synopsis: "atesor replay RECIPE.md|PACKAGE [flags]",
	description: `Replay a port: run the recipe's command block in a fresh sandbox, from the same
source (its SHA-256 or commit checked first), at the same path (/workspace/<package>)
and with the same SOURCE_DATE_EPOCH, then compare the SHA-256 of every primary
artifact with the port's.

RECIPE.md is a <package>_recipe.md written by port (its <package>_report.json and
<package>_patches/ are read from the same directory); PACKAGE is a package in the
recipe cache.

A recipe folder may be someone else's, so it never chooses host files: the source
is the one --source names, else the report's only when it is a tarball URL with its
SHA-256 or a git URL with its commit; a report that names a directory, a local
tarball or a file:// repository is refused (name it with --source). Only the block of
the recipe's Commands section runs, and every command passes the same rules as a
model's plan before anything runs.

Prints reproduced, differs (listing the files) or failed (the command that failed).
Exit status: 0 reproduced, 1 differs or failed, 2 usage or setup error (a changed
source among them), 130 interrupted.`,
}

func runReplay(ctx context.Context, a *app, args []string) int {
	var f portFlags
	fs := flagSet("replay")
	fs.StringVar(&f.platform, "platform", envOr("ATESOR_PLATFORM", "debian"), "target distro: alpine, debian or ubuntu ($ATESOR_PLATFORM)")
	fs.StringVar(&f.sandbox, "sandbox", "rootfs", "sandbox backend: rootfs, docker or host (host needs --unsafe-host)")
	fs.BoolVar(&f.unsafeHost, "unsafe-host", false, "allow --sandbox host, which runs the recipe's commands on this machine")
	fs.BoolVar(&f.keepSandbox, "keep-sandbox", false, "keep the replay's sandbox changes (overlay upper directory)")
	fs.BoolVar(&f.noAccel, "no-accel", false, "run the emulated riscv64 toolchain instead of the accelerated one")
	fs.StringVar(&f.out, "out", "", "directory for the replay's logs (default <recipe dir>/<package>_replay)")
	var source string
	fs.StringVar(&source, "source", "", "the package's source (directory, tarball or URL); its SHA-256 or commit is checked against the port's")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON on stdout")
	fs.BoolVar(&f.verbose, "v", false, "verbose: every command and output line, debug logs")
	pos, code, done := parseOrExit(a, fs, replayUsage, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(a, "replay", "want exactly one RECIPE.md or PACKAGE")
	}
	prog := newProgress(a.stderr, a.terminal && !f.verbose, f.verbose)
	defer prog.Done()
	var logger *slog.Logger
	if f.verbose {
		logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	res, err := replayRun(ctx, a, replayJob{flags: f, target: pos[0], source: source,
		events: prog.Event, provision: prog.Provision, logger: logger})
	prog.Done()
	if err != nil {
		var ue *portUsageError
		switch {
		case errors.As(err, &ue):
			return usageError(a, "replay", "%s", ue.msg)
		case ctx.Err() != nil:
			fmt.Fprintln(a.stderr, "atesor replay: interrupted")
			return exitInterrupted
		}
		return replayError(a, "%v", err)
	}
	if f.asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		printReplay(a, res)
	}
	if res.Verdict == replay.Reproduced {
		return exitOK
	}
	return exitFailed
}

// replayJob is one replay as the command line and the MCP server run it.
type replayJob struct {
	flags portFlags
	// target is a recipe file (<package>_recipe.md) or a package of the recipe cache;
	// source, when set, is the package's source to check and use.
	target, source string
	// outBase, when set, is where the replay's directory is made instead of the
	// recipe's directory.
	outBase   string
	events    func(atesor.Event)
	provision func(sandbox.Progress)
	logger    *slog.Logger
}

// replayRun replays a recipe in a fresh sandbox: `atesor replay` and the MCP server's
// replay tool both run replays through it. Its flags' out, when empty, becomes
// <recipe dir>/<package>_replay.
func replayRun(ctx context.Context, a *app, j replayJob) (*replay.Result, error) {
	f := j.flags
	switch {
	case f.sandbox != "rootfs" && f.sandbox != "docker" && f.sandbox != "host":
		return nil, &portUsageError{fmt.Sprintf("--sandbox %q: choose rootfs, docker or host", f.sandbox)}
	case f.sandbox == "host" && !f.unsafeHost:
		return nil, &portUsageError{"--sandbox host runs the recipe's commands on this machine without isolation; add --unsafe-host if that is what you want"}
	}
	platform, err := knowledge.Profile(f.platform)
	if err != nil {
		return nil, &portUsageError{fmt.Sprintf("--platform: %v", err)}
	}
	home, err := memory.Home()
	if err != nil {
		return nil, err
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox(platform.SandboxKey()))
	if err != nil {
		return nil, err
	}
	in, outBase, err := replayInput(ctx, store, platform, j.target, j.source)
	if err != nil {
		return nil, err
	}
	if j.outBase != "" {
		outBase = j.outBase
	}
	if f.out == "" {
		f.out = filepath.Join(outBase, in.Package+"_replay")
	}
	if f.out, err = filepath.Abs(f.out); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	provision := j.provision
	if provision == nil {
		provision = func(sandbox.Progress) {}
	}
	cfg, err := withEnvSettings(graph.Config{
		Memory: store, OutputDir: f.out, Home: home, Logger: j.logger,
		OpenSandbox: func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error) {
			if a.openSandbox != nil {
				return a.openSandbox(ctx, p)
			}
			return openSandbox(ctx, a, f, in.Package, p, provision, j.logger)
		},
	})
	if err != nil {
		return nil, err
	}
	var opts []graph.Option
	if j.events != nil {
		opts = append(opts, graph.WithEvents(j.events))
	}
	g, err := graph.New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return g.Replay(ctx, in, f.platform, f.out)
}

// replayInput reads what to replay: a recipe file (with its report) or a recipe-cache
// entry. outBase is where the replay's logs go by default.
func replayInput(ctx context.Context, store *memory.Store, p atesor.Platform, arg, source string) (replay.Input, string, error) {
	if strings.HasSuffix(arg, ".md") || strings.ContainsRune(arg, os.PathSeparator) {
		in, err := replay.ReadInputFrom(arg, source)
		if err != nil {
			return in, "", err
		}
		return in, filepath.Dir(arg), nil
	}
	e, err := store.Recipe(ctx, arg, p.SandboxKey())
	if err != nil {
		return replay.Input{}, "", err
	}
	if e == nil {
		return replay.Input{}, "", fmt.Errorf("no cached recipe for %s in %s; give the recipe file (<package>_recipe.md) instead", arg, p.SandboxKey())
	}
	in := replay.InputFromCache(*e)
	if source != "" {
		in.Source = source
	}
	return in, defaultOutDir, nil
}

func printReplay(a *app, res *replay.Result) {
	var b strings.Builder
	defer func() { fmt.Fprint(a.stdout, escape.Text(b.String())) }()
	fmt.Fprintf(&b, "%s: replay %s on %s (%d primary artifacts compared, %s)\n", res.Package, strings.ToUpper(res.Verdict),
		res.Sandbox, res.Compared, res.Duration.Round(time.Second))
	for _, d := range res.Differs {
		got := d.Got
		if got == "" {
			got = "not built"
		}
		fmt.Fprintf(&b, "  differs:   %s (port %s, replay %s)\n", escape.Line(d.Path), short(d.Want), short(got))
	}
	if res.Failure != "" {
		fmt.Fprintf(&b, "  failed:    %s\n", escape.Line(firstLineOf(res.Failure)))
	}
	fmt.Fprintf(&b, "verdict: %s\n", res.Verdict)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// replayError prints a setup error of replay and returns exitUsage.
func replayError(a *app, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(a.stderr, "atesor replay: %s\n", escape.Text(msg))
	return exitUsage
}
