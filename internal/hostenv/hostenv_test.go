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

func TestOnly(t *testing.T) {
	t.Setenv("PATH", "/usr/bin")
	t.Setenv("DOCKER_HOST", "unix:///run/docker.sock")
	t.Setenv("DOCKER_TOKEN", "secret")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	got := Only([]string{"PATH", "DOCKER_HOST", "DOCKER_TOKEN", "OPENAI_API_KEY", "UNSET_VARIABLE_X"}, "LC_ALL=C")
	want := []string{"PATH=/usr/bin", "DOCKER_HOST=unix:///run/docker.sock", "LC_ALL=C"}
	if !slices.Equal(got, want) {
		t.Errorf("Only = %q, want %q", got, want)
	}
}
