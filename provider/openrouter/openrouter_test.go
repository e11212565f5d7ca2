package openrouter_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/internal/wiretest"
	"github.com/eclipse-atesor/atesor-go/provider/openrouter"
)

func TestChatCompletionsWire(t *testing.T) {
	srv := wiretest.New(t, 200, nil, `{"id":"g1","object":"chat.completion","created":1,"model":"openai/gpt-oss-20b:free",
			"choices":[{"index":0,"message":{"role":"assistant","content":"{\"ok\":1}","reasoning":"thinking hard"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25,"cost":0.0042}}`)
	p, err := openrouter.New(provider.Config{APIKey: "k-123456", BaseURL: srv.URL + "/api/v1", MaxOutputTokens: 2048,
		FallbackModels: []string{"openai/gpt-oss-20b:free", "qwen/qwen3-coder:free", "x/y:free"}})
	if err != nil {
		t.Fatal(err)
	}
	pool := p.Pool(atesor.RoleScout)
	var ids []string
	for _, s := range pool {
		ids = append(ids, s.Model)
	}
	if d := cmp.Diff([]string{"qwen/qwen3-coder:free", "openai/gpt-oss-20b:free", "x/y:free", "openrouter/free"}, ids); d != "" {
		t.Fatalf("pool (-want +got):\n%s", d)
	}
	for i, spec := range pool[:2] {
		msg, err := wiretest.Generate(t, p, spec)
		if err != nil {
			t.Fatal(err)
		}
		if msg.ReasoningContent != "thinking hard" || msg.Content != `{"ok":1}` {
			t.Errorf("reply %q thinking %q", msg.Content, msg.ReasoningContent)
		}
		if msg.ResponseMeta.Usage.PromptTokens != 20 || msg.ResponseMeta.Usage.CompletionTokens != 5 {
			t.Errorf("usage %+v", msg.ResponseMeta.Usage)
		}
		if msg.Extra[provider.ExtraCostUSD] != 0.0042 || msg.Extra[provider.ExtraModel] != "openai/gpt-oss-20b:free" {
			t.Errorf("extra %v", msg.Extra)
		}
		req := srv.Requests()[i]
		if req.Path != "/api/v1/chat/completions" {
			t.Errorf("path %s", req.Path)
		}
		b := req.Body
		got := map[string]any{"model": b["model"], "models": b["models"], "temperature": b["temperature"], "max_tokens": b["max_tokens"], "usage": b["usage"]}
		want := map[string]any{"model": spec.Model, "models": []any{}, "temperature": 0.1, "max_tokens": 2048.0, "usage": map[string]any{"include": true}}
		if i == 0 {
			want["models"] = []any{"openai/gpt-oss-20b:free", "x/y:free", "openrouter/free"}
		} else {
			want["models"] = []any{"x/y:free", "openrouter/free"}
		}
		if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-6)); d != "" {
			t.Errorf("request %d (-want +got):\n%s", i, d)
		}
	}
}

func TestPaymentErrorCarriesBody(t *testing.T) {
	srv := wiretest.New(t, 402, nil, `{"error":{"code":402,"message":"This request requires more credits, or fewer max_tokens. You requested up to 8192 tokens, but can only afford 1234."}}`)
	p, _ := openrouter.New(provider.Config{APIKey: "k-123456", BaseURL: srv.URL})
	_, err := wiretest.Generate(t, p, p.Pool(atesor.RolePlanner)[0])
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) || pe.Status != 402 || !json.Valid([]byte(pe.Body)) {
		t.Fatalf("err %v, %+v", err, pe)
	}
}
