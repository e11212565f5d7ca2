package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// modelRecorder is an Eino callback handler that records chat model calls.
type modelRecorder struct {
	mu     sync.Mutex
	starts []string
	ends   []string
	errs   []string
	usage  []*model.TokenUsage
}

func (m *modelRecorder) handler() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, in callbacks.CallbackInput) context.Context {
			if info.Component == components.ComponentOfChatModel && model.ConvCallbackInput(in) != nil {
				m.mu.Lock()
				m.starts = append(m.starts, info.Name+"/"+info.Type)
				m.mu.Unlock()
			}
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			if o := model.ConvCallbackOutput(out); o != nil && info.Component == components.ComponentOfChatModel {
				m.mu.Lock()
				m.ends = append(m.ends, info.Name)
				m.usage = append(m.usage, o.TokenUsage)
				m.mu.Unlock()
			}
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
			if info.Component == components.ComponentOfChatModel {
				m.mu.Lock()
				m.errs = append(m.errs, info.Name+": "+err.Error())
				m.mu.Unlock()
			}
			return ctx
		}).Build()
}

func TestModelCallsGoThroughEinoCallbacks(t *testing.T) {
	p := fake.New()
	p.QueueError(atesor.RoleScout, errors.New("boom"))
	p.QueueReply(atesor.RoleScout, fake.Reply{Text: `{"name":"zlib"}`, InputTokens: 120, OutputTokens: 30})
	c, _ := newClient(p)
	rec := &modelRecorder{}
	ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "caller"}, rec.handler())
	out := llm.Call(ctx, c, llm.Request[answer]{Role: atesor.RoleScout, Messages: prompt(), Validate: validName, CritiqueRetries: 1})
	if !out.OK() {
		t.Fatalf("%+v", out)
	}
	if len(rec.starts) != 2 || rec.starts[0] != "fake-scout/fake" {
		t.Errorf("starts = %v, want 2 of fake-scout/fake", rec.starts)
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "boom") {
		t.Errorf("errors = %v", rec.errs)
	}
	if len(rec.ends) != 1 || rec.usage[0] == nil || rec.usage[0].PromptTokens != 120 || rec.usage[0].CompletionTokens != 30 || rec.usage[0].TotalTokens != 150 {
		t.Errorf("ends = %v usage = %+v", rec.ends, rec.usage)
	}
}

// selfReporting is a model that reports its own callbacks, as the eino-ext clients do.
type selfReporting struct{ calls int }

func (m *selfReporting) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.calls++
	ctx = callbacks.OnStart(ctx, &model.CallbackInput{})
	msg := schema.AssistantMessage(`{"name":"x"}`, nil)
	callbacks.OnEnd(ctx, &model.CallbackOutput{Message: msg, TokenUsage: &model.TokenUsage{PromptTokens: 1}})
	return msg, nil
}

func (m *selfReporting) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, errors.New("no streaming")
}

func (m *selfReporting) IsCallbacksEnabled() bool { return true }
func (m *selfReporting) GetType() string          { return "SelfReporting" }

type oneModel struct{ m model.BaseChatModel }

func (o oneModel) Name() string { return "one" }
func (o oneModel) Pool(role atesor.Role) []atesor.ModelSpec {
	return []atesor.ModelSpec{{Provider: "one", Role: role, Model: "m1", MaxTokens: 100}}
}
func (o oneModel) ChatModel(context.Context, atesor.ModelSpec) (model.BaseChatModel, error) {
	return o.m, nil
}

func TestSelfReportingModelIsNotReportedTwice(t *testing.T) {
	m := &selfReporting{}
	c, _ := newClient(oneModel{m})
	rec := &modelRecorder{}
	ctx := callbacks.InitCallbacks(context.Background(), &callbacks.RunInfo{Name: "caller"}, rec.handler())
	if out := llm.Call(ctx, c, llm.Request[answer]{Role: atesor.RoleFixer, Messages: prompt()}); !out.OK() {
		t.Fatalf("%+v", out)
	}
	if len(rec.starts) != 1 || rec.starts[0] != "m1/SelfReporting" || len(rec.ends) != 1 {
		t.Errorf("starts = %v ends = %v, want one call named m1/SelfReporting", rec.starts, rec.ends)
	}
}

func TestRejectedAnswersAreNotifiedWithTheirRule(t *testing.T) {
	p := fake.New()
	p.Queue(atesor.RoleScout, `no json here`, `{"name":"curl"}`, `{"name":"bad"}`, `{"name":"good"}`)
	p.Queue(atesor.RoleScout)
	c, _ := newClient(p)
	var notices []llm.Notice
	c.Notify = func(n llm.Notice) { notices = append(notices, n) }
	embedder := atesor.ValidatorFunc[answer](func(a *answer) error {
		if a.Name == "bad" {
			return errors.New("bad is a reserved name")
		}
		return nil
	})
	out := llm.Call(context.Background(), c, llm.Request[answer]{
		Role: atesor.RoleScout, Messages: prompt(), Label: "namer", Node: "name", CritiqueRetries: 3,
		Validate: func(a *answer) error {
			if a.Name == "curl" {
				return &validate.Rejection{Rule: "no-curl", Reason: "curl is taken"}
			}
			return nil
		},
		Validators: []atesor.Validator[answer]{embedder},
	})
	if !out.OK() || out.Data.Name != "good" {
		t.Fatalf("%+v", out)
	}
	var rules []string
	for _, n := range notices {
		if n.Kind != llm.NoticeRejected || n.Node != "name" || n.Label != "namer" || n.Role != atesor.RoleScout || n.Model != "fake-scout" || n.Err == nil {
			t.Errorf("notice %+v", n)
		}
		rules = append(rules, n.Rule)
	}
	if strings.Join(rules, ",") != "json,no-curl,validator" {
		t.Errorf("rules = %v, want json,no-curl,validator", rules)
	}
}

func TestRuleOf(t *testing.T) {
	se := &validate.SchemaError{Answer: "x", Problems: []string{"p"}}
	for err, want := range map[error]string{
		se:                             "schema",
		&validate.Rejection{Rule: "r"}: "r",
		llm.ErrNoJSON:                  "json",
		errors.New("other"):            "validator",
	} {
		if got := llm.RuleOf(err); got != want {
			t.Errorf("RuleOf(%v) = %q, want %q", err, got, want)
		}
	}
}
