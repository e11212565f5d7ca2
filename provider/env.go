package provider

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/redact"
)

// The environment variables the provider layer reads. [EnvVariables] lists them all,
// with the API key, base-URL and per-role model variables.
const (
	EnvProvider            = "LLM_PROVIDER"
	EnvMaxOutputTokens     = "ATESOR_MAX_OUTPUT_TOKENS"
	EnvTimeout             = "ATESOR_LLM_TIMEOUT"
	EnvOpenRouterFallbacks = "OPENROUTER_FALLBACK_MODELS"
	// EnvModel sets the model of every role, replacing the built-in table.
	EnvModel = "ATESOR_MODEL"
	// EnvModelRolePrefix followed by the upper-case role (ATESOR_MODEL_FIXER) sets the
	// model of one role; it wins over ATESOR_MODEL. See [ModelVariable].
	EnvModelRolePrefix = "ATESOR_MODEL_"
	// EnvPriceInput and EnvPriceOutput set the price of every model in US dollars per
	// million input and output tokens (set both).
	EnvPriceInput  = "ATESOR_PRICE_INPUT"
	EnvPriceOutput = "ATESOR_PRICE_OUTPUT"
)

// ModelVariable returns the variable that sets the model of one role, for example
// ATESOR_MODEL_FIXER.
func ModelVariable(role atesor.Role) string {
	return EnvModelRolePrefix + strings.ToUpper(string(role))
}

// BaseURLVariable returns the variable that holds a provider's endpoint, the one its
// vendor's SDKs document: OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL, ANTHROPIC_BASE_URL;
// "" for openrouter (it has no SDK of its own) and unknown names.
func BaseURLVariable(providerName string) string {
	switch providerName {
	case OpenAI:
		return "OPENAI_BASE_URL"
	case Gemini:
		return "GOOGLE_GEMINI_BASE_URL"
	case Anthropic:
		return "ANTHROPIC_BASE_URL"
	}
	return ""
}

