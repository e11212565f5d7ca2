package optimize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// DefaultRuns is how many times each variant's workload is timed (at least 5).
const DefaultRuns = 5

// DefaultMaxRunTime bounds one run of the workload; a workload slower than this is not
// used (it would make performance mode take too long).
const DefaultMaxRunTime = 2 * time.Minute

// Target is the verified port performance mode works on.
type Target struct {
	Package  string
	Purpose  string
	Language string
	// RepoDir is the package directory in the sandbox, holding the verified build.
	RepoDir string
	// Source is the package's pristine source tree on the host: its files (and the files
	// the fixes changed) are what a variant copies from RepoDir before it rebuilds.
	Source fs.FS
	// Commands are the build commands that made the verified build, in order.
	Commands []string
	// ChangedFiles are repository paths the fixes created or changed.
	ChangedFiles []string
	// TestCommands are the package's test commands and TestTimeout bounds them.
	TestCommands []string
	TestTimeout  time.Duration
	// TestsPassed is true when the package tests passed on the verified build.
	TestsPassed bool
	// Artifacts are the verified build's primary artifacts.
	Artifacts []atesor.Artifact
	// Crate and Module name the Rust crate and the Go module.
	Crate, Module string
	// Env is the base environment of every build, workload and test command, before
	// a candidate's own (the fetched Go toolchain's PATH, SOURCE_DATE_EPOCH, ...): the
	// commands run as the verified build's did.
	Env []string
}

// env returns the target's base environment followed by extra.
func (t Target) env(extra ...[]string) []string {
	out := append([]string(nil), t.Env...)
	for _, e := range extra {
		out = append(out, e...)
	}
	return out
}

// Optimizer runs performance mode in a sandbox.
type Optimizer struct {
	Sandbox atesor.Sandbox
	// Advisor asks a model for a workload; nil (or an advisor without a client) is offline:
	// the package's own benchmarks and tests are the workloads.
	Advisor *Advisor
	// Runs per variant (default and minimum [DefaultRuns]).
	Runs int
	// MaxRunTime bounds one workload run (default [DefaultMaxRunTime]).
	MaxRunTime time.Duration
	// Candidates replaces the default candidates ([Candidates]) when set.
	Candidates []Candidate
	// Emulated is true when the sandbox runs riscv64 under an emulator (default: the
	// host is not riscv64).
	Emulated *bool
	Logger   *slog.Logger
	// Progress receives one line per step, for events.
	Progress func(line string)
	// Now is the clock of the Measured stamp (default time.Now).
	Now func() time.Time
	// CounterTools returns the host directory of the instruction counter's tools
	// ([HostCounter], [PrepareCounter]); nil does not count instructions. Under
	// emulation each accepted variant's workload then runs once more, untimed, under
	// the counting emulator.
	CounterTools func(ctx context.Context) (string, error)
}

// Result is what [Optimizer.Run] produced.
type Result struct {
	Performance *atesor.Performance
	// Usage is the optimizer agent's model usage.
	Usage atesor.Usage
}

// Run chooses a workload, measures the baseline, tries each candidate and picks the
// winner: the accepted variant with the lowest median, if it beats the baseline's.
func (o *Optimizer) Run(ctx context.Context, t Target) (Result, error) {
	o.defaults()
	emulated := runtime.GOARCH != "riscv64"
	if o.Emulated != nil {
		emulated = *o.Emulated
	}
	perf := &atesor.Performance{Runs: o.Runs, Emulated: emulated, Measured: o.Now().UTC()}
	if emulated {
		perf.Caveat = atesor.EmulatedCaveat
	} else {
		perf.Caveat = "measured on riscv64 hardware"
	}
	res := Result{Performance: perf}
	cnt := counter{why: "no workload to count"}
	perf.InstructionCounts = insnStatement(perf, cnt)
	wl, err := o.chooseWorkload(ctx, t, &res)
	if err != nil {
		return res, err
	}
	if emulated {
		cnt = o.setupCounter(ctx, wl)
	}
	perf.Source, perf.Workload, perf.Check, perf.Harness = wl.Source, wl.Command, wl.Mode.String(), wl.Harness

	base := atesor.Variant{Name: "baseline", Built: true, Accepted: true}
	outs, ds, why := o.measure(ctx, wl, t.RepoDir, t.env())
	if why != "" {
		return res, fmt.Errorf("optimize: the baseline workload %q failed: %s", wl.Command, why)
	}
	checker := NewChecker(wl.Mode, outs)
	perf.Check = checker.Mode.String()
	base.Output = checker.Want()
	base.Figures = checker.MedianFigures(outs)
	setStats(&base, ds)
	if t.TestCommands != nil {
		base.Tests = testsWord(t.TestsPassed)
	}
	o.countVariant(ctx, perf, cnt, wl, &base, t.RepoDir, t.env())
	perf.Variants = append(perf.Variants, base)

	cands := o.Candidates
	if cands == nil {
		var sw []Switch
		if t.Source != nil {
			sw = FindSwitches(t.Source)
		}
		cands = Candidates(t.Language, sw)
	}
	for _, c := range cands {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		v := o.tryCandidate(ctx, t, wl, checker, c, perf, cnt)
		if ctx.Err() != nil {
			// Interrupted while trying it: the candidate was not judged.
			return res, ctx.Err()
		}
		o.progress(fmt.Sprintf("variant %s: %s", v.Name, verdict(v)))
		perf.Variants = append(perf.Variants, v)
	}
	perf.InstructionCounts = insnStatement(perf, cnt)
	perf.Winner = Winner(perf.Variants)
	perf.Replay = Replay(t, perf.WinningVariant())
	return res, nil
}

