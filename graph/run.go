package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cloudwego/eino/compose"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/eventline"
	"github.com/eclipse-atesor/atesor-go/internal/logfile"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/source"
)

// run is one execution of the pipeline for one package: the state and everything the
// nodes need. Nodes run one at a time, under the graph's state lock.
type run struct {
	p        *Pipeline
	state    *atesor.State
	src      *source.Source
	sb       atesor.Sandbox
	ownsSB   bool
	provider atesor.Provider
	memory   atesor.MemoryStore
	audit    *llm.AuditLog
	log      *slog.Logger
	logFile  *os.File
	sv       supervisor
	start    time.Time
	runDir   string
	resumeTo string
	// hostTree is the package's tree on the host, for scripted detection and excerpts.
	hostTree string
	// restore is set on resume: the first node that uses the package restores it in the
	// fresh sandbox first.
	restore bool
	// current is the node running now, as events and the audit log name it.
	current string
	// lastOutput is the full output of the last failed build command, for the scripted
	// repairs (not saved: after a resume they read the error record's message).
	lastOutput string
	// goToolchainIn is true once the Go toolchain of the run is decided and, when it
	// was fetched, in this sandbox (see ensureGoToolchain).
	goToolchainIn bool
	// copyBudget bounds what the run copies out of the sandbox, all copies together.
	copyBudget *sandbox.CopyBudget
	// validatorPanic is the panic of an embedder's validator during the current node
	// (see recordValidatorPanic); the node then ends with it as its error.
	panicMu        sync.Mutex
	validatorPanic error
}

func (p *Pipeline) newRun(ctx context.Context, req atesor.Request, name string, platform atesor.Platform, src *source.Source) (*run, error) {
	r := &run{p: p, src: src, provider: p.cfg.Provider, memory: p.cfg.Memory, start: p.opts.now(),
		sv: supervisor{offline: p.cfg.Provider == nil}, copyBudget: sandbox.NewCopyBudget(p.cfg.copyLimits())}
	if err := clearRunOutputs(req.OutputDir, name); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	id := name + "-" + platform.SandboxKey()
	r.runDir = filepath.Join(p.cfg.runsDir(req.OutputDir), id)
	if req.Resume {
		st, err := loadState(filepath.Join(r.runDir, "state.json"))
		if err != nil {
			return nil, fmt.Errorf("graph: resume %s: %w", name, err)
		}
		if (st.Status.Succeeded() || st.LastNode == NodeFinish || st.LastNode == NodeEscalate) && !optimizePending(st) {
			return nil, fmt.Errorf("graph: resume %s: the saved run already finished (%s); run it again without resume", name, st.Status)
		}
		st.Request.Resume, st.Request.OutputDir = true, req.OutputDir
		r.state = st
		r.restore = true
		r.resumeTo = st.NextNode
		if r.resumeTo == "" {
			r.resumeTo = r.sv.next(st)
		}
	} else {
		r.state = &atesor.State{
			RunPart:    atesor.RunPart{Version: atesor.StateVersion, RunID: id, Request: req, RepoName: name, Platform: platform, RepoDir: "/workspace/" + name},
			RoutePart:  atesor.RoutePart{Status: atesor.StatusRunning},
			SourcePart: atesor.SourcePart{SourceSHA256: src.SHA256, SourceDateEpoch: src.Epoch},
			TimingPart: atesor.TimingPart{StartedAt: r.start.UTC()},
		}
		if p.cfg.Provider != nil {
			r.state.ProviderName = p.cfg.Provider.Name()
		}
	}
	if err := os.MkdirAll(r.runDir, 0o755); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	out := req.OutputDir
	var err error
	if r.logFile, err = logfile.OpenAppend(filepath.Join(out, "agent_"+name+".log")); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	r.log = slog.New(fanout{
		slog.NewTextHandler(r.logFile, &slog.HandlerOptions{Level: slog.LevelDebug}),
		p.cfg.Logger.Handler(),
	}).With("repo", name)
	if r.audit, err = llm.OpenAuditLog(out, name); err != nil {
		r.logFile.Close()
		return nil, fmt.Errorf("graph: %w", err)
	}
	r.hostTree = src.Dir
	defer func() {
		if r.sb != nil {
			r.sb = timed(r.sb, &r.state.SandboxTime, &r.state.StartRetries)
		}
	}()
	if r.sb = p.cfg.Sandbox; r.sb == nil {
		r.emit(atesor.Event{Kind: atesor.EventInfo, Line: "opening the " + platform.SandboxKey() + " sandbox"})
		if r.sb, err = p.cfg.OpenSandbox(ctx, platform); err != nil {
			r.close()
			return nil, fmt.Errorf("graph: open sandbox: %w", err)
		}
		r.ownsSB = true
	}
	return r, nil
}

