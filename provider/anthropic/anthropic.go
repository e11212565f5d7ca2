package anthropic

import (
	"context"
	"strconv"
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/cloudwego/eino-ext/components/model/claude"
	"github.com/cloudwego/eino/components/model"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// DefaultBaseURL is the Anthropic API endpoint used when Config.BaseURL is empty. It is
// set explicitly, so ANTHROPIC_BASE_URL in the environment does not redirect requests.
const DefaultBaseURL = "https://api.anthropic.com"

func init() {
	provider.Register(provider.Anthropic, func(ctx context.Context, cfg provider.Config) (atesor.Provider, error) {
		return New(cfg)
	})
}

// Provider makes Claude chat models, one client per model and effort.
type Provider struct {
	provider.Base

	mu     sync.Mutex
	models map[string]model.BaseChatModel // by model, effort and cap
}

var _ atesor.Provider = (*Provider)(nil)

// New builds the provider; cfg.APIKey is required.
func New(cfg provider.Config) (*Provider, error) {
	b, err := provider.NewBase(provider.Anthropic, cfg)
	if err != nil {
		return nil, err
	}
	return &Provider{Base: b}, nil
}

// ChatModel returns a model for spec: no temperature (spec.Temperature is ignored),
// max_tokens = spec.MaxTokens, adaptive thinking and output_config.effort = spec.Effort.
//
// The effort can only be set when a client is made, so the provider keeps one client per
// model, effort and output cap and hands it out again.
func (p *Provider) ChatModel(ctx context.Context, spec atesor.ModelSpec) (model.BaseChatModel, error) {
	key := spec.Model + "\x00" + spec.Effort + "\x00" + strconv.Itoa(p.MaxTokens(spec))
	p.mu.Lock()
	defer p.mu.Unlock()
	if m, ok := p.models[key]; ok {
		return m, nil
	}
	m, err := p.newModel(ctx, spec)
	if err != nil {
		return nil, err
	}
	if p.models == nil {
		p.models = map[string]model.BaseChatModel{}
	}
	p.models[key] = m
	return m, nil
}

func (p *Provider) newModel(ctx context.Context, spec atesor.ModelSpec) (model.BaseChatModel, error) {
	base := p.Endpoint(DefaultBaseURL)
	mc := &claude.Config{
		APIKey:         p.Config().APIKey,
		BaseURL:        &base,
		HTTPClient:     p.HTTPClient(),
		Model:          spec.Model,
		MaxTokens:      p.MaxTokens(spec),
		ThinkingConfig: &sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}},
	}
	if spec.Effort != "" {
		mc.AdditionalRequestFields = map[string]any{"output_config.effort": spec.Effort}
	}
	m, err := claude.NewChatModel(ctx, mc)
	spec.Temperature = nil
	return p.Finish(spec, m, err)
}
