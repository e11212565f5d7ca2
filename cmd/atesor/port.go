package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/internal/filelock"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider"
	_ "github.com/eclipse-atesor/atesor-go/provider/all" // link the four providers
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/source"
)

// defaultOutDir is where port writes its outputs unless --out says otherwise.
const defaultOutDir = "atesor-out"

var portUsage = usage{
	synopsis: "atesor port SOURCE [flags]",
	description: `Port a package to riscv64: build it natively in a riscv64 sandbox, repair what
breaks with LLM agents, verify the artifacts and write the recipe and report.

SOURCE is a local directory, a source tarball path or URL, a git URL, or a Debian source
package written debian:NAME or debian:NAME=VERSION (its upstream tarball, from the
configured mirror's Sources index of the sandbox's suite, checked against the index's
SHA-256 and recorded in the report).

A verified recipe in the cache is reused (no sandbox, no model, no key) unless --force.
Without an API key for LLM_PROVIDER (default gemini) and without --offline, port stops
before any work and names the variable to set. As root, missing host tools are installed
with apt and the sandbox is provisioned on first use.

Exit status: 0 verified or cached, 1 not verified, tests_failing or escalated, 2 usage or setup error,
130 interrupted (the state is saved; continue with --resume).`,
}

// portFlags are the flags of port.
type portFlags struct {
	platform, sandbox, name, out string
	offline, unsafeHost          bool
	maxAttempts                  int
	maxCost                      float64
	testTimeout                  time.Duration
	force, resume, keepSandbox   bool
	optimize                     bool
	noAccel                      bool
	pkg, asJSON, verbose         bool
	crates                       string
	goModule                     string
}

// portFlagSet defines the flags of port into f.
func portFlagSet(f *portFlags) *flag.FlagSet {
	fs := flagSet("port")
	f.registerShared(fs)
	fs.StringVar(&f.name, "name", "", "package name (default: derived from SOURCE)")
	fs.BoolVar(&f.resume, "resume", false, "continue the saved run of this package")
	fs.BoolVar(&f.optimize, "optimize", false, "performance mode: after a verified port (or from a cached recipe, rebuilt), measure the build and\noptimisation candidates (-O3, the vector extension, LTO, the package's SIMD switches) on a workload")
	fs.BoolVar(&f.keepSandbox, "keep-sandbox", false, "keep the run's sandbox changes (overlay upper directory)")
	fs.BoolVar(&f.pkg, "package", false, "also write <out>/<name>_package.zip with recipe, report, artifacts and logs")
	fs.StringVar(&f.out, "out", defaultOutDir, "output directory")
	fs.StringVar(&f.goModule, "go-module", "", "module path for Go packages with no go.mod (go mod init PATH); default: the Debian\nsource's Go-Import-Path, else the package clause's import comment")
	fs.BoolVar(&f.asJSON, "json", false, "print the report as JSON on stdout (the document <out>/<name>_report.json holds)")
	return fs
}

// registerShared defines the flags port and batch share, once, so that each means the
// same in both: batch passes them to every port it runs.
func (f *portFlags) registerShared(fs *flag.FlagSet) {
	fs.StringVar(&f.platform, "platform", envOr("ATESOR_PLATFORM", "debian"), "target distro: alpine, debian or ubuntu ($ATESOR_PLATFORM)")
	fs.StringVar(&f.sandbox, "sandbox", "rootfs", "sandbox backend: rootfs, docker or host (host needs --unsafe-host)")
	fs.BoolVar(&f.unsafeHost, "unsafe-host", false, "allow --sandbox host, which runs model-chosen commands on this machine")
	fs.BoolVar(&f.offline, "offline", false, "make no model calls (same as LLM_PROVIDER=none)")
	fs.IntVar(&f.maxAttempts, "max-attempts", atesor.DefaultMaxAttempts, "failed builds, verifications and invalid fixes allowed per package")
	fs.Float64Var(&f.maxCost, "max-cost", atesor.DefaultMaxCostUSD, "escalate a package when its API cost exceeds this many US dollars")
	fs.DurationVar(&f.testTimeout, "test-timeout", atesor.DefaultTestTimeout, "time bound of each package's own tests")
	fs.BoolVar(&f.force, "force", false, "skip the recipe cache: build even when a verified recipe is cached")
	fs.BoolVar(&f.noAccel, "no-accel", false, "run the emulated riscv64 compiler, binutils and Go tools instead of their native builds of the same versions")
	fs.BoolVar(&f.verbose, "v", false, "verbose: every command and output line, debug logs")
	fs.StringVar(&f.crates, "crates", envOr("ATESOR_CRATES", string(atesor.CratesDistribution)),
		"where a Rust package's crates come from: distribution (the distribution's packaged crates, cargo offline),\nregistry (cargo fetches them, network on) or auto (one bounded cargo fetch, else the distribution's) ($ATESOR_CRATES)")
}

