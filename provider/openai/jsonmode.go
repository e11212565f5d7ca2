package openai

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// jsonFormat is the response_format of a request that wants a JSON object.
var jsonFormat = map[string]any{"response_format": map[string]any{"type": "json_object"}}

// jsonMode adds response_format json_object to the requests of calls that ask for JSON
// ([provider.JSONOutput]). A server that rejects the field (HTTP 400 or 422, as some
// local servers and gateways do) gets the request again without it, and the provider
// stops sending it; a server that ignores it needs nothing, since package llm extracts
// the JSON object from the text either way.
type jsonMode struct {
	inner model.BaseChatModel
	off   *atomic.Bool // shared by the provider's models: the endpoint rejected the field
	p     *Provider
	model string
}

var (
	_ model.BaseChatModel = (*jsonMode)(nil)
	_ components.Checker  = (*jsonMode)(nil)
	_ components.Typer    = (*jsonMode)(nil)
)

// Generate implements model.BaseChatModel.
func (m *jsonMode) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if !provider.GetCallOptions(opts...).JSON || m.off.Load() {
		return m.inner.Generate(ctx, in, opts...)
	}
	withJSON := append(slices.Clip(opts), einoopenai.WithExtraFields(jsonFormat))
	msg, err := m.inner.Generate(ctx, in, withJSON...)
	var pe *atesor.ProviderError
	if err == nil || ctx.Err() != nil || !errors.As(err, &pe) || (pe.Status != 400 && pe.Status != 422) {
		return msg, err
	}
	msg, err2 := m.inner.Generate(ctx, in, opts...)
	if err2 != nil {
		return nil, err2
	}
	// Only a request that fails with the field and succeeds without it proves the
	// endpoint rejects it.
	m.off.Store(true)
	m.p.Config().Logger.Info("the endpoint rejects response_format; asking for JSON in the prompt only",
		"provider", m.p.Name(), "model", m.model, "status", pe.Status)
	return msg, nil
}

// Stream implements model.BaseChatModel; the pipeline never streams, so it sends no
// response_format.
func (m *jsonMode) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.inner.Stream(ctx, in, opts...)
}

// GetType implements components.Typer.
func (m *jsonMode) GetType() string {
	if t, ok := components.GetType(m.inner); ok {
		return t
	}
	return provider.OpenAI
}

// IsCallbacksEnabled implements components.Checker.
func (m *jsonMode) IsCallbacksEnabled() bool { return components.IsCallbacksEnabled(m.inner) }
