package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/source"
	"github.com/eclipse-atesor/atesor-go/validate"
)

func (s *Server) addTools() {
	mcp.AddTool(s.srv, &mcp.Tool{Name: "port", Title: "Port a package to riscv64",
		Description: "Build a package natively in a fresh riscv64 sandbox, repair what breaks, verify that the artifacts " +
			"are riscv64 ELF files built from its sources, run its tests and write the recipe and report. Long: " +
			"progress is notified per pipeline node when the call carries a progress token, and cancelling the call " +
			"ends the run and its sandbox (the state is kept). A second port of the same package while one runs is refused."},
		s.port)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "replay", Title: "Replay a porting recipe",
		Description: "Run a recipe's commands in a fresh sandbox from the same source and compare the SHA-256 of every " +
			"primary artifact with the port's: reproduced, differs (with the files) or failed (with the command)."},
		s.replay)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "sandbox_run", Title: "Run one command in a riscv64 sandbox",
		Description: "Run one command in a fresh riscv64 sandbox (optionally with a package source or a kept run) and return " +
			"its exit code and bounded output. The command must be one simple command of a build, package or inspection " +
			"tool that passes the rules a model's fix command passes (no chaining, pipes, redirections, shells, wrappers " +
			"or downloads of code); it has no network unless asked for and allowed by the server."},
		s.sandboxRun)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "report", Title: "The last report of a package",
		Description: "The outcome of the last port of a package into the server's output directory: verdict, failure class, " +
			"extracted error, artifacts with ELF facts, tests, and the recipe and report paths."},
		s.report)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "recipe", Title: "The cached recipe of a package",
		Description: "The recipe-cache entry of a package: verdict, source, build commands, artifacts and the recipe as Markdown."},
		s.recipe)
	mcp.AddTool(s.srv, &mcp.Tool{Name: "doctor", Title: "Is this host ready to port?",
		Description: "Check the host tools of the sandbox, qemu-riscv64 in binfmt_misc, isolation, the cached sandboxes, the " +
			"toolchain and the model provider (keys are never shown). Changes nothing; lists the commands that fix problems."},
		s.doctor)
}

// progress sends numbered progress notifications for one call, when the call asked
// for them with a progress token.
type progress struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	token any
	n     atomic.Int64
	s     *Server
}

func newProgress(ctx context.Context, s *Server, req *mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx, req: req, s: s}
	if req != nil && req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

// event turns the pipeline's node events into notifications: one when a node starts,
// one when it fails.
func (p *progress) event(e atesor.Event) {
	if p.token == nil || p.req.Session == nil {
		return
	}
	var msg string
	switch {
	case e.Kind == atesor.EventNodeStarted:
		msg = e.Node
	case e.Kind == atesor.EventNodeFinished && e.Err != "":
		msg = e.Node + " failed: " + excerpt.FirstLine(e.Err)
	default:
		return
	}
	n := p.n.Add(1)
	err := p.req.Session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token,
		Progress: float64(n), Message: fmt.Sprintf("[%s] %s", e.Elapsed.Round(time.Second), msg)})
	if err != nil && p.ctx.Err() == nil {
		p.s.opts.Logger.Debug("progress notification", "err", err)
	}
}

func (s *Server) port(ctx context.Context, req *mcp.CallToolRequest, in PortInput) (*mcp.CallToolResult, *Outcome, error) {
	src, err := s.paths.source(in.Source, "source")
	if err != nil {
		return nil, nil, err
	}
	p := newProgress(ctx, s, req)
	res, err := s.opts.Ops.Port(ctx, PortRequest{Source: src, Name: in.Name, Platform: in.Platform, Offline: in.Offline,
		Optimize: in.Optimize, Force: in.Force, Resume: in.Resume, MaxAttempts: in.MaxAttempts, MaxCostUSD: in.MaxCostUSD, OutDir: s.opts.OutDir}, p.event)
	if err != nil {
		return nil, nil, err
	}
	rep, err := graph.ReadReport(res.Files[atesor.FileReport])
	if err != nil {
		return nil, nil, fmt.Errorf("the port ended (%s) but its report cannot be read: %w", res.Status, err)
	}
	var last *atesor.ErrorRecord
	if res.State != nil {
		last = res.State.LastError
	}
	out := outcomeOf(rep, last)
	return nil, &out, nil
}

func (s *Server) report(ctx context.Context, _ *mcp.CallToolRequest, in PackageInput) (*mcp.CallToolResult, *Outcome, error) {
	name, err := packageName(in.Package)
	if err != nil {
		return nil, nil, err
	}
	file := filepath.Join(s.opts.OutDir, name+"_report.json")
	rep, err := graph.ReadReport(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("no report of %s in %s: port it first", name, s.opts.OutDir)
	}
	if err != nil {
		return nil, nil, err
	}
	out := outcomeOf(rep, lastError(filepath.Join(s.opts.OutDir, name+"_state.json")))
	return nil, &out, nil
}

// lastError reads the last error of a saved run state, nil when there is none.
func lastError(stateFile string) *atesor.ErrorRecord {
	b, err := os.ReadFile(stateFile)
	if err != nil {
		return nil
	}
	var st struct {
		LastError *atesor.ErrorRecord `json:"last_error"`
	}
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	return st.LastError
}

// packageName checks a package name: a name port could have given, so it names a
// file in the output directory and nothing else.
func packageName(n string) (string, error) {
	if n == "" || source.SanitizeName(n) != n {
		return "", fmt.Errorf("package %q: give the package name as port named it (letters, digits, '.', '_', '+', '-')", n)
	}
	return n, nil
}

