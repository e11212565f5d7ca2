package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// Wall timeouts of a model call. The provider's HTTP timeout fires first and releases the
// connection; the wall timeout is the backstop.
const (
	// WallTimeoutMargin is added to the provider timeout to make the default wall timeout.
	WallTimeoutMargin = 15 * time.Second
	// CuratorWallTimeout is the wall timeout of the artifact curator's call.
	CuratorWallTimeout = 60 * time.Second
	// HarnessWallTimeout is the wall timeout of the optimizer agent writing a harness (a
	// full source file).
	HarnessWallTimeout = 240 * time.Second
)

// Errors of model calls.
var (
	// ErrNoProvider: the client has no provider (LLM_PROVIDER=none); nodes use fallbacks.
	ErrNoProvider = errors.New("no LLM provider configured")
	// ErrNoModels: the provider has no model for the role.
	ErrNoModels = errors.New("the provider has no model for the role")
	// ErrTimeout: the model did not answer within the wall timeout.
	ErrTimeout = errors.New("the model did not answer in time")
	// ErrEmptyReply: the model answered with no text.
	ErrEmptyReply = errors.New("the model answered with an empty reply")
)

// Client makes model calls for the pipeline: a provider plus the settings every call
// shares. The zero value of each optional field is usable. A Client is safe for
// concurrent use.
type Client struct {
	// Provider makes the models. Nil means no provider: every call fails with
	// ErrNoProvider and the nodes use their fallbacks.
	Provider atesor.Provider
	// Timeout is the provider's HTTP timeout; the wall timeout of a call is Timeout +
	// 15 s unless the call sets its own. Zero means the provider's own timeout when it
	// reports one (the providers of package provider report ATESOR_LLM_TIMEOUT), else
	// 120 s.
	Timeout time.Duration
	// Audit records every response. Optional.
	Audit *AuditLog
	// Logger receives a record per failed attempt. Optional.
	Logger *slog.Logger
	// Clock times wall timeouts and Retry-After waits (default: the real clock).
	Clock Clock
	// Repository goes into the audit metadata.
	Repository string
	// Notify, when set, receives a [Notice] for each rejected answer, synchronously.
	// Optional.
	Notify func(Notice)
}

func (c *Client) clock() Clock {
	if c.Clock == nil {
		return RealClock{}
	}
	return c.Clock
}

func (c *Client) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// timeoutReporter is implemented by providers that know their HTTP timeout
// (provider.Base does).
type timeoutReporter interface{ Timeout() time.Duration }

// WallTimeout returns the default wall timeout of a call: the provider timeout + 15 s.
func (c *Client) WallTimeout() time.Duration {
	t := c.Timeout
	if tr, ok := c.Provider.(timeoutReporter); ok && t <= 0 {
		t = tr.Timeout()
	}
	if t <= 0 {
		t = provider.DefaultTimeout
	}
	return t + WallTimeoutMargin
}

// Reply is the answer of one model call.
type Reply struct {
	// Text holds only the text parts of the answer (see [ExtractContent]).
	Text string
	// Message is the answer as the client returned it (thinking parts included).
	Message *schema.Message
	// Model is the model asked (or, when the provider says so, the model that answered).
	Model string
	// Usage counts this call: 1 call, its tokens and cost.
	Usage atesor.Usage
}

// InvokeOption adjusts one [Client.Invoke] call.
type InvokeOption func(*invokeConfig)

type invokeConfig struct {
	wall  time.Duration
	label string
	node  string
	phase string
	spec  *atesor.ModelSpec
}

// WithWallTimeout sets the wall timeout (for example [CuratorWallTimeout]).
func WithWallTimeout(d time.Duration) InvokeOption { return func(c *invokeConfig) { c.wall = d } }

// WithLabel sets the agent label of the audit log entry's role field (for example
// "curator"); when it differs from the role, the metadata's "llm_role" names the pool.
func WithLabel(label string) InvokeOption { return func(c *invokeConfig) { c.label = label } }

// WithNode sets the pipeline node of the audit metadata, as events name it (for example
// "finish").
func WithNode(node string) InvokeOption { return func(c *invokeConfig) { c.node = node } }

// WithPhase sets the phase of the audit metadata (for example "optimize-harness-c").
func WithPhase(phase string) InvokeOption { return func(c *invokeConfig) { c.phase = phase } }

// WithModel calls spec instead of the role's primary model.
func WithModel(spec atesor.ModelSpec) InvokeOption {
	return func(c *invokeConfig) { c.spec = &spec }
}