// EnvVariables lists every environment variable the provider layer reads, sorted: the
// provider choice, the API keys, the base URLs, the model and price overrides (one
// ATESOR_MODEL_<ROLE> per role) and the limits. The CLI loads exactly these (with its
// own) from .env files.
func EnvVariables() []string {
	out := []string{EnvProvider, EnvMaxOutputTokens, EnvTimeout, EnvOpenRouterFallbacks, EnvModel, EnvPriceInput, EnvPriceOutput}
	for _, p := range KnownProviders() {
		for _, v := range []string{KeyVariable(p), BaseURLVariable(p)} {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	for _, r := range atesor.Roles() {
		out = append(out, ModelVariable(r))
	}
	slices.Sort(out)
	return out
}

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

// EnvKeys returns the API keys set in the environment's key variables (see
// [KeyVariable]), so that a log can blank out a key that reaches a prompt or a reply.
func EnvKeys() []string {
	var out []string
	for _, name := range KnownProviders() {
		if v := KeyVariable(name); v != "" {
			if key := strings.TrimSpace(os.Getenv(v)); key != "" {
				out = append(out, key)
			}
		}
	}
	return out
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
	// BaseURLVariable names the provider's base-URL variable ([BaseURLVariable]); empty
	// when the provider has none.
	BaseURLVariable string
	// BaseURL is the endpoint that variable holds: a local model server or a gateway.
	// Empty means the provider's public endpoint. With a base URL the API key is
	// optional (local servers often need none), except for gemini, whose client
	// requires one.
	BaseURL string
	// Models replaces the table's model of some roles: ATESOR_MODEL for every role,
	// ATESOR_MODEL_<ROLE> for one. Nil when none is set.
	Models map[atesor.Role]string
	// Price is the price of every model: ATESOR_PRICE_INPUT and ATESOR_PRICE_OUTPUT, or
	// zero for a custom endpoint (BaseURL set) when they are unset. Nil means the
	// built-in price table of package llm.
	Price *atesor.Price
}

// String describes the settings without the API key.
func (s Settings) String() string {
	key := "unset"
	if s.APIKey != "" {
		key = "set"
	}
	out := fmt.Sprintf("provider=%s %s=%s max_output_tokens=%d timeout=%s", s.Provider, s.KeyVariable, key, s.MaxOutputTokens, s.Timeout)
	if s.BaseURL != "" {
		out += fmt.Sprintf(" base_url=%s", RedactURL(s.BaseURL))
	}
	for _, r := range atesor.Roles() {
		if m := s.Models[r]; m != "" {
			out += fmt.Sprintf(" model_%s=%s", r, m)
		}
	}
	if s.Price != nil {
		out += fmt.Sprintf(" price=%g/%g", s.Price.Input, s.Price.Output)
	}
	return out
}

// RedactURL returns u without its user information (a gateway URL may carry a
// password), by the module's one rule for credentials in URLs.
func RedactURL(u string) string { return redact.URLs(u) }

// Config turns the settings into a provider Config.
func (s Settings) Config() Config {
	return Config{
		APIKey:          s.APIKey,
		Timeout:         s.Timeout,
		MaxOutputTokens: s.MaxOutputTokens,
		FallbackModels:  s.OpenRouterFallbacks,
		BaseURL:         s.BaseURL,
		Models:          s.Models,
		Price:           s.Price,
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
	if err := s.readEndpoint(getenv); err != nil {
		return s, err
	}
	s.KeyVariable = KeyVariable(s.Provider)
	key := strings.TrimSpace(getenv(s.KeyVariable))
	switch {
	case s.BaseURL != "" && s.Provider != Gemini && (key == "" || key == placeholderKey):
		// A local server needs no key; a gateway that does says so with a 401. (The
		// genai client refuses to start without a key, so gemini keeps needing one.)
		key = ""
	case key == "":
		return s, &MissingKeyError{Provider: s.Provider, Variable: s.KeyVariable}
	case key == placeholderKey:
		return s, &MissingKeyError{Provider: s.Provider, Variable: s.KeyVariable, Placeholder: true}
	}
	s.APIKey = key
	return s, nil
}

// readEndpoint reads the base URL, the model overrides and the prices.
func (s *Settings) readEndpoint(getenv func(string) string) error {
	if v := BaseURLVariable(s.Provider); v != "" {
		s.BaseURLVariable = v
		if u := strings.TrimSpace(getenv(v)); u != "" {
			p, err := url.Parse(u)
			if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				return fmt.Errorf("%s=%q is not an http(s) URL: set it to the server's API root, for example http://<server>:<port>/v1, or unset it", v, RedactURL(u))
			}
			s.BaseURL = strings.TrimRight(u, "/")
		}
	}
	all := strings.TrimSpace(getenv(EnvModel))
	for _, r := range atesor.Roles() {
		m := strings.TrimSpace(getenv(ModelVariable(r)))
		if m == "" {
			m = all
		}
		if m != "" {
			if s.Models == nil {
				s.Models = map[atesor.Role]string{}
			}
			s.Models[r] = m
		}
	}
	in, inSet, err := priceVar(getenv, EnvPriceInput)
	if err != nil {
		return err
	}
	out, outSet, err := priceVar(getenv, EnvPriceOutput)
	if err != nil {
		return err
	}
	switch {
	case inSet && outSet:
		s.Price = &atesor.Price{Input: in, Output: out, Source: EnvPriceInput + "/" + EnvPriceOutput}
	case inSet || outSet:
		return fmt.Errorf("only one of %s and %s is set: set both, in US dollars per million tokens (0 for a free model)", EnvPriceInput, EnvPriceOutput)
	case s.BaseURL != "":
		s.Price = &atesor.Price{Source: "custom endpoint " + s.BaseURLVariable + ": free unless " + EnvPriceInput + "/" + EnvPriceOutput + " are set"}
	}
	return nil
}

func priceVar(getenv func(string) string, name string) (float64, bool, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, fmt.Errorf("%s=%q is not a price: set it to US dollars per million tokens, such as 2.50 (0 for a free model), or unset it", name, v)
	}
	return f, true, nil
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
