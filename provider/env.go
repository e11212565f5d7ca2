package provider

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The environment variables the provider layer reads.
const (
	EnvProvider            = "LLM_PROVIDER"
	EnvMaxOutputTokens     = "ATESOR_MAX_OUTPUT_TOKENS"
	EnvTimeout             = "ATESOR_LLM_TIMEOUT"
	EnvOpenRouterFallbacks = "OPENROUTER_FALLBACK_MODELS"
)

// Defaults of the environment.
const (
	DefaultProvider        = Gemini
	DefaultMaxOutputTokens = 8192
	DefaultTimeout         = 120 * time.Second
)

// placeholderKey is the value the example .env file ships with.
const placeholderKey = "your_key_here"

// KeyVariable returns the environment variable that holds the API key of a provider
// (GOOGLE_API_KEY for gemini, OPENAI_API_KEY, OPENROUTER_API_KEY, ANTHROPIC_API_KEY), or
// "" for a provider that needs none or is unknown.
func KeyVariable(providerName string) string {
	switch providerName {
	case Gemini:
		return "GOOGLE_API_KEY"
	case OpenAI:
		return "OPENAI_API_KEY"
	case OpenRouter:
		return "OPENROUTER_API_KEY"
	case Anthropic:
		return "ANTHROPIC_API_KEY"
	}
	return ""
}

// KnownProviders lists the provider names LLM_PROVIDER accepts, none included, sorted.
func KnownProviders() []string {
	return []string{Anthropic, Gemini, None, OpenAI, OpenRouter}
}

// Settings is the provider configuration read from the environment.
type Settings struct {
	// Provider is the LLM_PROVIDER value (gemini when unset), lower case.
	Provider string
	// KeyVariable names the variable the API key came from; empty for none.
	KeyVariable string
	// APIKey is the key; String never prints it.
	APIKey string
	// MaxOutputTokens is the output token cap (ATESOR_MAX_OUTPUT_TOKENS, 8192).
	MaxOutputTokens int
	// Timeout is the HTTP timeout (ATESOR_LLM_TIMEOUT seconds, 120).
	Timeout time.Duration
	// OpenRouterFallbacks is OPENROUTER_FALLBACK_MODELS split at commas; nil when unset.
	OpenRouterFallbacks []string
}

// String describes the settings without the API key.
func (s Settings) String() string {
	key := "unset"
	if s.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("provider=%s %s=%s max_output_tokens=%d timeout=%s", s.Provider, s.KeyVariable, key, s.MaxOutputTokens, s.Timeout)
}

// Config turns the settings into a provider Config.
func (s Settings) Config() Config {
	return Config{
		APIKey:          s.APIKey,
		Timeout:         s.Timeout,
		MaxOutputTokens: s.MaxOutputTokens,
		FallbackModels:  s.OpenRouterFallbacks,
	}
}

// LoadSettings reads the provider settings from the process environment.
func LoadSettings() (Settings, error) { return LoadSettingsFrom(os.Getenv) }

// LoadSettingsFrom reads the provider settings through getenv. It fails for an unknown
// provider name (listing the known ones), for a missing API key or the placeholder
// your_key_here (naming the variable to set), and for malformed numbers.
func LoadSettingsFrom(getenv func(string) string) (Settings, error) {
	s := Settings{
		Provider:        strings.ToLower(strings.TrimSpace(getenv(EnvProvider))),
		MaxOutputTokens: DefaultMaxOutputTokens,
		Timeout:         DefaultTimeout,
	}
	if s.Provider == "" {
		s.Provider = DefaultProvider
	}
	if err := checkKnown(s.Provider); err != nil {
		return s, err
	}
	if v := strings.TrimSpace(getenv(EnvMaxOutputTokens)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return s, fmt.Errorf("%s=%q is not a positive whole number of tokens: set it to a number such as %d or unset it", EnvMaxOutputTokens, v, DefaultMaxOutputTokens)
		}
		s.MaxOutputTokens = n
	}
	if v := strings.TrimSpace(getenv(EnvTimeout)); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 24*3600 {
			return s, fmt.Errorf("%s=%q is not a positive number of seconds: set it to a number such as %d or unset it", EnvTimeout, v, int(DefaultTimeout.Seconds()))
		}
		s.Timeout = time.Duration(f * float64(time.Second))
	}
	if v := strings.TrimSpace(getenv(EnvOpenRouterFallbacks)); v != "" {
		for _, m := range strings.Split(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				s.OpenRouterFallbacks = append(s.OpenRouterFallbacks, m)
			}
		}
	}
	if s.Provider == None {
		return s, nil
	}
	s.KeyVariable = KeyVariable(s.Provider)
	key := strings.TrimSpace(getenv(s.KeyVariable))
	switch key {
	case "":
		return s, &MissingKeyError{Provider: s.Provider, Variable: s.KeyVariable}
	case placeholderKey:
		return s, &MissingKeyError{Provider: s.Provider, Variable: s.KeyVariable, Placeholder: true}
	}
	s.APIKey = key
	return s, nil
}

func checkKnown(name string) error {
	if KeyVariable(name) == "" && name != None {
		return fmt.Errorf("unknown %s %q: known providers are %s", EnvProvider, name, strings.Join(KnownProviders(), ", "))
	}
	return nil
}

// MissingKeyError reports a provider whose API key variable is unset or still holds the
// placeholder your_key_here.
type MissingKeyError struct {
	// Provider is the LLM_PROVIDER value.
	Provider string
	// Variable is the key variable to set, for example OPENROUTER_API_KEY.
	Variable string
	// Placeholder is true when the variable holds your_key_here.
	Placeholder bool
}

// Error names the variable to set and the way to run without a model.
func (e *MissingKeyError) Error() string {
	what := "is not set"
	if e.Placeholder {
		what = "still holds the placeholder " + placeholderKey
	}
	return fmt.Sprintf("%s %s: set it to your %s API key, or choose another provider with %s (%s=none runs without a model)",
		e.Variable, what, e.Provider, EnvProvider, EnvProvider)
}
