package provider_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/provider"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    provider.Settings
		wantErr []string // substrings of the error
	}{
		{"default gemini", map[string]string{"GOOGLE_API_KEY": "k1"},
			provider.Settings{Provider: "gemini", KeyVariable: "GOOGLE_API_KEY", APIKey: "k1", MaxOutputTokens: 8192, Timeout: 120 * time.Second, BaseURLVariable: "GOOGLE_GEMINI_BASE_URL"}, nil},
		{"missing key names the variable", map[string]string{"LLM_PROVIDER": "openrouter"}, provider.Settings{}, []string{"OPENROUTER_API_KEY", "not set"}},
		{"placeholder key", map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "your_key_here"}, provider.Settings{}, []string{"ANTHROPIC_API_KEY", "placeholder"}},
		{"unknown provider lists known", map[string]string{"LLM_PROVIDER": "mistral"}, provider.Settings{}, []string{"mistral", "anthropic, gemini, none, openai, openrouter"}},
		{"none needs no key", map[string]string{"LLM_PROVIDER": "None"},
			provider.Settings{Provider: "none", MaxOutputTokens: 8192, Timeout: 120 * time.Second}, nil},
		{"numbers and fallbacks", map[string]string{"LLM_PROVIDER": "openrouter", "OPENROUTER_API_KEY": "k", "ATESOR_MAX_OUTPUT_TOKENS": "4096", "ATESOR_LLM_TIMEOUT": "30.5", "OPENROUTER_FALLBACK_MODELS": " a/b , ,c/d:free "},
			provider.Settings{Provider: "openrouter", KeyVariable: "OPENROUTER_API_KEY", APIKey: "k", MaxOutputTokens: 4096, Timeout: 30500 * time.Millisecond, OpenRouterFallbacks: []string{"a/b", "c/d:free"}}, nil},
		{"bad tokens", map[string]string{"OPENAI_API_KEY": "k", "LLM_PROVIDER": "openai", "ATESOR_MAX_OUTPUT_TOKENS": "lots"}, provider.Settings{}, []string{"ATESOR_MAX_OUTPUT_TOKENS"}},
		{"bad timeout", map[string]string{"OPENAI_API_KEY": "k", "LLM_PROVIDER": "openai", "ATESOR_LLM_TIMEOUT": "-3"}, provider.Settings{}, []string{"ATESOR_LLM_TIMEOUT"}},
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
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("settings (-want +got):\n%s", d)
			}
			if strings.Contains(got.String(), "k1") {
				t.Errorf("String prints the key: %s", got)
			}
		})
	}
}

func TestMissingKeyIsTyped(t *testing.T) {
	_, err := provider.LoadSettingsFrom(env(map[string]string{"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "your_key_here"}))
	var mk *provider.MissingKeyError
	if !errors.As(err, &mk) || mk.Variable != "OPENAI_API_KEY" || !mk.Placeholder {
		t.Fatalf("err = %v", err)
	}
}

func TestKeyVariable(t *testing.T) {
	want := map[string]string{"gemini": "GOOGLE_API_KEY", "openai": "OPENAI_API_KEY", "openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "none": "", "x": ""}
	for p, v := range want {
		if got := provider.KeyVariable(p); got != v {
			t.Errorf("KeyVariable(%s) = %q, want %q", p, got, v)
		}
	}
}

func TestEnvKeys(t *testing.T) {
	for _, v := range []string{"GOOGLE_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY"} {
		t.Setenv(v, "")
	}
	t.Setenv("OPENAI_API_KEY", " sk-test ")
	t.Setenv("ANTHROPIC_API_KEY", "ak-test")
	got := provider.EnvKeys()
	if len(got) != 2 || got[0] != "ak-test" || got[1] != "sk-test" {
		t.Errorf("EnvKeys = %q, want the Anthropic and OpenAI keys, trimmed", got)
	}
}
