// Package mcpserver is `atesor mcp`: a Model Context Protocol server that gives coding
// agents Atesor's tools (port, replay, sandbox_run, report, recipe, doctor) with
// structured results.
//
// The server holds the protocol side and the guard rails: the tools' schemas, which
// paths a caller may name (those below the directories the server was started with,
// symbolic links that leave them refused), which command sandbox_run may run (the
// rules a model's fix command passes), bounds on time and output, the network switch,
// and progress notifications. What the tools do, it leaves to [Operations], which the
// command line implements with the same functions its own commands run, so a port
// through the server is the port `atesor port` makes. The host backend is never
// reachable: no input chooses a sandbox backend.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/replay"
)

// Operations runs what the tools ask for. Every path it is given has passed the
// server's checks (below a root, no link out of it); every command line has passed
// the command rules.
type Operations interface {
	// Port runs one port, sending the pipeline's events to events. A second port of
	// the same package into the same directory while one runs is refused with an error
	// that says so.
	Port(ctx context.Context, req PortRequest, events func(atesor.Event)) (*atesor.Result, error)
	// Replay replays a recipe file or a recipe-cache entry in a fresh sandbox.
	Replay(ctx context.Context, req ReplayRequest, events func(atesor.Event)) (*replay.Result, error)
	// SandboxRun runs one command in a fresh sandbox, which is removed afterwards.
	SandboxRun(ctx context.Context, req SandboxRequest) (atesor.CommandResult, error)
	// Recipe is the recipe-cache entry of a package (nil, nil when there is none).
	Recipe(ctx context.Context, platform, pkg string) (*atesor.CachedRecipe, error)
	// Doctor checks the host's readiness; it changes nothing.
	Doctor(ctx context.Context, platform string) (*DoctorOutput, error)
}

// PortRequest is a checked port: Source is a confined absolute path or a remote
// source; zero values mean the command line's defaults.
type PortRequest struct {
	Source, Name, Platform string
	Offline, Optimize      bool
	Force, Resume          bool
	MaxAttempts            int
	MaxCostUSD             float64
	// OutDir is the server's output directory.
	OutDir string
}

// ReplayRequest is a checked replay: Target is a confined recipe file or a package
// name; Source, when set, a confined path or a remote source.
type ReplayRequest struct {
	Target, Source, Platform string
	// OutDir is where the replay's directory (<package>_replay) is made.
	OutDir string
}

// SandboxRequest is a checked sandbox command.
type SandboxRequest struct {
	Platform string
	// Source (a confined path or a remote source) is put at /workspace/<name>; Kept is
	// a confined kept run to start from. At most one is set.
	Source, Kept, Name string
	Line               string
	Timeout            time.Duration
	Network            bool
}

// Options configure a server.
type Options struct {
	// Roots are the directories whose files a caller may name (sources, recipe
	// files, kept runs); relative paths are taken from the first. At least one.
	Roots []string
	// OutDir receives every output (reports, recipes, replays); callers may read
	// below it too.
	OutDir string
	// KeptRuns, when set, is the directory of kept sandbox runs
	// (<home>/sandboxes/runs), which sandbox_run may start from.
	KeptRuns string
	// AllowNetwork lets sandbox_run give its command network access when asked.
	AllowNetwork bool
	// MaxTimeout bounds sandbox_run's timeout (default 30 minutes); DefaultTimeout is
	// its timeout when the caller gives none (default 10 minutes).
	MaxTimeout, DefaultTimeout time.Duration
	// MaxOutput bounds the output sandbox_run returns, in bytes (default 64 KiB): the
	// head and the tail are kept.
	MaxOutput int
	// Version is the server's version in the initialize handshake.
	Version string
	// Logger receives the server's own log (default: slog's default logger).
	Logger *slog.Logger
	Ops    Operations
}

// Defaults of [Options].
const (
	DefaultMaxTimeout     = 30 * time.Minute
	DefaultCommandTimeout = 10 * time.Minute
	DefaultMaxOutput      = 64 << 10
)

// Server is an MCP server with Atesor's tools.
type Server struct {
	opts  Options
	paths *confiner
	srv   *mcp.Server
}

// New checks the options and makes the server with its six tools.
func New(opts Options) (*Server, error) {
	if opts.Ops == nil {
		return nil, errors.New("mcpserver: no operations")
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = DefaultMaxTimeout
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = min(DefaultCommandTimeout, opts.MaxTimeout)
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.OutDir == "" {
		return nil, errors.New("mcpserver: no output directory")
	}
	out, err := filepath.Abs(opts.OutDir)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	opts.OutDir = out
	c, err := newConfiner(opts.Roots, opts.OutDir, opts.KeptRuns)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, paths: c}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "atesor", Title: "Atesor: port packages to RISC-V", Version: opts.Version},
		&mcp.ServerOptions{Logger: opts.Logger, Instructions: instructions})
	s.addTools()
	return s, nil
}

// instructions tell the calling agent what the server is for.
const instructions = "Atesor ports open-source packages (C, C++, Go, Rust) to riscv64: it builds them natively " +
	"in an isolated riscv64 sandbox, repairs what breaks, verifies that the artifacts are riscv64 ELF files " +
	"built from the package's sources, runs the package's tests and writes a replayable recipe. Use port to " +
	"answer \"does this build and run on riscv64, and if not, why?\"; report and recipe read a finished port; " +
	"replay reproduces one; sandbox_run runs one build or inspection command in a fresh sandbox; doctor says " +
	"whether this host is ready."

// MCP returns the SDK server, to connect transports to.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one client over the transport until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.srv.Run(ctx, t) }
