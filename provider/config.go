package provider

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cloudwego/eino/components/model"

	"github.com/eclipse-atesor/atesor-go"
)

// Config builds a provider without the environment: embedders and tests fill it in and
// pass it to the New function of a provider package.
type Config struct {
	// APIKey is required by the real providers unless BaseURL is set (a local model
	// server often needs no key).
	APIKey string
	// BaseURL overrides the provider's API endpoint: a local model server, a company
	// gateway, an httptest server in tests. Empty means the provider's public endpoint.
	BaseURL string
	// Models replaces the built-in table's model of the roles it names (the first model
	// of the role's pool); the role's temperature and effort stay.
	Models map[atesor.Role]string
	// Price, when set, is the price of every model of the provider (see
	// atesor.ModelSpec.Price); nil means the built-in price table of package llm.
	Price *atesor.Price
	// HTTPClient is the client requests go through. Optional: nil makes one. The provider
	// works on a copy whose transport is wrapped in the [Tap]; the caller's client is
	// not changed.
	HTTPClient *http.Client
	// Timeout is the HTTP timeout, set on the client (default 120 s). A given HTTPClient
	// keeps its own Timeout when it has one.
	Timeout time.Duration
	// MaxOutputTokens is the output token cap of every model (default 8192).
	MaxOutputTokens int
	// FallbackModels replaces the 6 default OpenRouter fallbacks (OpenRouter only).
	FallbackModels []string
	// Logger receives debug records of failed requests (never keys). Optional.
	Logger *slog.Logger
	// Now is the clock used to read HTTP-date Retry-After headers. Optional.
	Now func() time.Time
}

// ErrNoAPIKey is returned by the New function of a real provider given no API key.
var ErrNoAPIKey = errors.New("no API key given")

// WithDefaults returns c with the defaults filled in.
func (c Config) WithDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	c.FallbackModels = slices.Clone(c.FallbackModels)
	c.Models = maps.Clone(c.Models)
	if c.Price != nil {
		p := *c.Price
		c.Price = &p
	}
	return c
}

// Client returns the HTTP client a provider uses: a copy of c.HTTPClient (or a new
// client) whose transport is wrapped in a [Tap] and whose Timeout is c.Timeout unless the
// given client has its own.
func (c Config) Client(providerName string) *http.Client {
	c = c.WithDefaults()
	var hc http.Client
	if c.HTTPClient != nil {
		hc = *c.HTTPClient // a shallow copy: the caller's client is never changed
	}
	if hc.Timeout <= 0 {
		hc.Timeout = c.Timeout
	}
	hc.Transport = &Tap{Base: hc.Transport, Provider: providerName, Now: c.Now, Logger: c.Logger}
	return &hc
}

// Base holds what every provider has in common: its name and configuration. Provider
// packages embed it and add ChatModel.
type Base struct {
	name string
	cfg  Config
	hc   *http.Client
}

// NewBase checks cfg (a real provider needs an API key, unless it has a base URL) and
// prepares the shared HTTP client.
func NewBase(name string, cfg Config) (Base, error) {
	if cfg.APIKey == "" && cfg.BaseURL == "" {
		v := KeyVariable(name)
		return Base{}, fmt.Errorf("%s provider: %w (set %s or Config.APIKey)", name, ErrNoAPIKey, v)
	}
	cfg = cfg.WithDefaults()
	return Base{name: name, cfg: cfg, hc: cfg.Client(name)}, nil
}

// Name returns the provider name.
func (b Base) Name() string { return b.name }

// Config returns the provider configuration with defaults filled in.
func (b Base) Config() Config { return b.cfg }

// HTTPClient returns the tapped HTTP client shared by the provider's models.
func (b Base) HTTPClient() *http.Client { return b.hc }

// Pool returns the role's model pool (see [BuildPool]), with the configured model of
// the role (Config.Models) first and the configured price (Config.Price) on every spec.
func (b Base) Pool(role atesor.Role) []atesor.ModelSpec {
	pool := buildPool(b.name, role, b.cfg.Models[role], b.cfg.MaxOutputTokens, b.cfg.FallbackModels)
	if b.cfg.Price != nil {
		for i := range pool {
			p := *b.cfg.Price
			pool[i].Price = &p
		}
	}
	return pool
}

// Timeout returns the HTTP timeout of the provider's requests. Package llm adds 15 s to
// it for the wall timeout of a call, so the HTTP timeout fires first.
func (b Base) Timeout() time.Duration { return b.cfg.Timeout }

// Endpoint returns the configured base URL without a trailing slash, or def when none
// is configured.
func (b Base) Endpoint(def string) string {
	if u := strings.TrimRight(b.cfg.BaseURL, "/"); u != "" {
		return u
	}
	return def
}

// MaxTokens returns the output cap of spec, or the configured cap when spec has none.
func (b Base) MaxTokens(spec atesor.ModelSpec) int {
	if spec.MaxTokens > 0 {
		return spec.MaxTokens
	}
	return b.cfg.MaxOutputTokens
}

// Finish completes ChatModel in a provider package: given the model its client built
// for spec (and the constructor's error), it returns the model wrapped for this
// provider (see [Wrap]: provider errors, reported cost, the key blanked out of errors),
// or an error naming the provider and model.
func (b Base) Finish(spec atesor.ModelSpec, m model.BaseChatModel, err error) (model.BaseChatModel, error) {
	if err != nil {
		return nil, fmt.Errorf("create %s model %s: %w", b.name, spec.Model, err)
	}
	spec.Provider = b.name
	return Wrap(m, spec, b.cfg.APIKey), nil
}
