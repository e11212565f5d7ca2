package gemini_test

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
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/gemini"
)

const key = "AIza-test-key-0123"

func TestGenerateContentWire(t *testing.T) {
	var body map[string]any
	var path, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, gotKey = r.URL.Path, r.Header.Get("X-Goog-Api-Key")
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[
			{"text":"considering the build","thought":true},{"text":"{\"ok\":true}"}]},"finishReason":"STOP"}],
			"usageMetadata":{"promptTokenCount":11,"candidatesTokenCount":5,"thoughtsTokenCount":2,"totalTokenCount":18}}`)
	}))
	defer srv.Close()
	p, err := gemini.New(context.Background(), provider.Config{APIKey: key, BaseURL: srv.URL, MaxOutputTokens: 512})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.ChatModel(context.Background(), p.Pool(atesor.RoleScout)[0])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, "/models/gemini-flash-lite-latest:generateContent") || gotKey != key {
		t.Errorf("path %q key %q", path, gotKey)
	}
	gc, _ := body["generationConfig"].(map[string]any)
	got := map[string]any{"temperature": gc["temperature"], "maxOutputTokens": gc["maxOutputTokens"]}
	if d := cmp.Diff(map[string]any{"temperature": 0.1, "maxOutputTokens": 512.0}, got, cmpopts.EquateApprox(0, 1e-6)); d != "" {
		t.Errorf("generationConfig (-want +got):\n%s", d)
	}
	if msg.Content != `{"ok":true}` || msg.ReasoningContent != "considering the build" {
		t.Errorf("content %q thinking %q", msg.Content, msg.ReasoningContent)
	}
	if u := msg.ResponseMeta.Usage; u.PromptTokens != 11 || u.CompletionTokens != 7 {
		t.Errorf("usage %+v", u)
	}
}

func TestRetryDelayFromBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED",
			"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"22s"}]}}`)
	}))
	defer srv.Close()
	p, _ := gemini.New(context.Background(), provider.Config{APIKey: key, BaseURL: srv.URL})
	m, _ := p.ChatModel(context.Background(), p.Pool(atesor.RolePlanner)[0])
	_, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.RetryAfter != 22*time.Second {
		t.Fatalf("err %v, %+v", err, pe)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("key leaks: %v", err)
	}
}
