package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/validate"
)

const analysisAnswer = `{"purpose": "sums vectors", "build_system": {"type": "make", "confidence": 0.9, "reasoning": "a Makefile"}, "language": "C", "dependencies": [], "needs_custom_plan": false}`

// A replacement whose Name differs from the name it replaced runs where the built-in
// node ran, and everything reports it under the registered name.
func TestReplacedNodeIsRoutedByRegisteredName(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	res := h.run(WithNode(NodeAnalyst, nodeFunc{"my-own-analyst", func(_ context.Context, s *atesor.State) error {
		s.Analysis = &atesor.PackageAnalysis{Purpose: "embedder", BuildSystem: atesor.BuildMake}
		return nil
	}}))
	if !res.Verified || res.Status != atesor.StatusVerified {
		t.Fatalf("status = %s (%s), want verified", res.Status, res.Reason)
	}
	for _, e := range h.events {
		if e.Node == "my-own-analyst" {
			t.Errorf("event names the replacement's own name: %+v", e)
		}
	}
	if res.State.Analysis.Purpose != "embedder" || !slices.ContainsFunc(res.State.Timings, func(n atesor.NodeTiming) bool { return n.Node == NodeAnalyst }) {
		t.Errorf("the replacement did not run as %s: %+v", NodeAnalyst, res.State.Timings)
	}
}

// A run whose last node leaves a non-final status is escalated, never returned as is.
func TestRunNeverReturnsANonFinalStatus(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	res := h.run(WithNode(NodeFinish, nodeFunc{NodeFinish, func(_ context.Context, s *atesor.State) error {
		s.Status = atesor.StatusBuilt
		return nil
	}}))
	if !res.Status.Final() || res.Status != atesor.StatusEscalated || res.FailureClass != atesor.FailureInfra {
		t.Fatalf("status = %s class = %s, want escalated/infra", res.Status, res.FailureClass)
	}
	if !strings.Contains(res.Reason, "not a final status") {
		t.Errorf("reason = %q", res.Reason)
	}
	if h.report().Status != atesor.StatusEscalated {
		t.Errorf("report status = %s", h.report().Status)
	}
}