func (r *run) close() {
	if r.ownsSB && r.sb != nil {
		if err := r.sb.Close(); err != nil {
			r.log.Warn("close sandbox", "err", err)
		}
	}
	if r.audit != nil {
		r.audit.Close()
	}
	if r.logFile != nil {
		r.logFile.Close()
	}
}

// execute runs the graph to its end and writes the report.
func (r *run) execute(ctx context.Context, opts ...compose.Option) (*atesor.Result, error) {
	runnable, err := r.compile(ctx)
	if err != nil {
		return nil, fmt.Errorf("graph: compile: %w", err)
	}
	_, err = runnable.Invoke(ctx, "", opts...)
	s := r.state
	if err != nil {
		r.save(s)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("graph: %s: %w", s.RepoName, errors.Join(ErrInterrupted, ctx.Err()))
		}
		return nil, fmt.Errorf("graph: %s: %w", s.RepoName, err)
	}
	r.ensureFinal(ctx, s)
	return r.result(), nil
}

// ensureFinal makes sure a run that ended has a final status: a run the graph ended
// without a final status (a replaced finish or escalate node that set none) is escalated
// by the built-in escalate node, with failure class infra.
func (r *run) ensureFinal(ctx context.Context, s *atesor.State) {
	if s.Status.Final() {
		return
	}
	if s.FailureClass == atesor.FailureNone {
		s.FailureClass = atesor.FailureInfra
	}
	if s.EscalationReason == "" {
		s.EscalationReason = fmt.Sprintf("the run ended after node %s with status %s, not a final status", s.LastNode, s.Status)
	}
	r.log.Error("run ended without a final status", "last_node", s.LastNode, "status", s.Status)
	_ = r.runNode(ctx, NodeEscalate, builtinNode{name: NodeEscalate, run: r}, s)
	if !s.Status.Final() {
		s.Status = atesor.StatusEscalated
		r.save(s)
	}
}

// node returns the node of that name: the embedder's replacement or the built-in one.
func (r *run) node(name string) atesor.Node {
	if n, ok := r.p.opts.replaced[name]; ok {
		return n
	}
	return builtinNode{name: name, run: r}
}

// runNode runs one node under the state lock, times it, records a node error in the
// state and saves the state. name is the name the node is registered under, which
// routing, events, timings and the audit log use (a replacement's Name may differ).
func (r *run) runNode(ctx context.Context, name string, n atesor.Node, s *atesor.State) error {
	r.current = name
	r.emit(atesor.Event{Kind: atesor.EventNodeStarted, Node: name})
	r.log.Info("node started", "node", name)
	start := r.now()
	var err error
	if r.restore && s.LastNode != "" && name != NodeEscalate {
		r.restore = false
		err = r.ensureRepo(ctx, s)
	}
	if err == nil {
		err = r.call(ctx, name, n, s)
	}
	d := r.now().Sub(start)
	s.Timings = append(s.Timings, atesor.NodeTiming{Node: name, Duration: d})
	if err != nil && ctx.Err() != nil {
		r.save(s)
		return ctx.Err()
	}
	s.LastNode = name
	ev := atesor.Event{Kind: atesor.EventNodeFinished, Node: name}
	if err != nil {
		// A node error is a failure of the machinery (sandbox, source, disk), not of the
		// package: the run ends with setup or infra.
		ev.Err = err.Error()
		r.log.Error("node failed", "node", name, "err", err)
		s.Record(atesor.ErrorRecord{Node: name, Message: err.Error()})
		if s.FailureClass == atesor.FailureNone {
			s.FailureClass = atesor.FailureInfra
			if name == NodeInit {
				s.FailureClass = atesor.FailureSetup
			}
			s.EscalationReason = name + ": " + err.Error()
		}
	}
	r.log.Info("node finished", "node", name, "duration", d)
	r.save(s)
	r.emit(ev)
	return nil
}

// call runs one node with its services. A panic in the node or in an embedder's
// validator it asked is an error of the node, so the run still ends with a final state
// (failure class infra) and the error says what panicked. A validator's panic stops its
// model call, which the node may have taken for a failed answer: the node's error is
// the panic all the same.
func (r *run) call(ctx context.Context, name string, n atesor.Node, s *atesor.State) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if verr := r.takeValidatorPanic(); verr != nil {
				err = fmt.Errorf("node %s: %w", name, verr)
				return
			}
			r.log.Error("node panicked", "node", name, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("node %s panicked: %v", name, p)
		}
	}()
	err = n.Run(ctx, services{r: r, node: name, s: s}, s)
	if verr := r.takeValidatorPanic(); verr != nil {
		err = fmt.Errorf("node %s: %w", name, verr)
	}
	return err
}

