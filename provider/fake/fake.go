package fake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// Name is the default provider name of a fake.
const Name = "fake"

// ErrNoReply is wrapped by the error a model returns when no reply is queued for it.
var ErrNoReply = errors.New("fake provider: no reply queued")

// Reply is one scripted answer.
type Reply struct {
	// Text is the answer's content.
	Text string
	// Thinking is put in ReasoningContent, as providers return thinking parts.
	Thinking string
	// InputTokens and OutputTokens are reported as the answer's token usage.
	InputTokens, OutputTokens int
	// Err, when set, is returned instead of an answer (after Delay).
	Err error
	// Delay is waited (through the sleeper, see [WithSleeper]) before answering.
	Delay time.Duration
	// Hang blocks until the call's context ends, like a server that never answers.
	Hang bool
	// Model, when set, is reported in the answer's Extra as the model that answered.
	Model string
}

// Call is one recorded model call.
type Call struct {
	Role atesor.Role
	// Label is the audit label of the call (see [provider.Label]): analyst, scout,
	// fixer, summarizer, curator, ...
	Label       string
	Model       string
	MaxTokens   int
	Temperature *float32
	Messages    []*schema.Message
}

// Option configures a fake provider.
type Option func(*Provider)

// WithName sets the provider name (default "fake"); llm names the key variable of
// real provider names in authentication errors.
func WithName(name string) Option { return func(p *Provider) { p.name = name } }

// WithPool sets the models of a role's pool (default: one model "fake-<role>").
func WithPool(role atesor.Role, models ...string) Option {
	return func(p *Provider) { p.pools[role] = slices.Clone(models) }
}

// WithMaxTokens sets the output cap of every pool model (default 8192).
func WithMaxTokens(n int) Option { return func(p *Provider) { p.maxTokens = n } }

// WithPrice sets the price of every pool model (atesor.ModelSpec.Price; default nil:
// the llm price table, which does not know the fake models and charges them high).
func WithPrice(price atesor.Price) Option {
	return func(p *Provider) { p.price = &price }
}

// WithSleeper replaces the wait used for Reply.Delay (default: a timer that also ends
// with the context). Tests pass a fake clock's Sleep, so they never wait for real.
func WithSleeper(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(p *Provider) { p.sleep = sleep }
}

// Provider is the scripted provider. It is safe for concurrent use.
type Provider struct {
	name      string
	maxTokens int
	sleep     func(ctx context.Context, d time.Duration) error
	price     *atesor.Price

	mu      sync.Mutex
	called  *sync.Cond // broadcast on every recorded call
	pools   map[atesor.Role][]string
	byRole  map[atesor.Role][]Reply
	byModel map[string][]Reply
	byLabel map[string][]Reply
	calls   []Call
}

var _ atesor.Provider = (*Provider)(nil)

// New returns an empty fake provider.
func New(opts ...Option) *Provider {
	p := &Provider{
		name:      Name,
		maxTokens: provider.DefaultMaxOutputTokens,
		sleep:     sleepCtx,
		pools:     map[atesor.Role][]string{},
		byRole:    map[atesor.Role][]Reply{},
		byModel:   map[string][]Reply{},
		byLabel:   map[string][]Reply{},
	}
	p.called = sync.NewCond(&p.mu)
	for _, o := range opts {
		o(p)
	}
	return p
}

// Name implements atesor.Provider.
func (p *Provider) Name() string { return p.name }

// Pool implements atesor.Provider: the role's models with temperature 0 and the cap.
func (p *Provider) Pool(role atesor.Role) []atesor.ModelSpec {
	p.mu.Lock()
	models, ok := p.pools[role]
	p.mu.Unlock()
	if !ok {
		models = []string{"fake-" + string(role)}
	}
	out := make([]atesor.ModelSpec, 0, len(models))
	for _, m := range models {
		var t float32
		spec := atesor.ModelSpec{Provider: p.name, Role: role, Model: m, Temperature: &t, MaxTokens: p.maxTokens}
		if p.price != nil {
			price := *p.price
			spec.Price = &price
		}
		out = append(out, spec)
	}
	return out
}

// Queue adds text replies for a role.
func (p *Provider) Queue(role atesor.Role, texts ...string) {
	for _, t := range texts {
		p.QueueReply(role, Reply{Text: t})
	}
}

// QueueReply adds replies for a role.
func (p *Provider) QueueReply(role atesor.Role, replies ...Reply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byRole[role] = append(p.byRole[role], replies...)
}

// QueueModel adds replies for one model id. A model's own queue is used before its
// role's queue.
func (p *Provider) QueueModel(modelID string, replies ...Reply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byModel[modelID] = append(p.byModel[modelID], replies...)
}

