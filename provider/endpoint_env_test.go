package provider_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

func TestLoadSettingsEndpoint(t *testing.T) {
	endpointPrice := &atesor.Price{Source: "custom endpoint OPENAI_BASE_URL: free unless ATESOR_PRICE_INPUT/ATESOR_PRICE_OUTPUT are set"}
	tests := []struct {
		name    string
		env     map[string]string
		want    provider.Settings
		wantErr []string
	}{
		{"base URL makes the key optional and the models free",
			map[string]string{"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "http://model-server:8080/v1/", "ATESOR_MODEL": "qwen2.5-coder"},
			provider.Settings{Provider: "openai", KeyVariable: "OPENAI_API_KEY", MaxOutputTokens: 8192, Timeout: 120 * time.Second,
				BaseURLVariable: "OPENAI_BASE_URL", BaseURL: "http://model-server:8080/v1",
				Models: map[atesor.Role]string{"planner": "qwen2.5-coder", "scout": "qwen2.5-coder", "fixer": "qwen2.5-coder", "summarizer": "qwen2.5-coder", "supervisor": "qwen2.5-coder", "builder": "qwen2.5-coder"},
				Price:  endpointPrice}, nil},
		{"placeholder key with a base URL is no key",
			map[string]string{"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "https://gw.internal/v1", "OPENAI_API_KEY": "your_key_here"},
			provider.Settings{Provider: "openai", KeyVariable: "OPENAI_API_KEY", MaxOutputTokens: 8192, Timeout: 120 * time.Second,
				BaseURLVariable: "OPENAI_BASE_URL", BaseURL: "https://gw.internal/v1", Price: endpointPrice}, nil},
		{"a gateway key and prices",
			map[string]string{"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "https://gw.internal/v1", "OPENAI_API_KEY": "gw-key", "ATESOR_PRICE_INPUT": "0.5", "ATESOR_PRICE_OUTPUT": "$1.5"},
			provider.Settings{Provider: "openai", KeyVariable: "OPENAI_API_KEY", APIKey: "gw-key", MaxOutputTokens: 8192, Timeout: 120 * time.Second,
				BaseURLVariable: "OPENAI_BASE_URL", BaseURL: "https://gw.internal/v1",
				Price: &atesor.Price{Input: 0.5, Output: 1.5, Source: "ATESOR_PRICE_INPUT/ATESOR_PRICE_OUTPUT"}}, nil},
		{"a role's model wins over ATESOR_MODEL; cloud prices stay the table's",
			map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "k", "ATESOR_MODEL": "m-all", "ATESOR_MODEL_FIXER": " m-fix "},
			provider.Settings{Provider: "anthropic", KeyVariable: "ANTHROPIC_API_KEY", APIKey: "k", MaxOutputTokens: 8192, Timeout: 120 * time.Second,
				BaseURLVariable: "ANTHROPIC_BASE_URL",
				Models:          map[atesor.Role]string{"planner": "m-all", "scout": "m-all", "fixer": "m-fix", "summarizer": "m-all", "supervisor": "m-all", "builder": "m-all"}}, nil},
		{"one role only", map[string]string{"LLM_PROVIDER": "openrouter", "OPENROUTER_API_KEY": "k", "ATESOR_MODEL_SCOUT": "x/y"},
			provider.Settings{Provider: "openrouter", KeyVariable: "OPENROUTER_API_KEY", APIKey: "k", MaxOutputTokens: 8192, Timeout: 120 * time.Second,
				Models: map[atesor.Role]string{"scout": "x/y"}}, nil},
		{"gemini's client needs a key even with a base URL", map[string]string{"GOOGLE_GEMINI_BASE_URL": "http://gemini-proxy:9000"},
			provider.Settings{}, []string{"GOOGLE_API_KEY", "not set"}},
		{"the gemini base URL variable", map[string]string{"GOOGLE_GEMINI_BASE_URL": "http://gemini-proxy:9000", "GOOGLE_API_KEY": "g"},
			provider.Settings{Provider: "gemini", KeyVariable: "GOOGLE_API_KEY", APIKey: "g", MaxOutputTokens: 8192, Timeout: 120 * time.Second,
				BaseURLVariable: "GOOGLE_GEMINI_BASE_URL", BaseURL: "http://gemini-proxy:9000",
				Price: &atesor.Price{Source: "custom endpoint GOOGLE_GEMINI_BASE_URL: free unless ATESOR_PRICE_INPUT/ATESOR_PRICE_OUTPUT are set"}}, nil},
		{"openai without a base URL still needs its key", map[string]string{"LLM_PROVIDER": "openai", "ATESOR_MODEL": "m"}, provider.Settings{}, []string{"OPENAI_API_KEY", "not set"}},
		{"a base URL without a scheme", map[string]string{"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "model-server:8080/v1"}, provider.Settings{}, []string{"OPENAI_BASE_URL", "http://<server>:<port>/v1"}},
		{"a base URL without a host", map[string]string{"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "http:///v1"}, provider.Settings{}, []string{"OPENAI_BASE_URL"}},
		{"the URL's password is not repeated", map[string]string{"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "ftp://u:s3cretpw@h/v1"}, provider.Settings{}, []string{"OPENAI_BASE_URL", "ftp://h/v1"}},
		{"one price only", map[string]string{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "k", "ATESOR_PRICE_INPUT": "1"}, provider.Settings{}, []string{"ATESOR_PRICE_INPUT", "ATESOR_PRICE_OUTPUT", "set both"}},
		{"a negative price", map[string]string{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "k", "ATESOR_PRICE_INPUT": "1", "ATESOR_PRICE_OUTPUT": "-2"}, provider.Settings{}, []string{"ATESOR_PRICE_OUTPUT", "not a price"}},
		{"a word for a price", map[string]string{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "k", "ATESOR_PRICE_INPUT": "free", "ATESOR_PRICE_OUTPUT": "0"}, provider.Settings{}, []string{"ATESOR_PRICE_INPUT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := provider.LoadSettingsFrom(env(tt.env))
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, settings %v", got)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				if strings.Contains(err.Error(), "s3cretpw") {
					t.Errorf("error %q repeats the URL's password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("settings (-want +got):\n%s", d)
			}
		})
	}
}

func TestEnvVariablesListsEveryVariableRead(t *testing.T) {
	vars := provider.EnvVariables()
	if !slices.IsSorted(vars) {
		t.Errorf("not sorted: %v", vars)
	}
	// Every variable LoadSettingsFrom asks for is in the list.
	asked := map[string]bool{}
	for _, p := range provider.KnownProviders() {
		provider.LoadSettingsFrom(func(k string) string {
			asked[k] = true
			switch k {
			case "LLM_PROVIDER":
				return p
			case "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "ANTHROPIC_BASE_URL":
				return "http://h/v1"
			}
			return ""
		})
	}
	for k := range asked {
		if !slices.Contains(vars, k) {
			t.Errorf("LoadSettingsFrom reads %s, which EnvVariables does not list", k)
		}
	}
	for _, want := range []string{"OPENAI_BASE_URL", "ATESOR_MODEL", "ATESOR_MODEL_FIXER", "ATESOR_MODEL_BUILDER", "ATESOR_PRICE_INPUT", "ATESOR_PRICE_OUTPUT", "OPENAI_API_KEY", "LLM_PROVIDER"} {
		if !slices.Contains(vars, want) {
			t.Errorf("EnvVariables lacks %s", want)
		}
	}
	if len(asked) != len(vars) {
		t.Errorf("EnvVariables lists %d variables, LoadSettingsFrom reads %d", len(vars), len(asked))
	}
}

func TestBasePoolAppliesModelsAndPrice(t *testing.T) {
	price := &atesor.Price{Input: 0.2, Output: 0.4, Source: "test"}
	b, err := provider.NewBase("openrouter", provider.Config{BaseURL: "http://h/v1",
		Models: map[atesor.Role]string{atesor.RoleFixer: "local/coder"}, Price: price, FallbackModels: []string{"a/b", "local/coder"}})
	if err != nil {
		t.Fatal(err) // a base URL makes the key optional
	}
	price.Input = 99 // the provider keeps its own copy
	pool := b.Pool(atesor.RoleFixer)
	var models []string
	for _, s := range pool {
		models = append(models, s.Model)
		if s.Price == nil || *s.Price != (atesor.Price{Input: 0.2, Output: 0.4, Source: "test"}) {
			t.Errorf("%s: price %+v", s.Model, s.Price)
		}
	}
	if d := cmp.Diff([]string{"local/coder", "a/b", "openrouter/free"}, models); d != "" {
		t.Errorf("pool (-want +got):\n%s", d)
	}
	if pool[0].Temperature == nil || *pool[0].Temperature != 0.2 {
		t.Errorf("the fixer's temperature is lost: %v", pool[0].Temperature)
	}
	if p := b.Pool(atesor.RoleScout); p[0].Model != "qwen/qwen3-coder:free" {
		t.Errorf("the scout's model changed: %s", p[0].Model)
	}
	if _, err := provider.NewBase("openai", provider.Config{}); err == nil {
		t.Error("no key and no base URL is accepted")
	}
}
