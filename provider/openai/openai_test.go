package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/openai"
)

const key = "sk-test-key-0123"

func TestChatCompletionsWire(t *testing.T) {
	var body map[string]any
	var path, auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o",
			"choices":[{"index":0,"message":{"role":"assistant","content":"{\"ok\":true}","reasoning_content":"let me think"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`)
	}))
	defer srv.Close()
	p, err := openai.New(provider.Config{APIKey: key, BaseURL: srv.URL + "/v1", MaxOutputTokens: 1234})
	if err != nil {
		t.Fatal(err)
	}
	pool := p.Pool(atesor.RoleFixer)
	if len(pool) != 1 || pool[0].Model != "gpt-4o" {
		t.Fatalf("pool = %+v", pool)
	}
	m, err := p.ChatModel(context.Background(), pool[0])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if path != "/v1/chat/completions" || auth != "Bearer "+key {
		t.Errorf("path %q auth %q", path, auth)
	}
	got := map[string]any{"model": body["model"], "temperature": body["temperature"], "max_completion_tokens": body["max_completion_tokens"]}
	want := map[string]any{"model": "gpt-4o", "temperature": 0.2, "max_completion_tokens": 1234.0}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 })); d != "" {
		t.Errorf("request (-want +got):\n%s", d)
	}
	if msg.Content != `{"ok":true}` || msg.ReasoningContent != "let me think" {
		t.Errorf("message %q / thinking %q", msg.Content, msg.ReasoningContent)
	}
	u := msg.ResponseMeta.Usage
	if u.PromptTokens != 11 || u.CompletionTokens != 7 {
		t.Errorf("usage %+v", u)
	}
}

func TestHTTPErrorsWrapProviderError(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "10")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached for key `+key+`","type":"requests","code":"rate_limit_exceeded"}}`)
	}))
	defer srv.Close()
	p, err := openai.New(provider.Config{APIKey: key, BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := p.ChatModel(context.Background(), p.Pool(atesor.RolePlanner)[0])
	_, err = m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
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
	if hits != 1 {
		t.Errorf("%d requests, want 1 (no client retries)", hits)
	}
}

func TestNewNeedsKey(t *testing.T) {
	if _, err := openai.New(provider.Config{}); !errors.Is(err, provider.ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("err = %v", err)
	}
}