// Invoke sends msgs to the primary model of role (no validation, no fallback) and returns
// the text parts of the answer. The call is abandoned, and its context cancelled, when
// the wall timeout passes: the error then wraps [ErrTimeout]. An answer with no text
// returns the reply and an error wrapping [ErrEmptyReply]. Errors of HTTP error
// responses wrap *atesor.ProviderError.
func (c *Client) Invoke(ctx context.Context, role atesor.Role, msgs []*schema.Message, opts ...InvokeOption) (Reply, error) {
	cfg := invokeConfig{wall: c.WallTimeout(), label: string(role)}
	for _, o := range opts {
		o(&cfg)
	}
	if c.Provider == nil {
		return Reply{}, ErrNoProvider
	}
	spec := cfg.spec
	if spec == nil {
		pool := c.Provider.Pool(role)
		if len(pool) == 0 {
			return Reply{}, fmt.Errorf("%w %s", ErrNoModels, role)
		}
		spec = &pool[0]
	}
	r, err := c.invoke(ctx, *spec, msgs, cfg.wall, auditMeta{label: cfg.label, node: cfg.node, phase: cfg.phase, attempt: 1})
	if err == nil && r.Text == "" {
		err = fmt.Errorf("%s: %w", spec.Model, ErrEmptyReply)
	}
	return r, err
}

type auditMeta struct {
	label     string
	node      string
	phase     string
	attempt   int
	poolIndex int
	json      bool // ask the provider for a JSON answer (provider.JSONOutput)
}

type result struct {
	msg *schema.Message
	err error
}

// invoke makes one call under the wall timeout and logs a response to the audit log.
func (c *Client) invoke(ctx context.Context, spec atesor.ModelSpec, msgs []*schema.Message, wall time.Duration, meta auditMeta) (Reply, error) {
	reply := Reply{Model: spec.Model, Usage: atesor.Usage{Calls: 1}}
	m, err := c.Provider.ChatModel(ctx, spec)
	if err != nil {
		return reply, fmt.Errorf("prepare model %s: %w", spec.Model, err)
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer, stop := c.clock().After(wall)
	defer stop()
	done := make(chan result, 1) // buffered: an abandoned call still finishes
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("model %s panicked: %v", spec.Model, p)}
			}
		}()
		var opts []model.Option
		if meta.json {
			opts = append(opts, provider.JSONOutput())
		}
		agent := meta.label
		if agent == "" {
			agent = string(spec.Role)
		}
		msg, err := generate(callCtx, m, spec, agent, msgs, opts...)
		done <- result{msg, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-timer:
		cancel(ErrTimeout)
		return reply, fmt.Errorf("%s model %s: no answer within %s: %w", spec.Provider, spec.Model, wall, ErrTimeout)
	case <-ctx.Done():
		cancel(ctx.Err())
		return reply, ctx.Err()
	}
	if res.err != nil {
		return reply, res.err
	}
	reply.Message = res.msg
	reply.Text = ExtractContent(res.msg)
	if used, ok := res.msg.Extra[provider.ExtraModel].(string); ok && used != "" {
		reply.Model = used
	}
	if u := usageOf(res.msg); u != nil {
		reply.Usage.InputTokens, reply.Usage.OutputTokens = u.PromptTokens, u.CompletionTokens
	}
	id, price := ModelPrice(spec, reply.Model)
	if cost, ok := res.msg.Extra[provider.ExtraCostUSD].(float64); ok {
		reply.Usage.CostUSD = cost
		price = atesor.Price{Source: atesor.PriceReported}
	} else {
		reply.Usage.CostUSD = CostAt(price, reply.Usage.InputTokens, reply.Usage.OutputTokens)
	}
	reply.Usage.Prices = map[string]atesor.Price{id: price}
	c.audit(spec, msgs, reply, meta)
	return reply, nil
}

func usageOf(msg *schema.Message) *schema.TokenUsage {
	if msg == nil || msg.ResponseMeta == nil {
		return nil
	}
	return msg.ResponseMeta.Usage
}

func (c *Client) audit(spec atesor.ModelSpec, msgs []*schema.Message, r Reply, meta auditMeta) {
	if c.Audit == nil {
		return
	}
	md := map[string]any{
		"repository": c.Repository,
		"attempt":    meta.attempt,
		"pool_index": meta.poolIndex,
	}
	if meta.node != "" {
		md["node"] = meta.node
	}
	if meta.phase != "" {
		md["phase"] = meta.phase
	}
	if r.Model != spec.Model {
		md["requested_model"] = spec.Model
	}
	label := meta.label
	if label == "" {
		label = string(spec.Role)
	}
	if label != string(spec.Role) {
		md["llm_role"] = string(spec.Role)
	}
	err := c.Audit.Log(Record{
		Role:         label,
		Model:        r.Model,
		CostUSD:      r.Usage.CostUSD,
		InputTokens:  r.Usage.InputTokens,
		OutputTokens: r.Usage.OutputTokens,
		Metadata:     md,
		Prompt:       FormatThread(msgs),
		Response:     r.Text,
	})
	if err != nil {
		c.logger().Warn("LLM audit log", "error", err)
	}
}
