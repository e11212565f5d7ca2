package graph

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

// panicNode panics when it runs.
type panicNode struct{}

func (panicNode) Name() string { return "panicky" }
func (panicNode) Run(context.Context, atesor.Run, *atesor.State) error {
	panic("the embedder's node broke")
}

func TestNewRefusesANilNode(t *testing.T) {
	h := newHarness(t, false)
	var typed *panicNode
	for name, n := range map[string]atesor.Node{"nil": nil, "typed nil": typed} {
		t.Run(name, func(t *testing.T) {
			_, err := New(Config{Sandbox: h.sb, OutputDir: h.out}, WithNode(NodeBuild, n))
			if err == nil || !strings.Contains(err.Error(), `WithNode("build", nil): the node is nil`) {
				t.Errorf("New = %v, want the nil node refused", err)
			}
		})
	}
}

func TestNewRefusesTheSupervisorAndUnknownNodes(t *testing.T) {
	h := newHarness(t, false)
	_, err := New(Config{Sandbox: h.sb, OutputDir: h.out}, WithNode(NodeSupervisor, panicNode{}), WithNode("nope", panicNode{}))
	if err == nil {
		t.Fatal("New accepted the supervisor and an unknown node")
	}
	for _, want := range []string{`WithNode("supervisor"): the supervisor is the pipeline's routing`, `WithNode("nope"): no such node`, "replaceable nodes are init, analyst,"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	for _, n := range Nodes() {
		if n == NodeSupervisor {
			t.Errorf("Nodes() lists the supervisor: %v", Nodes())
		}
		if _, err := New(Config{Sandbox: h.sb}, WithNode(n, panicNode{})); err != nil {
			t.Errorf("WithNode(%q) refused: %v", n, err)
		}
	}
}

type houseAnswer struct {
	Verdict string `json:"verdict"`
}

func TestNewRefusesAValidatorOfATypeNoNodeAsksFor(t *testing.T) {
	h := newHarness(t, false)
	v := atesor.ValidatorFunc[houseAnswer](func(*houseAnswer) error { return nil })
	_, err := New(Config{Sandbox: h.sb, OutputDir: h.out}, WithValidator[houseAnswer](v))
	if err == nil {
		t.Fatal("a validator nothing runs was accepted")
	}
	for _, want := range []string{"graph.houseAnswer", "would never run", "atesor.AnalysisAnswer (analyst)", "atesor.BuildPlan (scout)",
		"atesor.FixProposal (fix)", "atesor.CuratorAnswer", "atesor.Harness", "WithAnswerType"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := New(Config{Sandbox: h.sb}, WithAnswerType[houseAnswer](), WithValidator[houseAnswer](v)); err != nil {
		t.Errorf("a declared answer type's validator was refused: %v", err)
	}
	if _, err := New(Config{Sandbox: h.sb}, WithValidator[atesor.FixProposal](nil)); err == nil || !strings.Contains(err.Error(), "the validator is nil") {
		t.Errorf("a nil validator: %v", err)
	}
}

// New checks the options before the Config, and reports both.
func TestNewChecksOptionsBeforeTheConfig(t *testing.T) {
	_, err := New(Config{}, WithNode("nope", panicNode{}))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	opt, cfg := strings.Index(msg, `WithNode("nope")`), strings.Index(msg, "needs a Sandbox or an OpenSandbox")
	if opt < 0 || cfg < 0 || opt > cfg {
		t.Errorf("error %q: want the option's problem, then the Config's", msg)
	}
	if _, err := New(Config{}, nil); err == nil || !strings.Contains(err.Error(), "a nil Option") {
		t.Errorf("a nil option: %v", err)
	}
}

func TestAPanickingNodeEndsTheRunWithAFinalState(t *testing.T) {
	h := newHarness(t, false)
	res := h.run(WithNode(NodeBuild, panicNode{}))
	if !res.Status.Final() || res.Status.Succeeded() || res.FailureClass != atesor.FailureInfra {
		t.Fatalf("status %s class %s", res.Status, res.FailureClass)
	}
	if !strings.Contains(res.Reason, "node build panicked: the embedder's node broke") {
		t.Errorf("reason %q does not name the panic", res.Reason)
	}
	st := h.state()
	if !st.Status.Final() || st.LastNode != NodeEscalate {
		t.Errorf("saved state status %s after %s", st.Status, st.LastNode)
	}
	var finished *atesor.Event
	for i := range h.events {
		if e := h.events[i]; e.Kind == atesor.EventNodeFinished && e.Node == NodeBuild {
			finished = &h.events[i]
		}
	}
	if finished == nil || !strings.Contains(finished.Err, "panicked") {
		t.Errorf("build's finished event %+v", finished)
	}
}

func TestAPanickingValidatorEndsTheRunWithAFinalState(t *testing.T) {
	h := newHarness(t, true)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RolePlanner, analysisAnswer, analysisAnswer, analysisAnswer)
	calls := 0
	res := h.run(WithValidator(atesor.ValidatorFunc[atesor.AnalysisAnswer](func(*atesor.AnalysisAnswer) error {
		calls++
		panic("the embedder's validator broke")
	})))
	if !res.Status.Final() || res.Status.Succeeded() || res.FailureClass != atesor.FailureInfra {
		t.Fatalf("status %s class %s (%s)", res.Status, res.FailureClass, res.Reason)
	}
	if !strings.Contains(res.Reason, "analyst: node analyst: the validator of atesor.AnalysisAnswer (WithValidator) panicked: the embedder's validator broke") {
		t.Errorf("reason %q does not name the validator's panic", res.Reason)
	}
	if calls != 1 {
		t.Errorf("the panicking validator was asked %d times; the call should stop at its panic", calls)
	}
	if st := h.state(); !st.Status.Final() {
		t.Errorf("saved state status %s", st.Status)
	}
}

// askingAnalyst is a replacement analyst that uses the run's services: it asks the
// planner pool through Run.Ask for its own answer type and reports what it did.
type askingAnalyst struct{ verdict *string }

func (askingAnalyst) Name() string { return "house-analyst" }

func (n askingAnalyst) Run(ctx context.Context, run atesor.Run, s *atesor.State) error {
	ans, err := run.Ask(ctx, atesor.Question{Role: atesor.RolePlanner, Label: "house-analyst", Prompt: "Judge " + s.RepoName,
		Decode: func(raw []byte) (any, error) {
			var a houseAnswer
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, err
			}
			return &a, nil
		}})
	if err != nil {
		return err
	}
	*n.verdict = ans.Value.(*houseAnswer).Verdict
	run.Emit(atesor.Event{Kind: atesor.EventInfo, Line: "house verdict: " + *n.verdict})
	run.Logger().Info("house analyst", "verdict", *n.verdict)
	s.Analysis = &atesor.PackageAnalysis{Purpose: *n.verdict, BuildSystem: atesor.BuildMake}
	return nil
}

