package openrouter

import (
	"context"
	"fmt"
	"strings"

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
	cfg := p.Config()
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	mc := &einoopenrouter.Config{
		APIKey:      cfg.APIKey,
		BaseURL:     base,
		HTTPClient:  p.HTTPClient(),
		Model:       spec.Model,
		Models:      provider.OpenRouterModels(spec.Model, spec.Fallbacks),
		Temperature: spec.Temperature,
		ExtraFields: map[string]any{"usage": map[string]any{"include": true}},
	}
	if spec.MaxTokens > 0 {
		n := spec.MaxTokens
		mc.MaxTokens = &n
	}
	m, err := einoopenrouter.NewChatModel(ctx, mc)
	if err != nil {
		return nil, fmt.Errorf("create openrouter model %s: %w", spec.Model, err)
	}
	spec.Provider = provider.OpenRouter
	return provider.Wrap(m, spec, cfg.APIKey), nil
}