func (s *Server) recipe(ctx context.Context, _ *mcp.CallToolRequest, in PackageInput) (*mcp.CallToolResult, *RecipeOutput, error) {
	name, err := packageName(in.Package)
	if err != nil {
		return nil, nil, err
	}
	r, err := s.opts.Ops.Recipe(ctx, in.Platform, name)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, fmt.Errorf("no cached recipe for %s: port it first", name)
	}
	out := recipeOf(r)
	if f := filepath.Join(s.opts.OutDir, name+"_recipe.md"); fileExists(f) {
		out.File = f
	}
	return nil, &out, nil
}

func (s *Server) doctor(ctx context.Context, _ *mcp.CallToolRequest, in DoctorInput) (*mcp.CallToolResult, *DoctorOutput, error) {
	out, err := s.opts.Ops.Doctor(ctx, in.Platform)
	if err != nil {
		return nil, nil, err
	}
	return nil, out, nil
}

func (s *Server) replay(ctx context.Context, req *mcp.CallToolRequest, in ReplayInput) (*mcp.CallToolResult, *ReplayOutput, error) {
	target := strings.TrimSpace(in.Recipe)
	var err error
	if strings.HasSuffix(target, ".md") || strings.ContainsRune(target, filepath.Separator) {
		if target, err = s.paths.path(target, "recipe"); err != nil {
			return nil, nil, err
		}
	} else if _, err := packageName(target); err != nil {
		return nil, nil, err
	}
	src := ""
	if in.Source != "" {
		if src, err = s.paths.source(in.Source, "source"); err != nil {
			return nil, nil, err
		}
	} else if !strings.HasSuffix(target, ".md") && !strings.ContainsRune(target, filepath.Separator) {
		// A cached recipe names the source it was ported from, which may be any host
		// path: it is held to the roots like a path the caller names.
		if src, err = s.cachedSource(ctx, in.Platform, target); err != nil {
			return nil, nil, err
		}
	}
	p := newProgress(ctx, s, req)
	res, err := s.opts.Ops.Replay(ctx, ReplayRequest{Target: target, Source: src, Platform: in.Platform, OutDir: s.opts.OutDir}, p.event)
	if err != nil {
		return nil, nil, err
	}
	out := ReplayOutput{Package: res.Package, Sandbox: res.Sandbox, Verdict: res.Verdict, Compared: res.Compared,
		Failure: res.Failure, Commands: nonNil(res.Commands), Seconds: res.Duration.Seconds(),
		OutDir: filepath.Join(s.opts.OutDir, res.Package+"_replay")}
	for _, d := range res.Differs {
		out.Differs = append(out.Differs, FileDiff{Path: d.Path, Want: d.Want, Got: d.Got})
	}
	return nil, &out, nil
}

// cachedSource is the checked source of a package's cached recipe ("" when there is
// no entry: the replay then says so).
func (s *Server) cachedSource(ctx context.Context, platform, pkg string) (string, error) {
	r, err := s.opts.Ops.Recipe(ctx, platform, pkg)
	if err != nil || r == nil {
		return "", err
	}
	src, err := s.paths.source(r.Source, "the cached recipe's source")
	if err != nil {
		return "", fmt.Errorf("%w; give the package's source with source", err)
	}
	return src, nil
}

func (s *Server) sandboxRun(ctx context.Context, _ *mcp.CallToolRequest, in SandboxRunInput) (*mcp.CallToolResult, *SandboxRunOutput, error) {
	line := strings.TrimSpace(in.Command)
	// A model is calling: the command passes the rules of a model's fix command, the
	// strictest that still lets it build and inspect a package.
	if err := validate.FixCommand(line); err != nil {
		return nil, nil, fmt.Errorf("command refused: %w", err)
	}
	timeout := s.opts.DefaultTimeout
	switch {
	case in.Timeout < 0:
		return nil, nil, errors.New("timeout_seconds must be positive")
	case time.Duration(in.Timeout)*time.Second > s.opts.MaxTimeout:
		return nil, nil, fmt.Errorf("timeout_seconds %d is above this server's bound of %d", in.Timeout, int(s.opts.MaxTimeout/time.Second))
	case in.Timeout > 0:
		timeout = time.Duration(in.Timeout) * time.Second
	}
	if in.Network && !s.opts.AllowNetwork {
		return nil, nil, errors.New("network refused: this server gives sandbox_run commands no network; start atesor mcp with --allow-network to allow it")
	}
	if in.Source != "" && in.KeptRun != "" {
		return nil, nil, errors.New("source and kept_run do not go together (a kept run already holds its package)")
	}
	req := SandboxRequest{Platform: in.Platform, Name: in.Name, Line: line, Timeout: timeout, Network: in.Network}
	var err error
	if in.Source != "" {
		if req.Source, err = s.paths.source(in.Source, "source"); err != nil {
			return nil, nil, err
		}
	}
	if in.KeptRun != "" {
		if req.Kept, err = s.paths.path(in.KeptRun, "kept_run"); err != nil {
			return nil, nil, err
		}
	}
	if in.Name != "" {
		if _, err := packageName(in.Name); err != nil {
			return nil, nil, err
		}
	}
	res, err := s.opts.Ops.SandboxRun(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	output, cut := bound(res.Output, s.opts.MaxOutput)
	return nil, &SandboxRunOutput{Command: line, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Signal: res.Signal,
		Output: output, Cut: cut, Seconds: res.Duration.Seconds()}, nil
}

// bound keeps the head and the tail of an output longer than max bytes, with a line
// between them that says how much was left out; the cuts fall on UTF-8 boundaries.
func bound(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	head, tail := max/4, max-max/4
	for head > 0 && !utf8Start(s[head]) {
		head--
	}
	t := len(s) - tail
	for t < len(s) && !utf8Start(s[t]) {
		t++
	}
	return s[:head] + fmt.Sprintf("\n[... %d bytes left out ...]\n", t-head) + s[t:], true
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