func (o *Optimizer) defaults() {
	if o.Runs < DefaultRuns {
		o.Runs = DefaultRuns
	}
	if o.MaxRunTime <= 0 {
		o.MaxRunTime = DefaultMaxRunTime
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

func (o *Optimizer) progress(line string) {
	o.Logger.Info("optimize", "step", line)
	if o.Progress != nil {
		o.Progress(line)
	}
}

// Winner returns the accepted variant with the lowest median if it is faster than the
// baseline (the first variant), else "baseline".
func Winner(vs []atesor.Variant) string {
	if len(vs) == 0 {
		return ""
	}
	best := vs[0]
	for _, v := range vs[1:] {
		if v.Accepted && v.Median > 0 && v.Median < best.Median {
			best = v
		}
	}
	return best.Name
}

func setStats(v *atesor.Variant, ds []time.Duration) {
	st := Summarize(ds)
	v.Median, v.Min, v.Max, v.Durations = st.Median, st.Min, st.Max, st.Durations
}

func verdict(v atesor.Variant) string {
	if v.Accepted {
		return fmt.Sprintf("accepted, median %.3fs", v.Median.Seconds())
	}
	return "rejected: " + v.Rejected
}

func testsWord(passed bool) string {
	if passed {
		return "pass"
	}
	return "fail"
}

// measure prepares the workload in dir (the harness build) and runs it o.Runs times.
// why is non-empty when a step failed.
func (o *Optimizer) measure(ctx context.Context, wl Workload, dir string, env []string) (outs []string, ds []time.Duration, why string) {
	if wl.Prepare != "" {
		r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: wl.Prepare, Dir: dir, Env: env, Timeout: 10 * time.Minute})
		if err != nil {
			return nil, nil, err.Error()
		}
		if !r.OK() {
			return nil, nil, "building the harness failed: " + lastLine(r.Output)
		}
	}
	for i := 0; i < o.Runs; i++ {
		r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: wl.Command, Dir: dir, Env: env, Timeout: o.MaxRunTime})
		if err != nil {
			return nil, nil, err.Error()
		}
		if r.TimedOut {
			return nil, nil, fmt.Sprintf("run %d took longer than %s", i+1, o.MaxRunTime)
		}
		if !r.OK() {
			return nil, nil, fmt.Sprintf("run %d exited %d%s: %s", i+1, r.ExitCode, sig(r.Signal), lastLine(r.Output))
		}
		outs = append(outs, r.Stdout+r.Stderr)
		ds = append(ds, r.Duration)
	}
	return outs, ds, ""
}

