package hostenv

import (
	"slices"
	"testing"
)

func TestFilter(t *testing.T) {
	env := []string{"PATH=/usr/bin", "HOME=/root", "OPENAI_API_KEY=sk-1", "ANTHROPIC_API_KEY=a", "GOOGLE_API_KEY=g",
		"OPENROUTER_API_KEY=o", "LLM_PROVIDER=openai", "GITHUB_TOKEN=t", "ATESOR_MODEL=m", "http_proxy=http://p", "LANG=C"}
	got := Filter(env, "LANG=C.UTF-8")
	want := []string{"PATH=/usr/bin", "HOME=/root", "http_proxy=http://p", "LANG=C", "LANG=C.UTF-8"}
	if !slices.Equal(got, want) {
		t.Errorf("Filter = %q, want %q", got, want)
	}
}

func TestEnvironDropsKeys(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	for _, kv := range Environ() {
		if kv == "OPENAI_API_KEY=sk-test" {
			t.Fatal("Environ kept the provider key")
		}
	}
}
