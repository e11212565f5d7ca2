package provider_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

func f32(v float32) *float32 { return &v }

func TestDefaultModelsMatchesSeedTable(t *testing.T) {
	type cell struct {
		role                               atesor.Role
		temp                               float32
		gemini, openai, openrouter, claude string
		effort                             string
	}
	want := []cell{
		{atesor.RolePlanner, 0.1, "gemini-flash-lite-latest", "gpt-4o", "openai/gpt-oss-120b:free", "claude-haiku-5-5", "medium"},
		{atesor.RoleScout, 0.1, "gemini-flash-lite-latest", "gpt-4o", "qwen/qwen3-coder:free", "claude-haiku-5-5", "medium"},
		{atesor.RoleFixer, 0.2, "gemini-flash-lite-latest", "gpt-4o", "openai/gpt-oss-120b:free", "claude-sonnet-5-5", "medium"},
		{atesor.RoleSummarizer, 0.1, "gemini-flash-lite-latest", "gpt-4o-mini", "meta-llama/llama-3.3-70b-instruct:free", "claude-haiku-5-5", "low"},
		{atesor.RoleSupervisor, 0.0, "gemini-flash-lite-latest", "gpt-4o-mini", "qwen/qwen3-coder:free", "claude-haiku-5-5", "low"},
		{atesor.RoleBuilder, 0.0, "gemini-flash-lite-latest", "gpt-4o-mini", "qwen/qwen3-coder:free", "claude-sonnet-5-5", "medium"},
	}
	table := provider.DefaultModels()
	for _, w := range want {
		got := map[string]provider.ModelEntry{}
		for _, p := range []string{provider.Gemini, provider.OpenAI, provider.OpenRouter, provider.Anthropic} {
			got[p] = table[p][w.role]
		}
		exp := map[string]provider.ModelEntry{
			provider.Gemini:     {Model: w.gemini, Temperature: f32(w.temp)},
			provider.OpenAI:     {Model: w.openai, Temperature: f32(w.temp)},
			provider.OpenRouter: {Model: w.openrouter, Temperature: f32(w.temp)},
			provider.Anthropic:  {Model: w.claude, Effort: w.effort},
		}
		if d := cmp.Diff(exp, got); d != "" {
			t.Errorf("role %s (-want +got):\n%s", w.role, d)
		}
	}
	// The table is a copy: changing it does not change the next one.
	table[provider.Gemini][atesor.RolePlanner] = provider.ModelEntry{Model: "changed"}
	if e, _ := provider.DefaultModel(provider.Gemini, atesor.RolePlanner); e.Model != "gemini-flash-lite-latest" {
		t.Errorf("DefaultModels returned shared state: %q", e.Model)
	}
}

func models(pool []atesor.ModelSpec) []string {
	var out []string
	for _, s := range pool {
		out = append(out, s.Model)
	}
	return out
}

func TestBuildPool(t *testing.T) {
	tests := []struct {
		name      string
		provider  string
		role      atesor.Role
		fallbacks []string
		want      []string
	}{
		{"gemini one model", provider.Gemini, atesor.RoleScout, []string{"ignored"}, []string{"gemini-flash-lite-latest"}},
		{"anthropic one model", provider.Anthropic, atesor.RoleFixer, nil, []string{"claude-sonnet-5-5"}},
		{"openai one model", provider.OpenAI, atesor.RoleSummarizer, nil, []string{"gpt-4o-mini"}},
		{"openrouter defaults, primary not twice", provider.OpenRouter, atesor.RoleScout, nil, []string{
			"qwen/qwen3-coder:free", "openai/gpt-oss-120b:free", "openai/gpt-oss-20b:free",
			"meta-llama/llama-3.3-70b-instruct:free", "qwen/qwen3-next-80b-a3b-instruct:free",
			"nvidia/nemotron-3-super-120b-a12b:free", "openrouter/free"}},
		{"openrouter env fallbacks", provider.OpenRouter, atesor.RolePlanner, []string{"a/b", "openai/gpt-oss-120b:free", "c/d", "a/b", "openrouter/free"},
			[]string{"openai/gpt-oss-120b:free", "a/b", "c/d", "openrouter/free"}},
		{"unknown provider", "nope", atesor.RoleScout, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := provider.BuildPool(tt.provider, tt.role, 1000, tt.fallbacks)
			if d := cmp.Diff(tt.want, models(pool)); d != "" {
				t.Errorf("pool (-want +got):\n%s", d)
			}
			for _, s := range pool {
				if s.MaxTokens != 1000 || s.Role != tt.role || s.Provider != tt.provider {
					t.Errorf("spec %+v lacks cap, role or provider", s)
				}
				if (tt.provider == provider.Anthropic) != (s.Temperature == nil) {
					t.Errorf("spec %s: temperature %v", s.Model, s.Temperature)
				}
			}
		})
	}
}

func TestOpenRouterModels(t *testing.T) {
	fb := []string{"f1", "f2", "f3"}
	tests := []struct {
		active string
		want   []string
	}{
		{"primary", []string{"f1", "f2", "openrouter/free"}},
		{"f1", []string{"f2", "f3", "openrouter/free"}},
		{"f2", []string{"f1", "f3", "openrouter/free"}},
		{"openrouter/free", []string{"f1", "f2", "openrouter/free"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, provider.OpenRouterModels(tt.active, fb)); d != "" {
			t.Errorf("active %s (-want +got):\n%s", tt.active, d)
		}
	}
	if d := cmp.Diff([]string{"openrouter/free"}, provider.OpenRouterModels("x", nil)); d != "" {
		t.Errorf("no fallbacks: %s", d)
	}
}

func ExampleBuildPool() {
	pool := provider.BuildPool(provider.OpenRouter, atesor.RoleFixer, 8192, []string{"qwen/qwen3-coder:free", "openai/gpt-oss-20b:free"})
	for _, s := range pool {
		fmt.Println(s.Model, provider.OpenRouterModels(s.Model, s.Fallbacks))
	}
	// Output:
	// openai/gpt-oss-120b:free [qwen/qwen3-coder:free openai/gpt-oss-20b:free openrouter/free]
	// qwen/qwen3-coder:free [openai/gpt-oss-20b:free openrouter/free]
	// openai/gpt-oss-20b:free [qwen/qwen3-coder:free openrouter/free]
	// openrouter/free [qwen/qwen3-coder:free openai/gpt-oss-20b:free openrouter/free]
}
