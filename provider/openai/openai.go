package openai

import (
	"context"
	"sync/atomic"

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

// Provider makes OpenAI chat models. Each role's pool holds one model. With a base URL
// it reaches any server that speaks the chat-completions protocol: a local model server
// or a company gateway.
type Provider struct {
	provider.Base
	noJSONFormat atomic.Bool // the endpoint rejected response_format
}

var _ atesor.Provider = (*Provider)(nil)

// New builds the provider; cfg.APIKey is required unless cfg.BaseURL is set.
func New(cfg provider.Config) (*Provider, error) {
	b, err := provider.NewBase(provider.OpenAI, cfg)
	if err != nil {
		return nil, err
	}
	return &Provider{Base: b}, nil
}

// ChatModel returns a model that sends spec's model, temperature and output cap (as
// max_completion_tokens), and response_format json_object when the call asks for JSON
// ([provider.JSONOutput]) unless the endpoint rejected it before. Errors wrap
// *atesor.ProviderError for HTTP error responses.
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
	wrapped, err := p.Finish(spec, m, err)
	if err != nil {
		return nil, err
	}
	return &jsonMode{inner: wrapped, off: &p.noJSONFormat, p: p, model: spec.Model}, nil
}
