package all_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/provider"
	_ "github.com/eclipse-atesor/atesor-go/provider/all"
)

func TestAllFourRegister(t *testing.T) {
	want := []string{"anthropic", "gemini", "openai", "openrouter"}
	if d := cmp.Diff(want, provider.Registered()); d != "" {
		t.Fatalf("registered (-want +got):\n%s", d)
	}
	for _, name := range want {
		getenv := func(k string) string {
			return map[string]string{"LLM_PROVIDER": name, provider.KeyVariable(name): "key-" + name, "ATESOR_MAX_OUTPUT_TOKENS": "777"}[k]
		}
		p, err := provider.FromLookup(context.Background(), getenv)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Name() != name {
			t.Errorf("Name() = %q, want %q", p.Name(), name)
		}
		pool := p.Pool("scout")
		if len(pool) == 0 || pool[0].MaxTokens != 777 {
			t.Errorf("%s pool %+v", name, pool)
		}
	}
}

func TestFromLookupMissingKey(t *testing.T) {
	_, err := provider.FromLookup(context.Background(), func(k string) string {
		return map[string]string{"LLM_PROVIDER": "anthropic"}[k]
	})
	var mk *provider.MissingKeyError
	if !errors.As(err, &mk) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}
