package gemini_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/gemini"
	"github.com/eclipse-atesor/atesor-go/provider/internal/wiretest"
)

const key = "AIza-test-key-0123"

func TestGenerateContentWire(t *testing.T) {
	srv := wiretest.New(t, 200, nil, `{"candidates":[{"content":{"role":"model","parts":[
			{"text":"considering the build","thought":true},{"text":"{\"ok\":true}"}]},"finishReason":"STOP"}],
			"usageMetadata":{"promptTokenCount":11,"candidatesTokenCount":5,"thoughtsTokenCount":2,"totalTokenCount":18}}`)
	p, err := gemini.New(context.Background(), provider.Config{APIKey: key, BaseURL: srv.URL, MaxOutputTokens: 512})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := wiretest.Generate(t, p, p.Pool(atesor.RoleScout)[0])
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	if !strings.HasSuffix(req.Path, "/models/gemini-flash-lite-latest:generateContent") || req.Header.Get("X-Goog-Api-Key") != key {
		t.Errorf("path %q key %q", req.Path, req.Header.Get("X-Goog-Api-Key"))
	}
	gc, _ := req.Body["generationConfig"].(map[string]any)
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
	srv := wiretest.New(t, 429, nil, `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED",
			"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"22s"}]}}`)
	p, _ := gemini.New(context.Background(), provider.Config{APIKey: key, BaseURL: srv.URL})
	_, err := wiretest.Generate(t, p, p.Pool(atesor.RolePlanner)[0])
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.RetryAfter != 22*time.Second {
		t.Fatalf("err %v, %+v", err, pe)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("key leaks: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no client retries)", n)
	}
}
