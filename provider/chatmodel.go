package provider

import (
	"context"
	"errors"
	"maps"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
)

// Keys of schema.Message.Extra that [Wrap] fills on a successful answer.
const (
	// ExtraCostUSD holds the cost in USD (float64) the provider reported for the answer
	// (OpenRouter usage.cost). Absent when the provider reports none.
	ExtraCostUSD = "atesor_cost_usd"
	// ExtraModel holds the model id (string) that answered, when the answer names it.
	ExtraModel = "atesor_model"
)

// Wrap returns a model that calls inner with a [Capture] in the context. A failed call
// returns an *Error that wraps the *atesor.ProviderError of the HTTP error response
// (errors.As works) and the client's own error; a successful answer gets the reported
// cost and model in its Extra map. secrets (the API key) are blanked out of error texts.
// The Tap must be in the HTTP client inner uses, see [Config.Client].
func Wrap(inner model.BaseChatModel, spec atesor.ModelSpec, secrets ...string) model.BaseChatModel {
	return &tapped{inner: inner, provider: spec.Provider, model: spec.Model, secrets: secrets}
}

type tapped struct {
	inner    model.BaseChatModel
	provider string
	model    string
	secrets  []string
}

var (
	_ model.BaseChatModel = (*tapped)(nil)
	_ components.Checker  = (*tapped)(nil)
	_ components.Typer    = (*tapped)(nil)
)

// Generate implements model.BaseChatModel.
func (m *tapped) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ctx, capt := WithCapture(ctx)
	capt.setAbort(cancel)
	msg, err := m.inner.Generate(ctx, in, opts...)
	if err != nil {
		return nil, m.wrapErr(err, capt)
	}
	if msg == nil {
		return nil, &Error{msg: m.provider + " model " + m.model + ": the client returned no message"}
	}
	cost, hasCost := capt.Cost()
	used := capt.Model()
	if hasCost || used != "" {
		out := *msg
		out.Extra = maps.Clone(msg.Extra)
		if out.Extra == nil {
			out.Extra = map[string]any{}
		}
		if hasCost {
			out.Extra[ExtraCostUSD] = cost
		}
		if used != "" {
			out.Extra[ExtraModel] = used
		}
		msg = &out
	}
	return msg, nil
}

// Stream implements model.BaseChatModel. Only errors returned when the stream opens
// carry a ProviderError.
func (m *tapped) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	ctx, capt := WithCapture(ctx)
	sr, err := m.inner.Stream(ctx, in, opts...)
	if err != nil {
		return nil, m.wrapErr(err, capt)
	}
	return sr, nil
}

// GetType implements components.Typer.
func (m *tapped) GetType() string {
	if t, ok := components.GetType(m.inner); ok {
		return t
	}
	return m.provider
}

// IsCallbacksEnabled implements components.Checker: the eino-ext clients report their
// own callbacks.
func (m *tapped) IsCallbacksEnabled() bool { return components.IsCallbacksEnabled(m.inner) }

func (m *tapped) wrapErr(err error, capt *Capture) error {
	e := &Error{cause: err, transport: capt.TransportErr()}
	if f := capt.Failure(); f != nil {
		f.Provider, f.Model = m.provider, m.model
		e.provider = f
		e.msg = f.Error()
	} else if capt.wasAborted() {
		// The client saw the context the tap ended; the transport error is the cause.
		e.msg = m.provider + " model " + m.model + ": " + e.transport.Error()
	} else {
		e.msg = m.provider + " model " + m.model + ": " + err.Error()
	}
	e.msg = Redact(e.msg, m.secrets...)
	return e
}

// Error is the error of a failed model call made through [Wrap]. Its text never holds the
// API key. It unwraps to the *atesor.ProviderError of an HTTP error response (if any),
// the client's error, and the transport error (if any), so errors.As and errors.Is
// (context.DeadlineExceeded, net.Error timeouts) see all three.
type Error struct {
	msg       string
	provider  *atesor.ProviderError
	cause     error
	transport error
}

// Error returns the message, with the API key blanked out.
func (e *Error) Error() string { return e.msg }

// Unwrap returns the wrapped errors.
func (e *Error) Unwrap() []error {
	var out []error
	if e.provider != nil {
		out = append(out, e.provider)
	}
	if e.cause != nil {
		out = append(out, e.cause)
	}
	if e.transport != nil && !errors.Is(e.cause, e.transport) {
		out = append(out, e.transport)
	}
	return out
}
