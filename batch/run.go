package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

// PortFunc ports one package; it is graph.Pipeline.Run or a wrapper of it. It returns
// an error only when the port could not run (or was interrupted); a finished port that
// failed is a Result.
type PortFunc func(ctx context.Context, req atesor.Request) (*atesor.Result, error)

// Resolver turns a debian:NAME[=VERSION] source into a checked local tarball;
// *debsrc.Resolver is one.
type Resolver interface {
	Resolve(ctx context.Context, spec string) (*debsrc.Resolved, error)
}

var _ Resolver = (*debsrc.Resolver)(nil)

// Config configures a batch run.
type Config struct {
	// Port runs one port (required).
	Port PortFunc
	// OutDir receives the outputs (required).
	OutDir string
	// Request is the template of every port's request: platform, limits, Force (which
	// skips the recipe cache). Source, Name, OutputDir and Origin are set per package.
	Request atesor.Request
	// Resolver resolves debian:NAME sources; without it such a source fails with a
	// setup error.
	Resolver Resolver
	// Jobs bounds the ports that run at once (default 1: one port already uses every
	// core of a machine).
	Jobs int
	// Rerun ports again the packages that results.jsonl lists as finished.
	Rerun bool
	// Shard is recorded in the records and the summary.
	Shard Shard
	// Progress, when set, is called after each package finishes (from one goroutine at
	// a time).
	Progress func(Progress)
	// Learned, when set, copies what the ports learned (few-shot examples and recipe
	// cache) into a directory; Run calls it with OUT/learned at the end.
	Learned func(ctx context.Context, dir string) error
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Progress is reported after each package.
type Progress struct {
	// Done counts the packages finished in this run, Total those it runs (the listed
	// ones less the ones skipped as finished before).
	Done, Total int
	// Skipped are the packages finished in an earlier run.
	Skipped int
	Record  Record
	// Succeeded, Failed and CacheHits count this run's finished packages.
	Succeeded, Failed, CacheHits int
	// Elapsed is the batch's wall time so far.
	Elapsed time.Duration
}

// ErrStopped is returned (wrapped) by Run when its context ended before every package
// finished; the summary is saved with the unfinished packages pending, and running the
// batch again ports only those (finished packages are skipped). It is the batch's own
// error: a single port's run that was cancelled reports graph.ErrStopped, which a
// batch does not wrap.
var ErrStopped = errors.New("batch: interrupted")

// Run ports items into cfg.OutDir and returns the summary, which it also writes (after
// every package, so a killed batch leaves a summary of what finished). Packages that
// results.jsonl lists are skipped unless cfg.Rerun. When ctx ends, running ports are
// stopped, nothing more starts, the summary is written with the unfinished packages
// pending, and the error wraps ErrStopped.
func Run(ctx context.Context, cfg Config, items []Item) (*Summary, error) {
	if cfg.Port == nil || cfg.OutDir == "" {
		return nil, errors.New("batch: Config needs Port and OutDir")
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	records, err := ReadResults(cfg.OutDir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(items))
	var todo []Item
	for i, it := range items {
		names[i] = it.Name
		if _, done := records[it.Name]; !done || cfg.Rerun {
			todo = append(todo, it)
		}
	}
	results, err := os.OpenFile(filepath.Join(cfg.OutDir, ResultsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	defer results.Close()

	var mu sync.Mutex // guards records, results, prog and the summary files
	prog := Progress{Total: len(todo), Skipped: len(items) - len(todo)}
	var writeErr error
	summary := func(interrupted bool) *Summary {
		s := Summarize(names, records)
		if sh := cfg.Shard.String(); sh != "" {
			s.Shards = []string{sh}
		}
		s.ElapsedSeconds = toMillis(now().Sub(start))
		s.Interrupted = interrupted && len(s.Pending) > 0
		return s
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(cfg.Jobs, 1))
	for _, it := range todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil // started after an interrupt: stays pending
			}
			rec, ok := portOne(gctx, cfg, it, now)
			if !ok {
				return nil // interrupted: the package stays pending
			}
			line, err := json.Marshal(rec)
			if err != nil {
				return fmt.Errorf("batch: %w", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if _, err := results.Write(append(line, '\n')); err != nil {
				writeErr = fmt.Errorf("batch: append to %s: %w", ResultsFile, err)
				return writeErr
			}
			records[rec.Name] = rec
			prog.Done++
			prog.Record = rec
			switch {
			case rec.Status.Succeeded():
				prog.Succeeded++
			default:
				prog.Failed++
			}
			if rec.CacheHit {
				prog.CacheHits++
			}
			prog.Elapsed = now().Sub(start)
			if err := WriteSummaries(cfg.OutDir, summary(false)); err != nil {
				writeErr = err
				return err
			}
			if cfg.Progress != nil {
				cfg.Progress(prog)
			}
			return nil
		})
	}
	gerr := g.Wait()
	interrupted := ctx.Err() != nil
	if cfg.Learned != nil {
		// Even an interrupted batch keeps what it learned; a fresh context, since ctx may
		// have ended.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		if err := cfg.Learned(lctx, filepath.Join(cfg.OutDir, LearnedDir)); err != nil && gerr == nil {
			gerr = fmt.Errorf("batch: keep what the ports learned: %w", err)
		}
		cancel()
	}
	mu.Lock()
	s := summary(interrupted)
	mu.Unlock()
	if err := WriteSummaries(cfg.OutDir, s); err != nil && gerr == nil {
		gerr = err
	}
	if interrupted {
		return s, fmt.Errorf("%w: %d of %d packages not run", ErrStopped, len(s.Pending), s.Total)
	}
	return s, gerr
}

// portOne runs one package and makes its record; ok is false when ctx ended first.
func portOne(ctx context.Context, cfg Config, it Item, now func() time.Time) (Record, bool) {
	started := now()
	dir := it.Name
	rec := Record{Name: it.Name, Source: it.Source, Shard: cfg.Shard.String(), StartedAt: started.UTC(), Dir: dir, Expected: it.Expected}
	req := cfg.Request
	req.Source, req.Name, req.OutputDir = it.Source, it.Name, filepath.Join(cfg.OutDir, dir)
	fail := func(err error) (Record, bool) {
		if ctx.Err() != nil {
			return Record{}, false
		}
		rec.Status, rec.FailureClass, rec.Error = atesor.StatusFailed, atesor.FailureSetup, err.Error()
		rec.FinishedAt = now().UTC()
		rec.Seconds = toMillis(rec.FinishedAt.Sub(started))
		return rec, true
	}
	if err := os.MkdirAll(req.OutputDir, 0o755); err != nil {
		return fail(err)
	}
	if debsrc.IsSpec(it.Source) {
		if cfg.Resolver == nil {
			return fail(errors.New("no Debian resolver configured for " + it.Source))
		}
		res, err := cfg.Resolver.Resolve(ctx, it.Source)
		if err != nil {
			return fail(err)
		}
		o := res.Origin
		req.Source, req.Origin, rec.Origin = res.Tarball, &o, &o
	}
	res, err := cfg.Port(ctx, req)
	if err != nil {
		return fail(err)
	}
	if ctx.Err() != nil && !res.Status.Final() {
		return Record{}, false
	}
	rec.Status, rec.Verified, rec.FailureClass, rec.Reason = res.Status, res.Verified, res.FailureClass, res.Reason
	rec.CacheHit = res.Status == atesor.StatusCached
	rec.Attempts, rec.ModelCalls, rec.CostUSD = res.Attempts, res.Usage.Calls, round(res.Usage.CostUSD, 6)
	if !res.Status.Succeeded() && res.State != nil && res.State.LastError != nil {
		rec.FirstError = cut(excerpt.FirstLine(res.State.LastError.Message), maxGroupLine)
	}
	if p := res.Files[atesor.FileBuildLog]; p != "" {
		if rel, err := filepath.Rel(cfg.OutDir, p); err == nil && filepath.IsLocal(rel) {
			rec.BuildLog = filepath.ToSlash(rel)
		}
	}
	for _, a := range res.Artifacts {
		rec.Artifacts = append(rec.Artifacts, a.Path)
	}
	if rec.ExpectedChecked() {
		rec.MissingExpected = MissingExpected(rec.Expected, rec.Artifacts)
	}
	rec.FinishedAt = now().UTC()
	rec.Seconds = toMillis(rec.FinishedAt.Sub(started))
	return rec, true
}