// QueueLabel adds replies for one audit label, such as "curator", whose calls share a
// role's pool with another caller (the curator and the recipe's summarizer both use the
// summarizer role). A label's queue is used after the model's queue and before the
// role's queue. The pipeline's labels: analyst (planner role), scout, fixer,
// summarizer and curator (summarizer role), optimizer; in the finish node the curator
// is asked before the summarizer.
func (p *Provider) QueueLabel(label string, replies ...Reply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byLabel[label] = append(p.byLabel[label], replies...)
}

// QueueError adds a reply that fails with err.
func (p *Provider) QueueError(role atesor.Role, err error) {
	p.QueueReply(role, Reply{Err: err})
}

// QueueHTTPError adds a reply that fails like an HTTP error response: an
// *atesor.ProviderError with the status, the Retry-After of header (seconds, HTTP date,
// or Gemini's retryDelay in the body) and the body.
func (p *Provider) QueueHTTPError(role atesor.Role, status int, header http.Header, body string) {
	p.QueueError(role, HTTPError(status, header, body))
}

// HTTPError builds the *atesor.ProviderError a real provider returns for an HTTP error
// response (model and provider are filled in when it is returned by a fake model).
func HTTPError(status int, header http.Header, body string) *atesor.ProviderError {
	if header == nil {
		header = http.Header{}
	}
	return &atesor.ProviderError{
		Status:     status,
		RetryAfter: provider.RetryAfter(header, []byte(body), time.Now()),
		Body:       body,
	}
}

// Pending returns how many replies are still queued for a role (not counting model
// queues).
func (p *Provider) Pending(role atesor.Role) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byRole[role])
}

// Calls returns every recorded call, in order.
func (p *Provider) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

// WaitCalls blocks until at least n calls have been recorded, so a test can act (for
// example advance a fake clock) once a model call has really started, without
// sleeping.
func (p *Provider) WaitCalls(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.calls) < n {
		p.called.Wait()
	}
}

// Prompts returns the messages of every call made for a role, in order.
func (p *Provider) Prompts(role atesor.Role) [][]*schema.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out [][]*schema.Message
	for _, c := range p.calls {
		if c.Role == role {
			out = append(out, c.Messages)
		}
	}
	return out
}

// ChatModel implements atesor.Provider.
func (p *Provider) ChatModel(_ context.Context, spec atesor.ModelSpec) (model.BaseChatModel, error) {
	return &chatModel{p: p, spec: spec}, nil
}

// next records the call and pops its reply. A call whose context has already ended is
// neither recorded nor given a reply, as a real request that is never sent: an
// abandoned call cannot take the reply queued for the next one.
func (p *Provider) next(ctx context.Context, spec atesor.ModelSpec, in []*schema.Message) (Reply, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Reply{}, false, err
	}
	defer p.called.Broadcast()
	msgs := make([]*schema.Message, len(in))
	for i, m := range in {
		if m != nil {
			c := *m
			msgs[i] = &c
		}
	}
	label := provider.Label(ctx)
	p.calls = append(p.calls, Call{Role: spec.Role, Label: label, Model: spec.Model, MaxTokens: spec.MaxTokens, Temperature: spec.Temperature, Messages: msgs})
	if q := p.byModel[spec.Model]; len(q) > 0 {
		p.byModel[spec.Model] = q[1:]
		return q[0], true, nil
	}
	if q := p.byLabel[label]; label != "" && len(q) > 0 {
		p.byLabel[label] = q[1:]
		return q[0], true, nil
	}
	if q := p.byRole[spec.Role]; len(q) > 0 {
		p.byRole[spec.Role] = q[1:]
		return q[0], true, nil
	}
	return Reply{}, false, nil
}

type chatModel struct {
	p    *Provider
	spec atesor.ModelSpec
}

// Generate implements model.BaseChatModel.
func (m *chatModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	r, ok, err := m.p.next(ctx, m.spec, in)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w for role %s (model %s): queue one with Queue, QueueReply or QueueModel", ErrNoReply, m.spec.Role, m.spec.Model)
	}
	if r.Delay > 0 {
		if err := m.p.sleep(ctx, r.Delay); err != nil {
			return nil, err
		}
	}
	if r.Hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.Err != nil {
		var pe *atesor.ProviderError
		if errors.As(r.Err, &pe) {
			c := *pe
			if c.Provider == "" {
				c.Provider = m.p.name
			}
			if c.Model == "" {
				c.Model = m.spec.Model
			}
			return nil, &c
		}
		return nil, r.Err
	}
	msg := schema.AssistantMessage(r.Text, nil)
	msg.ReasoningContent = r.Thinking
	msg.ResponseMeta = &schema.ResponseMeta{FinishReason: "stop", Usage: &schema.TokenUsage{
		PromptTokens: r.InputTokens, CompletionTokens: r.OutputTokens, TotalTokens: r.InputTokens + r.OutputTokens,
	}}
	if r.Model != "" {
		msg.Extra = map[string]any{provider.ExtraModel: r.Model}
	}
	return msg, nil
}

// Stream implements model.BaseChatModel with a one-chunk stream of Generate's answer.
func (m *chatModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
