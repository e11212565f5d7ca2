package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/batch"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// defaultBatchOut is where batch writes unless --out says otherwise.
const defaultBatchOut = "atesor-batch"

var batchUsage = usage{
	synopsis: "atesor batch [--list FILE] [SOURCE...] [flags]",
	description: `Port many packages: the sources of --list FILE (one per line, # comments; - reads
standard input) and those given as arguments. A source is whatever port takes, including
debian:NAME[=VERSION] for a Debian source package.

Each package's outputs go to OUT/NAME/. As packages finish, OUT/results.jsonl gets one
line each and OUT/summary.json, summary.md and dashboard.html (a self-contained page with
the table, verdicts by failure class, wall time and cost charts) are rewritten. A rerun
skips the packages results.jsonl lists as finished unless --rerun; --force skips the
recipe cache, as it does for port. Ctrl-C stops the running ports, saves the summary (the
rest pending) and exits 130; run again to continue.

--shard I/N ports part I (0-based) of N of the list: item k goes to shard k mod N. In a
Kubernetes Indexed Job it defaults to $JOB_COMPLETION_INDEX/$ATESOR_SHARDS. Combine the
shards' output directories with 'atesor merge'.

Exit status: 0 every package verified or cached, 1 some failed, 2 usage or setup error,
130 interrupted.`,
}

// batchOptions are the flags of batch.
type batchOptions struct {
	f           portFlags
	list, shard string
	jobs        int
	rerun       bool
}

// batchFlagSet defines the flags of batch into o.
func batchFlagSet(o *batchOptions) *flag.FlagSet {
	fs := flagSet("batch")
	fs.StringVar(&o.list, "list", "", "file of sources, one per line (- for standard input)")
	fs.StringVar(&o.f.out, "out", defaultBatchOut, "output directory")
	fs.IntVar(&o.jobs, "jobs", 1, "ports that run at once (one port already uses every core)")
	fs.StringVar(&o.shard, "shard", "", "port part I of N of the list, as I/N (default $JOB_COMPLETION_INDEX/$ATESOR_SHARDS)")
	fs.BoolVar(&o.rerun, "rerun", false, "port again the packages an earlier run finished")
	o.f.registerShared(fs)
	// --no-cache was batch's name for port's --force before the two shared their flags.
	fs.BoolVar(&o.f.force, "no-cache", false, "the same as --force (an older name)")
	return fs
}

func runBatch(ctx context.Context, a *app, args []string) int {
	var o batchOptions
	fs := batchFlagSet(&o)
	pos, code, done := parseOrExit(a, fs, batchUsage, args)
	if done {
		return code
	}
	f, list, shard, jobs, rerun := o.f, o.list, o.shard, o.jobs, o.rerun
	if jobs < 1 {
		return usageError(a, "batch", "--jobs must be at least 1")
	}
	if msg := f.checkShared(); msg != "" {
		return usageError(a, "batch", "%s", msg)
	}
	items, err := batchItems(list, pos)
	if err != nil {
		return batchError(a, "%v", err)
	}
	if len(items) == 0 {
		return usageError(a, "batch", "no sources: give --list FILE or sources as arguments")
	}
	sh, err := batchShard(shard)
	if err != nil {
		return usageError(a, "batch", "%v", err)
	}
	mine := sh.Select(items)
	if f.out, err = filepath.Abs(f.out); err != nil {
		return batchError(a, "--out: %v", err)
	}
	platform, err := knowledge.Profile(f.platform)
	if err != nil {
		return usageError(a, "batch", "--platform: %v", err)
	}
	home, err := memory.Home()
	if err != nil {
		return batchError(a, "%v", err)
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox(platform.SandboxKey()))
	if err != nil {
		return batchError(a, "%v", err)
	}
	var prov atesor.Provider
	if !f.offline {
		if prov, err = provider.FromEnv(ctx); err != nil {
			return keyError(a, err)
		}
	}
	var logger *slog.Logger
	eventsTo := io.Discard
	if f.verbose {
		logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		eventsTo = a.stderr
	}
	// Ports may run side by side: their node events go to one plain progress writer
	// (shown with -v); the batch prints one line per finished package.
	prog := newProgress(eventsTo, false, f.verbose)
	defer prog.Done()
	port := func(ctx context.Context, req atesor.Request) (*atesor.Result, error) {
		open := func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error) {
			return openSandbox(ctx, a, f, req.Name, p, prog.Provision, logger)
		}
		cfg, err := withEnvSettings(graph.Config{Provider: prov, OpenSandbox: open, Memory: store, OutputDir: req.OutputDir, Home: home, Logger: logger, Crates: f.cratesMode()})
		if err != nil {
			return nil, err
		}
		g, err := graph.New(cfg, graph.WithEvents(prog.Event))
		if err != nil {
			return nil, err
		}
		return g.Run(ctx, req)
	}
	sharded := ""
	if sh.Count > 1 {
		sharded = fmt.Sprintf(" (shard %s of a list of %d)", sh, len(items))
	}
	fmt.Fprintf(a.stderr, "atesor batch: %d package(s)%s, %d at a time, into %s\n", len(mine), sharded, jobs, f.out)
	cfg := batch.Config{
		Port: port, OutDir: f.out, Resolver: debianResolver(home), Jobs: jobs, Rerun: rerun, Shard: sh,
		Request: atesor.Request{Platform: f.platform, MaxAttempts: f.maxAttempts, MaxCostUSD: f.maxCost,
			TestTimeout: f.testTimeout, Force: f.force},
		Progress: func(p batch.Progress) { fmt.Fprintln(a.stderr, progressLine(p)) },
		Learned: func(ctx context.Context, dir string) error {
			return batch.ExportLearned(ctx, memory.ExamplesDir(home), store.RecipeCachePath(), dir)
		},
	}
	s, err := batch.Run(ctx, cfg, mine)
	if s != nil {
		printBatchSummary(a.stdout, s, f.out)
	}
	switch {
	case errors.Is(err, batch.ErrStopped):
		fmt.Fprintf(a.stderr, "atesor batch: interrupted; the summary is saved. Run the same command again to port the %d remaining package(s).\n", len(s.Pending))
		return exitInterrupted
	case err != nil:
		return batchError(a, "%v", err)
	case s.Failed > 0:
		return exitFailed
	}
	return exitOK
}