// cratesMode is the --crates setting (checked by checkShared).
func (f *portFlags) cratesMode() atesor.CratesMode {
	m, _ := atesor.ParseCratesMode(f.crates)
	return m
}

// checkShared says what is wrong with the shared flags, or "" when nothing is.
func (f *portFlags) checkShared() string {
	switch {
	case f.sandbox != "rootfs" && f.sandbox != "docker" && f.sandbox != "host":
		return fmt.Sprintf("--sandbox %q: choose rootfs, docker or host", f.sandbox)
	case f.sandbox == "host" && !f.unsafeHost:
		return "--sandbox host runs model-chosen commands on this machine without isolation; " +
			"add --unsafe-host if that is what you want (it is right on a native riscv64 machine)"
	case f.maxAttempts <= 0:
		return "--max-attempts must be at least 1"
	case f.maxCost <= 0:
		return "--max-cost must be more than 0"
	case f.testTimeout <= 0:
		return "--test-timeout must be more than 0"
	}
	if _, err := atesor.ParseCratesMode(f.crates); err != nil {
		return "--crates: " + err.Error()
	}
	return ""
}

func runPort(ctx context.Context, a *app, args []string) int {
	var f portFlags
	fs := portFlagSet(&f)
	pos, code, done := parseOrExit(a, fs, portUsage, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(a, "port", "want exactly one SOURCE (a directory, a tarball path or URL, or a git URL)")
	}
	src := pos[0]
	prog := newProgress(a.stderr, a.terminal && !f.verbose, f.verbose)
	defer prog.Done()
	var logger *slog.Logger
	if f.verbose {
		logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	res, err := portRun(ctx, a, portJob{
		flags: f, source: src, events: prog.Event, provision: prog.Provision, logger: logger,
		busy: func(lock string) error {
			fmt.Fprintf(a.stderr, "atesor port: another port of this package into %s is running (lock %s); waiting for it to end\n", f.out, lock)
			return nil
		},
		kept: func(dir string) {
			fmt.Fprintf(a.stderr, "The run's sandbox changes are kept in %s\nOpen a shell on them with: atesor sandbox shell --from %s\n", dir, dir)
		},
	})
	prog.Done()
	if err != nil {
		return portFailure(a, err, src)
	}
	if f.pkg {
		zipPath := filepath.Join(res.outDir, res.Package+"_package.zip")
		if err := writePackageZip(zipPath, res.Result); err != nil {
			return setupError(a, "--package: %v", err)
		}
		if res.Files == nil {
			res.Files = map[string]string{}
		}
		res.Files["package"] = zipPath
		// The report lists the zip too (the zip holds the report as it was before).
		if err := addReportFile(res.Result, "package", zipPath); err != nil {
			return setupError(a, "--package: %v", err)
		}
	}
	if f.asJSON {
		// The report file itself, through the one report encoder: stdout and
		// <repo>_report.json are the same document.
		rep, err := graph.ReadReport(res.Files[atesor.FileReport])
		if err != nil {
			return setupError(a, "--json: %v", err)
		}
		if err := graph.EncodeReport(a.stdout, rep); err != nil {
			return setupError(a, "--json: %v", err)
		}
	} else {
		printVerdict(a.stdout, res.Result)
	}
	if res.Status.Succeeded() {
		return exitOK
	}
	return exitFailed
}

// portFailure prints why a port did not run to its end and returns the exit code.
func portFailure(a *app, err error, src string) int {
	var ue *portUsageError
	var nk *needKeyError
	var ie *portInterruptedError
	switch {
	case errors.As(err, &ue):
		return usageError(a, "port", "%s", ue.msg)
	case errors.As(err, &nk):
		return keyError(a, nk.err)
	case errors.As(err, &ie) && !ie.started:
		fmt.Fprintln(a.stderr, "atesor port: interrupted before the run started; nothing to resume")
		return exitInterrupted
	case errors.As(err, &ie):
		shown := source.RedactURL(src)
		fmt.Fprintf(a.stderr, "atesor port: interrupted; the run state is saved. Continue with: atesor port %s --resume\n", shown)
		if shown != src {
			fmt.Fprint(a.stderr, "(with the credentials of your source URL put back: they are never printed)\n")
		}
		return exitInterrupted
	}
	return setupError(a, "%v", err)
}

// portJob is one port as the command line and the MCP server run it: the flags, the
// source and where its progress goes.
type portJob struct {
	flags  portFlags
	source string
	// events and provision receive the pipeline's events and the sandbox's provisioning
	// steps (nil: dropped).
	events    func(atesor.Event)
	provision func(sandbox.Progress)
	logger    *slog.Logger
	// busy is called when another port of the same package into the same output
	// directory holds its lock: nil means wait for it, an error refuses the port.
	busy func(lock string) error
	// kept, when set, is told the upper directory a --keep-sandbox run left.
	kept func(dir string)
}

// portResult is a finished port: the library's result and the output directory.
type portResult struct {
	*atesor.Result
	outDir string
}

// portUsageError is a flag or argument a port cannot run with.
type portUsageError struct{ msg string }

func (e *portUsageError) Error() string { return e.msg }

// portInterruptedError is a port that the context ended; started says whether the
// pipeline had begun (its state is then saved and --resume continues it).
type portInterruptedError struct {
	started bool
	err     error
}

func (e *portInterruptedError) Error() string {
	if !e.started {
		return "interrupted before the run started; nothing to resume"
	}
	return "interrupted; the run state is saved (port again with resume to continue)"
}

func (e *portInterruptedError) Unwrap() error { return e.err }

// portLockFile is the lock that keeps two ports of one package from writing the same
// output directory's state and report at once.
func portLockFile(outDir, name string) string {
	return filepath.Join(outDir, "."+name+"_port.lock")
}

// lockPort takes the port lock of the package, calling busy while another holds it.
func lockPort(ctx context.Context, outDir, name string, busy func(string) error) (*filelock.Lock, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	file := portLockFile(outDir, name)
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var refused error
	told := false
	l, err := filelock.AcquireWaiting(lctx, file, func() {
		if told || busy == nil {
			return
		}
		told = true
		if refused = busy(file); refused != nil {
			cancel(refused)
		}
	})
	if refused != nil {
		return nil, refused
	}
	return l, err
}

// portRun runs one port: the checks of the flags, the source's resolution, the
// recipe-cache probe, the provider, the sandbox and the pipeline. `atesor port` and the
// MCP server's port tool both run ports through it.
func portRun(ctx context.Context, a *app, j portJob) (*portResult, error) {
	f := j.flags
	src := j.source
	var err error
	if msg := f.checkShared(); msg != "" {
		return nil, &portUsageError{msg}
	}
	if f.force && f.resume {
		return nil, &portUsageError{"--force and --resume do not go together"}
	}
	if f.out, err = filepath.Abs(f.out); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	platform, err := knowledge.Profile(f.platform)
	if err != nil {
		return nil, &portUsageError{fmt.Sprintf("--platform: %v", err)}
	}
	if f.goModule != "" {
		if err := module.CheckImportPath(f.goModule); err != nil {
			return nil, &portUsageError{fmt.Sprintf("--go-module: %v", err)}
		}
	}
	var origin *atesor.DistroSource
	if debsrc.IsSpec(src) {
		res, err := resolveDebianSource(ctx, src)
		if err != nil {
			return nil, err
		}
		src, origin, f.name = res.Tarball, &res.Origin, cmp.Or(f.name, res.Origin.Package)
	}
	if !isRemote(src) {
		if _, err := os.Stat(src); err != nil {
			return nil, fmt.Errorf("source %s: %w", src, err)
		}
	}
	name := source.PackageName(src)
	if strings.TrimSpace(f.name) != "" {
		name = source.SanitizeName(f.name)
	}
	home, err := memory.Home()
	if err != nil {
		return nil, err
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox(platform.SandboxKey()))
	if err != nil {
		return nil, err
	}

	req := atesor.Request{
		Source: src, Name: f.name, Platform: f.platform,
		MaxAttempts: f.maxAttempts, MaxCostUSD: f.maxCost, TestTimeout: f.testTimeout,
		Force: f.force, Resume: f.resume, OutputDir: f.out, Origin: origin, Optimize: f.optimize,
		GoModule: f.goModule,
	}
	noSandbox := func(context.Context, atesor.Platform) (atesor.Sandbox, error) {
		return nil, errors.New("the cache check opens no sandbox")
	}

	// The recipe-cache check comes before the key check: a cached port needs no key
	// (performance mode rebuilds a cached port, so it needs one like any run).
	cached := false
	if !f.resume && !f.optimize {
		// The probe resolves the source as the run will: the same download directory
		// under the state home (so a URL is fetched once) and the same bounds.
		probeCfg, err := withEnvSettings(graph.Config{Memory: store, OpenSandbox: noSandbox, OutputDir: f.out, Home: home})
		if err != nil {
			return nil, err
		}
		probe, err := graph.New(probeCfg)
		if err != nil {
			return nil, err
		}
		entry, err := probe.Cached(ctx, req)
		if err != nil && ctx.Err() != nil {
			return nil, &portInterruptedError{err: err}
		}
		if err != nil {
			return nil, err
		}
		cached = entry != nil
	}
	var prov atesor.Provider
	var keyErr error // set when a cache hit is expected without a usable provider
	switch {
	case f.offline:
	case a.provider != nil:
		prov = a.provider
	default:
		prov, err = provider.FromEnv(ctx)
		if err != nil {
			if !cached {
				return nil, &needKeyError{err: err}
			}
			keyErr = err
		}
	}

	// The lock is taken once the port is known to run (a stop for a missing key leaves
	// no output directory behind).
	lock, err := lockPort(ctx, f.out, name, j.busy)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &portInterruptedError{err: err}
		}
		return nil, err
	}
	defer lock.Release()

	provision := j.provision
	if provision == nil {
		provision = func(sandbox.Progress) {}
	}
	var kept string // the upper directory of a kept rootfs run
	open := func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error) {
		if keyErr != nil {
			// The cache entry went away since the check: a real run needs a model.
			return nil, &needKeyError{err: keyErr}
		}
		if a.openSandbox != nil {
			return a.openSandbox(ctx, p)
		}
		sb, err := openSandbox(ctx, a, f, name, p, provision, j.logger)
		var r *sandbox.Rootfs
		if f.keepSandbox && sandbox.As(sb, &r) {
			kept = r.UpperDir()
		}
		return sb, err
	}
	defer func() {
		if kept != "" && j.kept != nil {
			j.kept(kept)
		}
	}()
	cfg, err := withEnvSettings(graph.Config{
		Provider:    prov,
		OpenSandbox: open,
		Memory:      store,
		OutputDir:   f.out,
		Home:        home,
		Logger:      j.logger,
		Crates:      f.cratesMode(),
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
	res, err := g.Run(ctx, req)
	if err != nil {
		var nk *needKeyError
		switch {
		case errors.As(err, &nk):
			return nil, nk
		case errors.Is(err, graph.ErrInterrupted) || ctx.Err() != nil:
			return nil, &portInterruptedError{started: true, err: err}
		}
		return nil, err
	}
	return &portResult{Result: res, outDir: f.out}, nil
}

// addReportFile records one more output file in the run's report file.
func addReportFile(res *atesor.Result, kind, path string) error {
	file := res.Files[atesor.FileReport]
	rep, err := graph.ReadReport(file)
	if err != nil {
		return err
	}
	if rep.Files == nil {
		rep.Files = map[string]string{}
	}
	rep.Files[kind] = path
	return graph.WriteReport(file, rep)
}

// needKeyError stops a run whose assumed cache hit turned out to be a miss.
type needKeyError struct{ err error }

func (e *needKeyError) Error() string { return e.err.Error() }

// keyError prints why no provider could be made (naming the key variable) and the
// --offline choice, and returns the setup exit code.
func keyError(a *app, err error) int {
	fmt.Fprintf(a.stderr, "atesor port: %s\n", escape.Text(err.Error()))
	var mk *provider.MissingKeyError
	if errors.As(err, &mk) {
		fmt.Fprintf(a.stderr, "Set %s (in the environment or a .env file), or run with --offline to port without a model\n"+
			"(the scripted fallbacks port packages whose build system is standard).\n", mk.Variable)
	} else {
		fmt.Fprint(a.stderr, "Fix the provider settings, or run with --offline to port without a model.\n")
	}
	return exitUsage
}

// setupError prints a setup error and returns exitUsage.
func setupError(a *app, format string, args ...any) int {
	fmt.Fprintf(a.stderr, "atesor port: %s\n", escape.Text(fmt.Sprintf(format, args...)))
	return exitUsage
}

// isRemote reports whether a source is fetched (URL or git remote) rather than a local
// path.
func isRemote(src string) bool {
	switch source.KindOf(src) {
	case source.URL:
		return true
	case source.Git:
		_, err := os.Stat(src)
		return err != nil // a local git repository is checked like a path
	}
	return strings.Contains(src, "://")
}

// openSandbox opens the chosen backend; for rootfs it first makes sure the host tools
// are there (installing them with apt as root) and qemu-riscv64 is registered in
// binfmt_misc (see [prepareHost]).
func openSandbox(ctx context.Context, a *app, f portFlags, name string, p atesor.Platform, provision func(sandbox.Progress), logger *slog.Logger) (atesor.Sandbox, error) {
	opts := []sandbox.Option{sandbox.WithProgress(provision), sandbox.WithKeep(f.keepSandbox), sandbox.WithRepo(name),
		sandbox.WithAccel(!f.noAccel)}
	opts = append(opts, envSandboxOptions()...)
	if logger != nil {
		opts = append(opts, sandbox.WithLogger(logger))
	}
	switch f.sandbox {
	case "docker":
		// The riscv64 image runs through qemu-riscv64 in binfmt_misc: registered here,
		// as an explicit step (as root; otherwise the error says what to run).
		if s := sandbox.ReadBinfmt(); !s.Registered || !s.Enabled {
			if err := sandbox.SetupBinfmt(); err != nil {
				return nil, err
			}
		}
		return sandbox.NewDocker(ctx, p, opts...)
	case "host":
		return sandbox.NewHost(p, opts...)
	}
	if err := prepareHost(ctx, a, p, provision); err != nil {
		return nil, err
	}
	return sandbox.NewRootfs(ctx, p, opts...)
}

// printVerdict prints the human summary of a result; its last line is the verdict.
// Every name and message in it may come from the build (file names, test names, error
// text), so each is escaped to one line: it can neither drive the terminal nor forge a
// line of the summary.
func printVerdict(w io.Writer, res *atesor.Result) {
	var b strings.Builder
	defer func() { fmt.Fprint(w, escape.Text(b.String())) }()
	q := escape.Line
	label := strings.ToUpper(strings.ReplaceAll(string(res.Status), "_", " "))
	fmt.Fprintf(&b, "%s: %s on %s\n", q(res.Package), q(label), q(res.Sandbox))
	if res.FailureClass != atesor.FailureNone {
		fmt.Fprintf(&b, "  failure:   %s", q(string(res.FailureClass)))
		if res.Reason != "" {
			fmt.Fprintf(&b, ": %s", q(res.Reason))
		}
		fmt.Fprintln(&b)
	}
	for _, art := range res.Artifacts {
		if art.Role == atesor.ArtifactPrimary || art.Role == "" {
			fmt.Fprintf(&b, "  artifact:  %s (%s, %s", q(art.Path), q(string(art.Kind)), q(art.Machine))
			if art.Problem != "" {
				fmt.Fprintf(&b, ", %s", q(art.Problem))
			}
			fmt.Fprintln(&b, ")")
		}
	}
	if st := res.State; st != nil {
		if why := install.ArtifactsReason(st.Install); why != "" {
			fmt.Fprintf(&b, "  evidence:  %s\n", q(why))
		}
	}
	if res.Tests != nil {
		fmt.Fprintf(&b, "  tests:     %s: %s\n", q(strings.Join(res.Tests.Commands, "; ")), q(res.Tests.Summary()))
	}
	fmt.Fprintf(&b, "  attempts:  %d, model calls %d, cost $%.4f, %s\n", res.Attempts, res.Usage.Calls,
		res.Usage.CostUSD, res.Duration.Round(time.Second))
	for _, line := range priceLines(res.Usage.Prices) {
		fmt.Fprintf(&b, "  price:     %s\n", q(line))
	}
	if st := res.State; st != nil && st.Performance != nil {
		printPerformance(&b, st.Performance)
	}
	for _, k := range []string{"recipe", "report", "artifacts", "package"} {
		if p, ok := res.Files[k]; ok {
			fmt.Fprintf(&b, "  %-10s %s\n", k+":", q(p))
		}
	}
	fmt.Fprintf(&b, "verdict: %s\n", q(atesor.VerdictLine(res.Status, res.Tests)))
}

// printPerformance prints performance mode's outcome: the winner and the caveat.
func printPerformance(w io.Writer, p *atesor.Performance) {
	if len(p.Variants) == 0 {
		fmt.Fprintln(w, "  performance: no measurement (see the recipe's Performance section)")
		return
	}
	fmt.Fprintf(w, "  performance: winner %s of %d variants, workload %s (%s)\n", escape.Line(p.Winner), len(p.Variants), escape.Line(p.Workload), escape.Line(p.Caveat))
}