func TestAReplacementNodeUsesTheRunsServices(t *testing.T) {
	h := newHarness(t, true)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RolePlanner, `{"verdict": "no"}`, `{"verdict": "portable"}`)
	var verdict string
	rejected := 0
	res := h.run(WithNode(NodeAnalyst, askingAnalyst{&verdict}), WithAnswerType[houseAnswer](),
		WithValidator(atesor.ValidatorFunc[houseAnswer](func(a *houseAnswer) error {
			if a.Verdict == "no" {
				rejected++
				return errors.New("say why")
			}
			return nil
		})))
	if !res.Verified || verdict != "portable" || rejected != 1 {
		t.Fatalf("status %s verdict %q rejected %d", res.Status, verdict, rejected)
	}
	audit, err := os.ReadFile(filepath.Join(h.out, "agent-call_vecsum.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(audit), "house-analyst") || !strings.Contains(string(audit), "Judge vecsum") {
		t.Errorf("the audit log lacks the node's call:\n%s", audit)
	}
	var info, reject bool
	for _, e := range h.events {
		info = info || (e.Kind == atesor.EventInfo && e.Node == NodeAnalyst && e.Line == "house verdict: portable")
		reject = reject || (e.Kind == atesor.EventAnswerRejected && e.Node == NodeAnalyst && e.Err == "say why")
	}
	if !info || !reject {
		t.Errorf("events: info %v, rejection %v", info, reject)
	}
	if res.State.Usage.Calls < 2 {
		t.Errorf("usage %+v does not count the node's calls", res.State.Usage)
	}
	if log, _ := os.ReadFile(filepath.Join(h.out, "agent_vecsum.log")); !strings.Contains(string(log), "verdict=portable") {
		t.Errorf("the run log lacks the node's record")
	}
}

func TestRunNeedsAnOutputDirectoryAndKeepsStatesThere(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	p, err := New(Config{Sandbox: h.sb})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), atesor.Request{Source: h.src}); err == nil || !strings.Contains(err.Error(), "no output directory") {
		t.Fatalf("a run without an output directory: %v", err)
	}
	res, err := p.Run(context.Background(), atesor.Request{Source: h.src, OutputDir: h.out})
	if err != nil || !res.Verified {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(h.out, ".atesor", "runs", "vecsum-debian-riscv64", "state.json")); err != nil {
		t.Errorf("without Home the run state is not under the output directory: %v", err)
	}
	home := t.TempDir()
	p, _ = New(Config{Sandbox: h.sb, OutputDir: h.out, Home: home})
	if _, err := p.Run(context.Background(), atesor.Request{Source: h.src}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "runs", "vecsum-debian-riscv64", "state.json")); err != nil {
		t.Errorf("the run state is not under Home: %v", err)
	}
}

// A verified port in the fake sandbox runs its install step into a staging directory
// (the fake installs nothing, which the install part says) and logs no error; without
// the fake's staging rule the listing of the stage failed.
func TestFakeSandboxStagesTheInstall(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	if inst := res.State.Install; inst == nil || !inst.OK || strings.Contains(inst.Error, "scan the staged files") {
		t.Errorf("install %+v", inst)
	}
	log, err := os.ReadFile(filepath.Join(h.out, "agent_vecsum.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "level=ERROR") {
		t.Errorf("the run logged an error:\n%s", log)
	}
}