func TestConfigLoggerReceivesTheRunLog(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	p, err := New(Config{Sandbox: h.sb, Memory: h.mem, OutputDir: h.out, RunsDir: h.out + "/runs", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), atesor.Request{Source: h.src, TestTimeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	started := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if rec["repo"] != "vecsum" {
			t.Errorf("record without repo: %v", rec)
		}
		if rec["level"] == "DEBUG" {
			t.Errorf("a debug record passed an Info handler: %v", rec)
		}
		if rec["msg"] == "node started" {
			started[rec["node"].(string)] = true
		}
	}
	for _, n := range []string{NodeInit, NodeBuild, NodeVerify, NodeFinish} {
		if !started[n] {
			t.Errorf("no 'node started' record for %s in the embedder's logger", n)
		}
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// One clock reaches every wait: a Retry-After of 40 s takes no real time, and events,
// timings and the result measure the clock's time.
func TestClockReachesRetryAfterAndElapsed(t *testing.T) {
	h := newHarness(t, true)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.QueueHTTPError(atesor.RolePlanner, http.StatusTooManyRequests, http.Header{"Retry-After": {"40"}}, "slow down")
	h.prov.Queue(atesor.RolePlanner, analysisAnswer)
	clock := llm.NewManualClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	start := time.Now()
	res := h.run(WithClock(clock))
	if real := time.Since(start); real > 30*time.Second {
		t.Fatalf("the run took %s of real time", real)
	}
	if !res.Verified || res.State.Analysis == nil || !res.State.Analysis.LLMGrounded {
		t.Fatalf("status %s, analysis %+v", res.Status, res.State.Analysis)
	}
	if got := clock.Sleeps(); len(got) != 1 || got[0] != 40*time.Second {
		t.Errorf("clock sleeps = %v, want [40s]", got)
	}
	if res.Duration < 40*time.Second || res.Duration > 10*time.Minute {
		t.Errorf("duration = %s, want the clock's 40 s or a little more", res.Duration)
	}
	if !res.State.StartedAt.Equal(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("started at %s, not the clock's time", res.State.StartedAt)
	}
	last := h.events[len(h.events)-1]
	if last.Elapsed < 40*time.Second || last.Elapsed > 10*time.Minute {
		t.Errorf("last event elapsed %s, want the clock's time", last.Elapsed)
	}
}

func TestResultJSONFilesAndState(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	res := h.run()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["duration_seconds"].(float64); !ok || m["duration"] != nil {
		t.Errorf("result JSON %s: want duration_seconds as a number", b)
	}
	tests, _ := m["tests"].(map[string]any)
	if _, ok := tests["duration_seconds"].(float64); !ok {
		t.Errorf("tests JSON %v: want duration_seconds", tests)
	}
	var back atesor.Result
	if err := json.Unmarshal(b, &back); err != nil || back.Duration.Round(time.Millisecond) != res.Duration.Round(time.Millisecond) {
		t.Errorf("round trip: %s vs %s (%v)", back.Duration, res.Duration, err)
	}
	for k := range res.Files {
		if !slices.Contains(atesor.FileKinds(), k) {
			t.Errorf("Result.Files key %q is not documented in atesor.FileKinds", k)
		}
	}
	for k := range h.report().Files {
		if !slices.Contains(atesor.FileKinds(), k) {
			t.Errorf("report files key %q is not documented in atesor.FileKinds", k)
		}
	}
	for _, k := range []string{atesor.FileRecipe, atesor.FileReport, atesor.FileState, atesor.FileLog} {
		if res.Files[k] == "" {
			t.Errorf("Result.Files has no %s: %v", k, res.Files)
		}
	}
	if res.State == nil || res.State.Status != res.Status || res.State.RepoName != "vecsum" || len(res.State.Timings) == 0 {
		t.Fatalf("Result.State = %+v", res.State)
	}
	st := h.state()
	if st.Duration.Round(time.Millisecond) != res.State.Duration.Round(time.Millisecond) || st.Timings[0].Duration.Round(time.Microsecond) != res.State.Timings[0].Duration.Round(time.Microsecond) {
		t.Errorf("the state file's durations differ from the result's: %s/%s", st.Duration, res.State.Duration)
	}
}

// An embedder's validator of a node's answers is asked; its rejection is an event naming
// the rule, and the node's fallback is an event too.
func TestWithValidatorRejectsAnswersAndReportsTheRule(t *testing.T) {
	h := newHarness(t, true)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RolePlanner, analysisAnswer, analysisAnswer, analysisAnswer)
	calls := 0
	res := h.run(WithValidator(atesor.ValidatorFunc[atesor.AnalysisAnswer](func(a *atesor.AnalysisAnswer) error {
		calls++
		return &validate.Rejection{Rule: "house-style", Reason: "the purpose must name the license"}
	})))
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	if calls != 3 {
		t.Errorf("the validator was asked %d times, want 3 (the answer and 2 critique retries)", calls)
	}
	var rejected, fallback []atesor.Event
	for _, e := range h.events {
		switch e.Kind {
		case atesor.EventAnswerRejected:
			rejected = append(rejected, e)
		case atesor.EventFallback:
			fallback = append(fallback, e)
		}
	}
	if len(rejected) != 3 {
		t.Fatalf("rejected events = %+v", rejected)
	}
	if e := rejected[0]; e.Rule != "house-style" || e.Node != NodeAnalyst || e.Role != "planner" || e.Label != "analyst" || e.Model == "" || !strings.Contains(e.Err, "license") {
		t.Errorf("rejected event %+v", e)
	}
	if len(fallback) == 0 || fallback[0].Node != NodeAnalyst {
		t.Errorf("fallback events = %+v", fallback)
	}
	if res.State.Analysis.LLMGrounded {
		t.Error("the rejected analysis was used")
	}
}

// Per-run compose options reach the graph: an Eino callback handler sees each node and
// each model call with its tokens.
func TestRunWithCallbacksSeesNodesAndModelCalls(t *testing.T) {
	h := newHarness(t, true)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.QueueReply(atesor.RolePlanner, fake.Reply{Text: analysisAnswer, InputTokens: 900, OutputTokens: 100})
	var mu sync.Mutex
	var nodes []string
	var tokens []int
	modelErrors := 0
	handler := callbacks.NewHandlerBuilder().
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, _ error) context.Context {
			mu.Lock()
			defer mu.Unlock()
			if info.Component == components.ComponentOfChatModel {
				modelErrors++
			}
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			mu.Lock()
			defer mu.Unlock()
			switch info.Component {
			case compose.ComponentOfLambda:
				nodes = append(nodes, info.Name)
			case components.ComponentOfChatModel:
				if o := model.ConvCallbackOutput(out); o != nil && o.TokenUsage != nil {
					tokens = append(tokens, o.TokenUsage.TotalTokens)
				}
			}
			return ctx
		}).Build()
	res, err := h.pipeline().RunWith(context.Background(), atesor.Request{Source: h.src, TestTimeout: time.Minute}, compose.WithCallbacks(handler))
	if err != nil || !res.Verified {
		t.Fatalf("%v %+v", err, res)
	}
	for _, n := range []string{NodeInit, NodeAnalyst, NodeBuild, NodeVerify, NodeFinish, NodeSupervisor} {
		if !slices.Contains(nodes, n) {
			t.Errorf("the handler saw no node %s: %v", n, nodes)
		}
	}
	if len(tokens)+modelErrors != res.Usage.Calls || len(tokens) == 0 || tokens[0] != 1000 {
		t.Errorf("the handler saw %d answers (tokens %v) and %d errors; the run made %d calls", len(tokens), tokens, modelErrors, res.Usage.Calls)
	}
}

