package atesor

import (
	"context"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Generator is the one method the pipeline calls on a chat model: it never streams.
type Generator interface {
	Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error)
}

// GenerateOnly adapts a model that only generates to the model.BaseChatModel a
// [Provider] returns: its Stream makes one Generate call and returns the answer as a
// single chunk. The type and callback capabilities of g (GetType, IsCallbacksEnabled, as
// Eino's components.Typer and components.Checker) are kept.
func GenerateOnly(g Generator) model.BaseChatModel { return generateOnly{g} }

type generateOnly struct{ g Generator }

var _ model.BaseChatModel = generateOnly{}

// Generate calls the wrapped model.
func (m generateOnly) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	return m.g.Generate(ctx, in, opts...)
}

// Stream returns Generate's answer as a one-chunk stream.
func (m generateOnly) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.g.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// GetType is the wrapped model's type (Eino's components.Typer), or "GenerateOnly".
func (m generateOnly) GetType() string {
	if t, ok := m.g.(interface{ GetType() string }); ok {
		return t.GetType()
	}
	return "GenerateOnly"
}

// IsCallbacksEnabled reports whether the wrapped model reports its own Eino callbacks
// (components.Checker).
func (m generateOnly) IsCallbacksEnabled() bool {
	if c, ok := m.g.(interface{ IsCallbacksEnabled() bool }); ok {
		return c.IsCallbacksEnabled()
	}
	return false
}
