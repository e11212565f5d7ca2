package llm

import (
	"context"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// generate makes one model call, with the audit label in the context (see
// [provider.Label]), through Eino's callback mechanism, so a handler
// registered the Eino way (compose.WithCallbacks on a graph run, or
// callbacks.AppendGlobalHandlers) sees every call as a chat model component: OnStart
// with the messages and the model config, then OnEnd with the answer and its token
// usage, or OnError. RunInfo names the model (Name), the provider's type (Type) and
// components.ComponentOfChatModel.
//
// A model that reports its own callbacks (components.Checker, as the eino-ext clients
// do) only gets the RunInfo; for every other model (a fake, an embedder's model) the
// client reports them itself.
func generate(ctx context.Context, m model.BaseChatModel, spec atesor.ModelSpec, agent string, msgs []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	typ, ok := components.GetType(m)
	if !ok {
		typ = spec.Provider
	}
	ctx = callbacks.ReuseHandlers(ctx, &callbacks.RunInfo{Name: spec.Model, Type: typ, Component: components.ComponentOfChatModel})
	ctx = provider.WithLabel(ctx, agent)
	if components.IsCallbacksEnabled(m) {
		return m.Generate(ctx, msgs, opts...)
	}
	cfg := &model.Config{Model: spec.Model, MaxTokens: spec.MaxTokens}
	if spec.Temperature != nil {
		cfg.Temperature = *spec.Temperature
	}
	ctx = callbacks.OnStart(ctx, &model.CallbackInput{Messages: msgs, Config: cfg})
	msg, err := m.Generate(ctx, msgs, opts...)
	if err != nil {
		callbacks.OnError(ctx, err)
		return nil, err
	}
	out := &model.CallbackOutput{Message: msg, Config: cfg}
	if u := usageOf(msg); u != nil {
		out.TokenUsage = &model.TokenUsage{
			PromptTokens:     u.PromptTokens,
			CompletionTokens: u.CompletionTokens,
			TotalTokens:      u.TotalTokens,
		}
		out.TokenUsage.PromptTokenDetails.CachedTokens = u.PromptTokenDetails.CachedTokens
		out.TokenUsage.CompletionTokensDetails.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	callbacks.OnEnd(ctx, out)
	return msg, nil
}
