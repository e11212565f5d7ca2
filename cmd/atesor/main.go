package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/eclipse-atesor/atesor-go/internal/escape"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1   // not verified, escalated, or problems found
	exitUsage       = 2   // usage or setup error
	exitInterrupted = 130 // interrupted; state saved
)

// app is what a command may touch of the process: its output streams and facts about
// the host. Tests run commands through the built binary; the struct keeps the commands
// free of globals.
type app struct {
	stdout, stderr io.Writer
	// terminal is true when stderr is a terminal (live progress display).
	terminal bool
	// root is true when the process runs as root.
	root bool
	// openSandbox and provider, when set, replace port's sandbox backend and model
	// provider (the tests' fake sandbox and fake provider); nil means the real ones.
	openSandbox func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error)
	provider    atesor.Provider
	// dotenv says where the settings came from (nil: not loaded, as in tests that
	// call run directly).
	dotenv *dotEnvReport
}

// command is one subcommand of the dispatcher.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, a *app, args []string) int
}

func commands() []command {
	return []command{
		{"port", "port a package to riscv64 and verify it", runPort},
		{"batch", "port many packages: list, shards, summaries, dashboard", runBatch},
		{"merge", "combine the output directories of batch shards", runMerge},
		{"sandbox", "create, inspect or remove the cached riscv64 sandbox", runSandbox},
		{"doctor", "check host tools, binfmt, sandboxes and the model provider", runDoctor},
		{"examples", "list, lint or merge few-shot example files", runExamples},
		{"recipe", "show a cached porting recipe", runRecipe},
		{"replay", "replay a recipe in a fresh sandbox and compare the artifacts", runReplay},
		{"mcp", "serve these tools to coding agents over the Model Context Protocol", runMCP},
		{"version", "print the version", runVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first SIGINT or SIGTERM cancels the run, which saves its state and ends; every
	// wait on sandbox data honours that. A second one gets the default action and ends
	// atesor at once, whatever it is doing (the state saved after each node stays).
	go func() {
		<-ctx.Done()
		stop()
	}()
	a := &app{stdout: os.Stdout, stderr: os.Stderr, terminal: isTerminal(os.Stderr), root: os.Geteuid() == 0}
	// Libraries log through slog's default logger; the progress display says what a user
	// needs, so only warnings reach the terminal (-v gives port its own debug logger).
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "."
	}
	a.dotenv, err = loadDotEnv(cwd, commandSources(os.Args[1:]), envFuncs{lookup: os.LookupEnv, set: os.Setenv, environ: os.Environ})
	if err != nil {
		fmt.Fprintf(a.stderr, "atesor: %s\n", escape.Text(err.Error()))
		os.Exit(exitUsage)
	}
	code := run(ctx, a, os.Args[1:])
	stop()
	os.Exit(code)
}

// commandSources returns the local sources a command line ports (port's SOURCE,
// batch's sources and --list entries), so that a .env inside one is not read. The
// arguments are parsed with the command's own flags; a line that does not parse names
// none (the command then reports the error itself).
func commandSources(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	switch args[0] {
	case "port":
		var f portFlags
		pos, err := parseArgs(portFlagSet(&f), args[1:])
		if err != nil {
			return nil
		}
		return pos
	case "batch":
		var o batchOptions
		pos, err := parseArgs(batchFlagSet(&o), args[1:])
		if err != nil {
			return nil
		}
		if o.list != "" && o.list != "-" {
			// The list is read again by the command; standard input is not consumed here.
			if items, err := batchItems(o.list, nil); err == nil {
				for _, it := range items {
					pos = append(pos, it.Source)
				}
			}
		}
		return pos
	}
	return nil
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// run dispatches to a subcommand and returns the exit code.
func run(ctx context.Context, a *app, args []string) int {
	if len(args) == 0 {
		topUsage(a.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			// help examples lint = examples lint --help
			return run(ctx, a, append(append([]string{}, args[1:]...), "--help"))
		}
		topUsage(a.stdout)
		return exitOK
	case "--version", "-version":
		return runVersion(ctx, a, nil)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, a, args[1:])
		}
	}
	fmt.Fprintf(a.stderr, "atesor: unknown command %q\n\n", args[0])
	topUsage(a.stderr)
	return exitUsage
}

func topUsage(w io.Writer) {
	fmt.Fprint(w, "Atesor ports open-source packages to RISC-V: it builds them natively in a riscv64\n"+
		"sandbox, repairs what breaks with LLM agents, verifies the artifacts and writes a recipe.\n\n"+
		"Usage:\n  atesor COMMAND [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'atesor COMMAND --help' for the flags of a command.\n"+
		"Variables are read from ~/.config/atesor-ai/.env, $ATESOR_HOME/.env and ./.env, in\n"+
		"that order (a variable already set is never overridden); ./.env may set only model\n"+
		"names, timeouts, output caps and the platform, and nothing when it lies inside the\n"+
		"source being ported. 'atesor doctor' shows where each setting came from.\n")
}

// flagSet makes a flag set whose errors the caller reports.
func flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses flags that may come before, between or after the positional
// arguments and returns the positional arguments. Everything after a "--" is
// positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	for i, arg := range args {
		if arg == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usage describes a command for --help and for usage errors.
type usage struct {
	synopsis    string // "atesor port SOURCE [flags]"
	description string
	subcommands [][2]string
}

func (u usage) print(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage:\n  %s\n", u.synopsis)
	if u.description != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(u.description, "\n"))
	}
	if len(u.subcommands) > 0 {
		fmt.Fprint(w, "\nCommands:\n")
		for _, s := range u.subcommands {
			fmt.Fprintf(w, "  %-8s %s\n", s[0], s[1])
		}
	}
	if fs != nil && hasFlags(fs) {
		fmt.Fprint(w, "\nFlags:\n")
		printFlags(w, fs)
	}
}

// printFlags lists the flags GNU style: --name for long names, -v for one letter.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		typ, help := flag.UnquoteUsage(f)
		line := "  " + dash + f.Name
		if typ != "" {
			line += " " + typ
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" {
			if typ == "string" {
				def = strconv.Quote(def)
			}
			help += " (default " + def + ")"
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, help)
	})
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parseOrExit parses args and handles --help and flag errors. It returns the positional
// arguments, or done=true with the exit code to return.
func parseOrExit(a *app, fs *flag.FlagSet, u usage, args []string) (pos []string, code int, done bool) {
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		u.print(a.stdout, fs)
		return nil, exitOK, true
	}
	if err != nil {
		return nil, usageError(a, fs.Name(), "%v", err), true
	}
	return pos, 0, false
}

// usageError prints a usage error for the command and returns exitUsage.
func usageError(a *app, cmd, format string, args ...any) int {
	fmt.Fprintf(a.stderr, "atesor %s: %s\nRun 'atesor %s --help' for usage.\n", cmd, fmt.Sprintf(format, args...), cmd)
	return exitUsage
}

// subcommand dispatches the second level (sandbox create, examples lint, ...).
func subcommand(ctx context.Context, a *app, name string, u usage, args []string,
	subs map[string]func(context.Context, *app, []string) int) int {
	if len(args) == 0 {
		u.print(a.stderr, nil)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		u.print(a.stdout, nil)
		return exitOK
	}
	if f, ok := subs[args[0]]; ok {
		return f(ctx, a, args[1:])
	}
	names := make([]string, 0, len(subs))
	for k := range subs {
		names = append(names, k)
	}
	sort.Strings(names)
	return usageError(a, name, "unknown command %q (want one of: %s)", args[0], strings.Join(names, ", "))
}