// supervise routes after a node: on resume the first step goes to the saved next node.
func (r *run) supervise(s *atesor.State, _ string) string {
	next := r.resumeTo
	r.resumeTo = ""
	if next == "" {
		if s.FailureClass != atesor.FailureNone && s.LastNode != NodeEscalate && s.LastNode != NodeFinish {
			next = NodeEscalate
		} else {
			next = r.sv.next(s)
		}
	}
	s.NextNode = next
	r.log.Info("supervisor", "after", s.LastNode, "next", next, "attempts", s.Attempts)
	r.save(s)
	return next
}

// save writes the state as JSON to the run directory (for resume) and to the output
// directory, each atomically. A failure is logged; the error is for the callers that
// must not carry on without the file (the final outputs).
func (r *run) save(s *atesor.State) error {
	s.Version = atesor.StateVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		r.log.Error("encode state", "err", err)
		return fmt.Errorf("encode the run state: %w", err)
	}
	var errs []error
	for _, p := range []string{filepath.Join(r.runDir, "state.json"), r.outPath("_state.json")} {
		if err := writeAtomic(p, b); err != nil {
			r.log.Error("save state", "err", err)
			errs = append(errs, fmt.Errorf("save the run state: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (r *run) outPath(suffix string) string {
	return filepath.Join(r.state.Request.OutputDir, r.state.RepoName+suffix)
}

func (r *run) emit(e atesor.Event) {
	if r.p.opts.events == nil {
		return
	}
	e.Elapsed = r.now().Sub(r.start)
	r.p.opts.events(e)
}

// now is the time by the pipeline's clock (see WithClock).
func (r *run) now() time.Time {
	if r.p.opts.now == nil {
		return time.Now()
	}
	return r.p.opts.now()
}

// loadState reads a saved run state for resume. A state that does not decode, or that a
// newer Atesor wrote (a state_version above [atesor.StateVersion]), is refused with what
// to do instead: resuming would guess at fields this version does not know.
func loadState(path string) (*atesor.State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("no saved run (%w)", err)
	}
	var probe struct {
		Version int `json:"state_version"`
	}
	if err := json.Unmarshal(b, &probe); err == nil && probe.Version > atesor.StateVersion {
		return nil, fmt.Errorf("the saved state %s has format version %d and this Atesor reads versions up to %d: resume it with the Atesor that started it, or port the package again without resume", path, probe.Version, atesor.StateVersion)
	}
	var s atesor.State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("the saved state %s cannot be read (%w): port the package again without resume", path, err)
	}
	return &s, nil
}

// writeAtomic replaces path with data (see [atomicfile.WriteFile]): a reader sees the
// old file or the new one, and a crash leaves one of them whole.
func writeAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data, 0o644) }

// lineWriter turns command output into one event per line of the node and phase
// ([eventline.Writer]).
type lineWriter struct {
	r     *run
	node  string
	phase string
	w     *eventline.Writer
}

func (w *lineWriter) Write(b []byte) (int, error) {
	if w.w == nil {
		w.w = &eventline.Writer{Emit: w.r.emit, Node: w.node, Phase: w.phase}
	}
	return w.w.Write(b)
}

// builtinNode adapts a method of run to atesor.Node.
type builtinNode struct {
	name string
	run  *run
}

func (n builtinNode) Name() string { return n.name }

func (n builtinNode) Run(ctx context.Context, _ atesor.Run, s *atesor.State) error {
	step, ok := builtinSteps[n.name]
	if !ok {
		return fmt.Errorf("no node %q", n.name)
	}
	return step(n.run, ctx, s)
}

// builtinSteps are the built-in nodes by name.
var builtinSteps = map[string]func(*run, context.Context, *atesor.State) error{
	NodeInit:          (*run).initNode,
	NodeAnalyst:       (*run).analystNode,
	NodeTaskPlan:      (*run).taskPlanNode,
	NodeHeuristicPlan: (*run).heuristicPlanNode,
	NodeScout:         (*run).scoutNode,
	NodeBuild:         (*run).buildNode,
	NodeVerify:        (*run).verifyNode,
	NodeFix:           (*run).fixNode,
	NodeFinish:        (*run).finishNode,
	NodeEscalate:      (*run).escalateNode,
	NodeOptimize:      (*run).optimizeNode,
}