func TestScriptedFixEvent(t *testing.T) {
	var got []atesor.Event
	r := &run{p: &Pipeline{opts: options{now: time.Now, events: func(e atesor.Event) { got = append(got, e) }}}, log: slog.New(slog.DiscardHandler), start: time.Now()}
	r.emitScriptedFix("missing-header", "install zlib1g-dev for zlib.h")
	if len(got) != 1 || got[0].Kind != atesor.EventScriptedFix || got[0].Rule != "missing-header" || got[0].Node != NodeFix || got[0].Line == "" {
		t.Errorf("events = %+v", got)
	}
}

func TestEventJSONInSeconds(t *testing.T) {
	e := atesor.Event{Kind: atesor.EventNodeFinished, Node: NodeBuild, Elapsed: 1500 * time.Millisecond, Err: "boom"}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"elapsed_seconds":1.5`) || !strings.Contains(string(b), `"error":"boom"`) {
		t.Errorf("event JSON %s", b)
	}
	var back atesor.Event
	if err := json.Unmarshal(b, &back); err != nil || back != e {
		t.Errorf("round trip %+v (%v)", back, err)
	}
	_ = errors.New
}

// The curator has its own queue in the fake provider, though it shares the summarizer's
// pool: each agent gets the answer queued for it, whatever the order of the calls.
func TestFakeQueuesByAgent(t *testing.T) {
	h := newHarness(t, true)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleSummarizer, "# not a recipe with sections")
	h.prov.QueueLabel("curator", fake.Reply{Text: `{"primary": [0, 1]}`})
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s", res.Status)
	}
	agents := map[string]atesor.Role{}
	for _, c := range h.prov.Calls() {
		agents[c.Label] = c.Role
	}
	if agents["curator"] != atesor.RoleSummarizer || agents["summarizer"] != atesor.RoleSummarizer {
		t.Errorf("calls by agent: %v", agents)
	}
	for _, e := range h.events {
		if e.Kind == atesor.EventAnswerRejected && e.Label == "curator" {
			t.Errorf("the curator got the summarizer's answer: %+v", e)
		}
	}
}
