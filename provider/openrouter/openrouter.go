package openrouter

import (
	"context"

	einoopenrouter "github.com/cloudwego/eino-ext/components/model/openrouter"
	"github.com/cloudwego/eino/components/model"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// DefaultBaseURL is the OpenRouter API endpoint used when Config.BaseURL is empty.
const DefaultBaseURL = "https://openrouter.ai/api/v1"

func init() {
	provider.Register(provider.OpenRouter, func(ctx context.Context, cfg provider.Config) (atesor.Provider, error) {
		return New(cfg)
	})
}

// Provider makes OpenRouter chat models.
type Provider struct {
	provider.Base
}

var _ atesor.Provider = (*Provider)(nil)

// New builds the provider; cfg.APIKey is required.
func New(cfg provider.Config) (*Provider, error) {
	b, err := provider.NewBase(provider.OpenRouter, cfg)
	if err != nil {
		return nil, err
	}
	return &Provider{Base: b}, nil
}

// ChatModel returns a model that sends spec's model, temperature (set in the client's
// configuration, since the client drops a per-call temperature), max_tokens, the models
// array and usage: {include: true}.
func (p *Provider) ChatModel(ctx context.Context, spec atesor.ModelSpec) (model.BaseChatModel, error) {
	maxTokens := p.MaxTokens(spec)
	m, err := einoopenrouter.NewChatModel(ctx, &einoopenrouter.Config{
		APIKey:      p.Config().APIKey,
		BaseURL:     p.Endpoint(DefaultBaseURL),
		HTTPClient:  p.HTTPClient(),
		Model:       spec.Model,
		Models:      provider.OpenRouterModels(spec.Model, spec.Fallbacks),
		Temperature: spec.Temperature,
		MaxTokens:   &maxTokens,
		ExtraFields: map[string]any{"usage": map[string]any{"include": true}},
	})
	return p.Finish(spec, m, err)
}
