package graph

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// SandboxOpener opens a sandbox for a platform. The graph opens the sandbox only after a
// recipe-cache miss, so a cache hit never provisions anything, and it closes what it
// opened when the run ends.
type SandboxOpener func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error)

// Config holds what a pipeline needs. Provider and Memory may be nil: a nil Provider is
// offline mode (every LLM node uses its scripted fallback and no model is called), a nil
// Memory means no few-shot examples, no learning and no recipe cache.
type Config struct {
	// Provider makes the chat models; nil means offline.
	Provider atesor.Provider
	// Sandbox is used for every run when set; OpenSandbox is called otherwise.
	Sandbox     atesor.Sandbox
	OpenSandbox SandboxOpener
	// Memory holds few-shot examples and the recipe cache.
	Memory atesor.MemoryStore
	// OutputDir receives <repo>_recipe.md, <repo>_report.json and the other outputs.
	// Request.OutputDir overrides it; a run with neither is refused (a library writes
	// nowhere it was not told to, the working directory included).
	OutputDir string
	// Home is the state home, the directory the pipeline keeps what outlives a run in:
	// the saved state of each run for resume under <Home>/runs, downloaded source
	// tarballs under <Home>/downloads. The CLI sets it to its state home (ATESOR_HOME
	// or ~/.local/share/atesor). Empty: run states are kept under the run's output
	// directory, in <output>/.atesor/runs, downloads in a directory under the system's
	// temporary directory, never under $HOME.
	Home string
	// RunsDir holds the saved state of each run for resume; it overrides Home's runs
	// directory (default <Home>/runs, see Home).
	RunsDir string
	// Logger receives the run's structured log, the same records the run writes to
	// agent_<repo>.log in the output directory (default: only that file). The levels
	// are described under "Logging" in the package documentation; filter with the
	// handler's level.
	Logger *slog.Logger
	// ArtifactMaxBytes bounds each file a run copies out of the sandbox (an artifact, a
	// file of the install tree), by its logical size: a sparse file counts in full.
	// Zero means 1 GiB, a negative value no bound. The CLI sets it from
	// ATESOR_COPY_MAX_FILE_BYTES.
	ArtifactMaxBytes int64
	// CopyOutMaxBytes bounds all the bytes one run copies out of the sandbox (artifacts
	// and install tree together). Zero means 4 GiB, a negative value no bound. The CLI
	// sets it from ATESOR_COPY_MAX_BYTES.
	CopyOutMaxBytes int64
	// DebianMirror is the base URL of the Debian archive (the directory holding dists/
	// and pool/) that the Contents index of the repairs and the distribution comparison
	// read; empty means the first main archive of the host's apt configuration. The CLI
	// sets it from ATESOR_DEBIAN_MIRROR.
	DebianMirror string
	// ExtractMaxBytes and ExtractMaxEntries bound what unpacking a source tarball may
	// write: bytes (a hard link counts its bytes again) and entries. Zero means 16 GiB
	// and one million entries, a negative value no bound. The CLI sets them from
	// ATESOR_EXTRACT_MAX_BYTES and ATESOR_EXTRACT_MAX_ENTRIES (and gives the sandbox's
	// copy-in the same bounds).
	ExtractMaxBytes   int64
	ExtractMaxEntries int
	// DownloadMaxBytes bounds a downloaded source tarball (zero: 4 GiB) and
	// DownloadStall how long its download may receive nothing (zero: one minute). The
	// CLI sets them from ATESOR_DOWNLOAD_MAX_BYTES and ATESOR_DOWNLOAD_STALL_TIMEOUT.
	DownloadMaxBytes int64
	DownloadStall    time.Duration
	// Crates says where a cargo port's dependencies come from (the CLI's --crates,
	// ATESOR_CRATES): atesor.CratesDistribution (the default when empty) installs the
	// distribution's packaged crates and runs cargo offline against them, ending the
	// port with failure class dependency when one is not packaged;
	// atesor.CratesRegistry lets cargo fetch from its registry with the sandbox's
	// network; atesor.CratesAuto tries one cargo fetch (bounded to a minute) and uses
	// the distribution's crates when it fails.
	Crates atesor.CratesMode
}

