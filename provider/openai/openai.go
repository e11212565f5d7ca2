package openai

import (
	"context"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// DefaultBaseURL is the OpenAI API endpoint used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

func init() {
	provider.Register(provider.OpenAI, func(ctx context.Context, cfg provider.Config) (atesor.Provider, error) {
		return New(cfg)
	})
}

// Provider makes OpenAI chat models. Each role's pool holds one model.
type Provider struct {
	provider.Base
}

var _ atesor.Provider = (*Provider)(nil)

// New builds the provider; cfg.APIKey is required.
func New(cfg provider.Config) (*Provider, error) {
	b, err := provider.NewBase(provider.OpenAI, cfg)
	if err != nil {
		return nil, err
	}
	return &Provider{Base: b}, nil
}

// ChatModel returns a model that sends spec's model, temperature and output cap (as
// max_completion_tokens). Errors wrap *atesor.ProviderError for HTTP error responses.
func (p *Provider) ChatModel(ctx context.Context, spec atesor.ModelSpec) (model.BaseChatModel, error) {
	maxTokens := p.MaxTokens(spec)
	m, err := einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{
		APIKey:              p.Config().APIKey,
		BaseURL:             p.Endpoint(DefaultBaseURL),
		HTTPClient:          p.HTTPClient(),
		Model:               spec.Model,
		Temperature:         spec.Temperature,
		MaxCompletionTokens: &maxTokens,
	})
	return p.Finish(spec, m, err)
}
