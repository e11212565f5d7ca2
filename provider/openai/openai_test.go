package openai_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/internal/wiretest"
	"github.com/eclipse-atesor/atesor-go/provider/openai"
)

const key = "sk-test-key-0123"

func TestChatCompletionsWire(t *testing.T) {
	srv := wiretest.New(t, 200, nil, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o",
			"choices":[{"index":0,"message":{"role":"assistant","content":"{\"ok\":true}","reasoning_content":"let me think"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`)
	p, err := openai.New(provider.Config{APIKey: key, BaseURL: srv.URL + "/v1", MaxOutputTokens: 1234})
	if err != nil {
		t.Fatal(err)
	}
	pool := p.Pool(atesor.RoleFixer)
	if len(pool) != 1 || pool[0].Model != "gpt-4o" {
		t.Fatalf("pool = %+v", pool)
	}
	msg, err := wiretest.Generate(t, p, pool[0])
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer "+key {
		t.Errorf("path %q auth %q", req.Path, req.Header.Get("Authorization"))
	}
	got := map[string]any{"model": req.Body["model"], "temperature": req.Body["temperature"], "max_completion_tokens": req.Body["max_completion_tokens"]}
	want := map[string]any{"model": "gpt-4o", "temperature": 0.2, "max_completion_tokens": 1234.0}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-6)); d != "" {
		t.Errorf("request (-want +got):\n%s", d)
	}
	if msg.Content != `{"ok":true}` || msg.ReasoningContent != "let me think" {
		t.Errorf("message %q / thinking %q", msg.Content, msg.ReasoningContent)
	}
	if u := msg.ResponseMeta.Usage; u.PromptTokens != 11 || u.CompletionTokens != 7 {
		t.Errorf("usage %+v", u)
	}
}

func TestHTTPErrorsWrapProviderError(t *testing.T) {
	srv := wiretest.New(t, 429, map[string]string{"Retry-After": "10"},
		`{"error":{"message":"Rate limit reached for key `+key+`","type":"requests","code":"rate_limit_exceeded"}}`)
	p, err := openai.New(provider.Config{APIKey: key, BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wiretest.Generate(t, p, p.Pool(atesor.RolePlanner)[0])
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err %v does not wrap a ProviderError", err)
	}
	if pe.Status != 429 || pe.RetryAfter != 10*time.Second || pe.Model != "gpt-4o" || pe.Provider != "openai" {
		t.Errorf("provider error %+v", pe)
	}
	if strings.Contains(err.Error(), key) || strings.Contains(pe.Body, key) {
		t.Errorf("the key leaks: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no client retries)", n)
	}
}

func TestNewNeedsKey(t *testing.T) {
	if _, err := openai.New(provider.Config{}); !errors.Is(err, provider.ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("err = %v", err)
	}
}