// check reports what the Config lacks for any run.
func (c Config) check() []error {
	if c.Sandbox == nil && c.OpenSandbox == nil {
		return []error{errors.New("the Config needs a Sandbox or an OpenSandbox function")}
	}
	return nil
}

// cacheDir is the directory of one cache of the pipeline (the Contents index, the
// distribution's packages, the instruction counter): <Home>/cache/name, or without a
// Home a directory under the system's temporary directory (never under $HOME).
func (c Config) cacheDir(name string) string {
	if c.Home != "" {
		return filepath.Join(c.Home, "cache", name)
	}
	return filepath.Join(os.TempDir(), "atesor-cache", name)
}

// runsDir is where run states are saved for resume, for a run writing to outDir (see
// Config.Home).
func (c Config) runsDir(outDir string) string {
	switch {
	case c.RunsDir != "":
		return c.RunsDir
	case c.Home != "":
		return filepath.Join(c.Home, "runs")
	default:
		return filepath.Join(outDir, ".atesor", "runs")
	}
}

// copyLimits are the copy-out bounds of a run, from the Config; errors name the
// variables that raise them.
func (c Config) copyLimits() sandbox.CopyLimits {
	l := sandbox.DefaultCopyLimits()
	l.FileSetting = sandbox.EnvCopyMaxFileBytes + " (graph.Config.ArtifactMaxBytes)"
	l.TotalSetting = sandbox.EnvCopyMaxBytes + " (graph.Config.CopyOutMaxBytes)"
	if c.ArtifactMaxBytes != 0 {
		l.MaxFileBytes = c.ArtifactMaxBytes
	}
	if c.CopyOutMaxBytes != 0 {
		l.MaxTotalBytes = c.CopyOutMaxBytes
	}
	return l
}

// Option changes how a pipeline runs.
type Option func(*options)

type options struct {
	events     func(atesor.Event)
	replaced   map[string]atesor.Node
	clock      atesor.Clock
	now        func() time.Time
	validators map[reflect.Type][]any
	// answerTypes are the answer types replacement nodes ask for (WithAnswerType).
	answerTypes map[reflect.Type]bool
	// errs are the options' own errors, reported by New.
	errs     []error
	repair   repairOptions
	optimize func(*optimize.Optimizer) // WithOptimizer
	// goToolchains fetches Go releases newer than the suite's (WithGoToolchains).
	goToolchains gotool.Fetcher
	// crateIndex loads the distribution's crate index (WithCrateIndex).
	crateIndex CrateIndexLoader
}

// WithEvents sets the progress callback.
func WithEvents(fn func(atesor.Event)) Option {
	return func(o *options) { o.events = fn }
}

// WithNode replaces the node registered under name (one of [Nodes]: init, analyst,
// task_plan, heuristic_plan, scout, build, verify, fix, finish, escalate, optimize) with
// an embedder's node. The supervisor's routing stays, and it routes by name: the
// replacement runs where the built-in node ran, its events, timings, state (LastNode)
// and audit entries carry name, whatever its Name method returns. The replacement gets
// the run's services ([atesor.Run]) and reads and writes the same state: the parts the
// built-in node owns, with their invariants (see [atesor.State]). New refuses a name
// that is not a replaceable node (the supervisor is the routing itself and is not one)
// and a nil node.
func WithNode(name string, n atesor.Node) Option {
	return func(o *options) {
		if o.replaced == nil {
			o.replaced = map[string]atesor.Node{}
		}
		o.replaced[name] = n
	}
}

// WithClock sets the clock of the pipeline: run timestamps, node timings and
// [atesor.Event.Elapsed], the report's durations, the wall timeouts of model calls and the
// waits a Retry-After asks for. Tests pass an [llm.ManualClock], so a run that waits
// for a rate limit takes no real time. Commands in the sandbox keep real time (their
// own timeouts are the sandbox's). Default: [atesor.RealClock]. A memory store takes
// the same clock with memory.WithClock.
func WithClock(c atesor.Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clock, o.now = c, c.Now
		}
	}
}

// WithOptimizer lets the embedder adjust performance mode's optimizer before each run
// (runs per variant, candidates, the run time limit); see [optimize.Optimizer].
func WithOptimizer(fn func(*optimize.Optimizer)) Option {
	return func(o *options) { o.optimize = fn }
}
