package gemini

import (
	"context"
	"fmt"
	"strings"

	einogemini "github.com/cloudwego/eino-ext/components/model/gemini"
	"github.com/cloudwego/eino/components/model"
	"google.golang.org/genai"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// DefaultBaseURL is the Gemini API endpoint used when Config.BaseURL is empty. It is set
// explicitly, so the genai environment variables do not redirect requests.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

func init() {
	provider.Register(provider.Gemini, func(ctx context.Context, cfg provider.Config) (atesor.Provider, error) {
		return New(ctx, cfg)
	})
}

// Provider makes Gemini chat models. Each role's pool holds one model.
type Provider struct {
	provider.Base
	client *genai.Client
}

var _ atesor.Provider = (*Provider)(nil)

// New builds the provider and its genai client; cfg.APIKey is required.
func New(ctx context.Context, cfg provider.Config) (*Provider, error) {
	b, err := provider.NewBase(provider.Gemini, cfg)
	if err != nil {
		return nil, err
	}
	c := b.Config()
	base := b.Endpoint(strings.TrimRight(DefaultBaseURL, "/")) + "/"
	timeout := c.Timeout
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      c.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  b.HTTPClient(),
		HTTPOptions: genai.HTTPOptions{BaseURL: base, Timeout: &timeout},
	})
	if err != nil {
		return nil, fmt.Errorf("create gemini client: %s", provider.Redact(err.Error(), c.APIKey))
	}
	return &Provider{Base: b, client: client}, nil
}

// ChatModel returns a model that sends spec's model, temperature and output cap
// (maxOutputTokens).
func (p *Provider) ChatModel(ctx context.Context, spec atesor.ModelSpec) (model.BaseChatModel, error) {
	maxTokens := p.MaxTokens(spec)
	m, err := einogemini.NewChatModel(ctx, &einogemini.Config{
		Client:      p.client,
		Model:       spec.Model,
		Temperature: spec.Temperature,
		MaxTokens:   &maxTokens,
	})
	return p.Finish(spec, m, err)
}