// batchItems reads the list file (if any) and appends the argument sources.
func batchItems(list string, args []string) ([]batch.Item, error) {
	var listed []batch.Item
	if list != "" {
		r := io.Reader(os.Stdin)
		if list != "-" {
			fh, err := os.Open(list)
			if err != nil {
				return nil, fmt.Errorf("--list: %w", err)
			}
			defer fh.Close()
			r = fh
		}
		items, err := batch.ParseList(r)
		if err != nil {
			return nil, fmt.Errorf("--list %s: %w", list, err)
		}
		listed = items
	}
	named, err := batch.Items(args)
	if err != nil {
		return nil, err
	}
	return batch.Unique(append(listed, named...))
}

// batchShard is --shard, else the shard of a Kubernetes Indexed Job pod, else the
// whole list.
func batchShard(flag string) (batch.Shard, error) {
	if flag != "" {
		return batch.ParseShard(flag)
	}
	s, _, err := batch.ShardFromEnv(os.Getenv)
	return s, err
}

// progressLine is the line printed when a package finishes.
func progressLine(p batch.Progress) string {
	r := p.Record
	what := string(r.Status)
	if r.FailureClass != atesor.FailureNone {
		what += " (" + string(r.FailureClass) + ")"
	}
	if r.CacheHit {
		what += " from the recipe cache"
	}
	return fmt.Sprintf("[%d/%d] %s: %s in %s · succeeded %d, failed %d, cache hits %d · elapsed %s",
		p.Done, p.Total, escape.Line(r.Name), escape.Line(what), r.Seconds.Duration().Round(time.Second),
		p.Succeeded, p.Failed, p.CacheHits, p.Elapsed.Round(time.Second))
}

// printBatchSummary prints the counts and where the summary files are.
func printBatchSummary(w io.Writer, s *batch.Summary, dir string) {
	fmt.Fprintf(w, "batch: %d package(s): %d succeeded, %d failed, %d not run, %d cache hit(s), cost $%.4f\n",
		s.Total, s.Succeeded, s.Failed, len(s.Pending), s.CacheHits, s.CostUSD)
	for _, class := range []string{"build", "verify", "tests", "dependency", "setup", "infra", "budget", "escalated", "unknown"} {
		if n := s.ByClass[class]; n > 0 {
			fmt.Fprintf(w, "  failure class %-11s %d\n", class+":", n)
		}
	}
	fmt.Fprintf(w, "  summary:   %s\n  dashboard: %s\n", filepath.Join(dir, batch.SummaryMD), filepath.Join(dir, batch.DashboardHTML))
}

func batchError(a *app, format string, args ...any) int {
	fmt.Fprintf(a.stderr, "atesor batch: %s\n", escape.Text(fmt.Sprintf(format, args...)))
	return exitUsage
}