func sig(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// tryCandidate builds the candidate in its own directory, checks its output and tests,
// and times it.
func (o *Optimizer) tryCandidate(ctx context.Context, t Target, wl Workload, ck *Checker, c Candidate, perf *atesor.Performance, cnt counter) atesor.Variant {
	v := c.variant(perf.Emulated)
	dir := t.RepoDir + "-atesor-" + safeName(c.Name)
	defer func() {
		_, _ = o.Sandbox.Exec(context.WithoutCancel(ctx), atesor.Command{Line: "rm -rf " + shQuote(dir), Dir: "/"})
	}()
	o.progress("building variant " + c.Name)
	if why := o.buildVariant(ctx, t, wl, c, dir, v.RunEnv); why != "" {
		v.Rejected = "build failed: " + why
		return v
	}
	v.Built = true
	outs, ds, why := o.measure(ctx, wl, dir, t.env(c.Env, v.RunEnv))
	if why != "" {
		v.Rejected = "workload failed: " + why
		return v
	}
	v.Output = ck.Of(outs[0])
	v.Figures = ck.MedianFigures(outs)
	setStats(&v, ds)
	for _, out := range outs {
		if !ck.Equal(out) {
			v.Output = ck.Of(out)
			v.Rejected = "its output differs from the baseline's"
			return v
		}
	}
	switch {
	case len(t.TestCommands) == 0:
		v.Tests = "none"
	case !t.TestsPassed:
		v.Tests = "not compared (the baseline's did not pass)"
	default:
		why := o.runTests(ctx, t, dir, t.env(c.Env, v.RunEnv))
		v.Tests = testsWord(why == "")
		if why != "" {
			v.Rejected = "the package tests fail (they passed for the baseline): " + why
			return v
		}
	}
	v.Accepted = true
	o.countVariant(ctx, perf, cnt, wl, &v, dir, t.env(c.Env, v.RunEnv))
	return v
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func safeName(n string) string { return unsafeName.ReplaceAllString(n, "-") }

// buildVariant copies the package's source files (with the fixes' changes) from the
// verified tree to dir and replays the build commands with the candidate's environment
// and configure options.
func (o *Optimizer) buildVariant(ctx context.Context, t Target, wl Workload, c Candidate, dir string, runEnv []string) string {
	files, err := sourceFiles(t.Source, t.ChangedFiles)
	if err != nil {
		return err.Error()
	}
	if wl.Harness != nil {
		files = append(files, wl.Harness.Filename)
	}
	list := t.RepoDir + "/.atesor-files"
	if err := o.Sandbox.WriteFile(ctx, list, []byte(strings.Join(files, "\n")+"\n"), 0o644); err != nil {
		return "write the file list: " + err.Error()
	}
	cp := fmt.Sprintf("rm -rf %[2]s && mkdir -p %[2]s && tar -C %[1]s --no-recursion -cf - -T %[3]s | tar -C %[2]s -xf -", shQuote(t.RepoDir), shQuote(dir), shQuote(list))
	r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: cp, Dir: "/", Timeout: 10 * time.Minute})
	if err != nil {
		return err.Error()
	}
	if !r.OK() {
		return "copying the sources: " + lastLine(r.Output)
	}
	env := t.env(c.Env, runEnv)
	applied := len(c.ConfigureArgs) == 0
	for _, line := range t.Commands {
		line = strings.ReplaceAll(line, t.RepoDir, dir)
		if !applied {
			line, applied = withConfigureArgs(line, c.ConfigureArgs)
		}
		r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: line, Dir: dir, Env: env, Network: true})
		if err != nil {
			return err.Error()
		}
		if !r.OK() {
			return fmt.Sprintf("`%s` exited %d%s: %s", line, r.ExitCode, sig(r.Signal), lastLine(r.Output))
		}
	}
	if !applied {
		return "no configure step to add " + strings.Join(c.ConfigureArgs, " ") + " to"
	}
	return ""
}

// runTests runs the package tests in dir; it returns "" when every command succeeded,
// else how the first one failed.
func (o *Optimizer) runTests(ctx context.Context, t Target, dir string, env []string) string {
	timeout := t.TestTimeout
	if timeout <= 0 {
		timeout = 15 * time.Minute
	}
	deadline := time.Now().Add(timeout)
	for _, line := range t.TestCommands {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Sprintf("they did not finish within the test timeout (%s)", timeout)
		}
		line = strings.ReplaceAll(line, t.RepoDir, dir)
		r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: line, Dir: dir, Env: env, Timeout: left})
		switch {
		case err != nil:
			return fmt.Sprintf("`%s`: %v", line, err)
		case r.TimedOut:
			return fmt.Sprintf("`%s` did not finish within the test timeout (%s)", line, timeout)
		case !r.OK():
			return fmt.Sprintf("`%s` exited %d%s: %s", line, r.ExitCode, sig(r.Signal), lastLine(r.Output))
		}
	}
	return ""
}

// sourceFiles lists the regular files and links of the pristine tree plus the changed
// files, as repository paths.
func sourceFiles(tree fs.FS, changed []string) ([]string, error) {
	if tree == nil {
		return nil, errors.New("no source tree to copy the variant from")
	}
	seen := map[string]bool{}
	var out []string
	err := fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." || d.IsDir() {
			return nil
		}
		if path.Base(p) == ".git" {
			return nil
		}
		seen[p] = true
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the source tree: %w", err)
	}
	for _, c := range changed {
		c = path.Clean(strings.TrimPrefix(c, "./"))
		if !seen[c] && c != "." && !strings.HasPrefix(c, "../") {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300] + "..."
	}
	return l
}
