package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/anthropic"
	"github.com/eclipse-atesor/atesor-go/provider/internal/wiretest"
)

const key = "sk-ant-test-0123"

func TestMessagesWire(t *testing.T) {
	srv := wiretest.New(t, 200, nil, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5",
			"content":[{"type":"thinking","thinking":"the error says -m64","signature":"sig"},{"type":"text","text":"{\"ok\":true}"}],
			"stop_reason":"end_turn","usage":{"input_tokens":11,"output_tokens":7}}`)
	p, err := anthropic.New(provider.Config{APIKey: key, BaseURL: srv.URL, MaxOutputTokens: 3000})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := wiretest.Generate(t, p, p.Pool(atesor.RoleFixer)[0])
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	body := req.Body
	if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != key {
		t.Errorf("path %q key %q", req.Path, req.Header.Get("X-Api-Key"))
	}
	got := map[string]any{"model": body["model"], "max_tokens": body["max_tokens"], "thinking": body["thinking"], "output_config": body["output_config"]}
	want := map[string]any{"model": "claude-sonnet-5-5", "max_tokens": 3000.0, "thinking": map[string]any{"type": "adaptive"}, "output_config": map[string]any{"effort": "medium"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("request (-want +got):\n%s", d)
	}
	if _, has := body["temperature"]; has {
		t.Errorf("temperature sent: %v", body["temperature"])
	}
	if msg.Content != `{"ok":true}` || msg.ReasoningContent != "the error says -m64" {
		t.Errorf("content %q thinking %q", msg.Content, msg.ReasoningContent)
	}
	if u := msg.ResponseMeta.Usage; u.PromptTokens != 11 || u.CompletionTokens != 7 {
		t.Errorf("usage %+v", u)
	}
}

func TestNoSDKRetries(t *testing.T) {
	for _, status := range []int{401, 429, 500, 529} {
		srv := wiretest.New(t, status, map[string]string{"Retry-After": "7"},
			`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
		p, _ := anthropic.New(provider.Config{APIKey: key, BaseURL: srv.URL})
		_, err := wiretest.Generate(t, p, p.Pool(atesor.RoleScout)[0])
		var pe *atesor.ProviderError
		if !errors.As(err, &pe) || pe.Status != status || pe.RetryAfter != 7*time.Second {
			t.Errorf("status %d: err %v", status, err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("status %d: %d requests, want 1", status, n)
		}
		if strings.Contains(err.Error(), key) {
			t.Errorf("key leaks: %v", err)
		}
	}
}

// TestNoSDKRetriesOfAFailedConnection: the SDK retries a request whose connection
// failed, with real waits, whatever the headers say; the tap ends the call instead, so
// the pool logic of package llm decides.
func TestNoSDKRetriesOfAFailedConnection(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close() // no response at all
		}
	}))
	defer srv.Close()
	p, err := anthropic.New(provider.Config{APIKey: key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wiretest.Generate(t, p, p.Pool(atesor.RolePlanner)[0])
	if err == nil {
		t.Fatal("no error for a closed connection")
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("%d requests, want 1 (the SDK retried)", n)
	}
	if errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "EOF") {
		t.Errorf("the error hides the transport failure: %v", err)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("key leaks: %v", err)
	}
}

func TestOneClientPerModelEffortAndCap(t *testing.T) {
	p, err := anthropic.New(provider.Config{APIKey: "k", BaseURL: "http://127.0.0.1:1", MaxOutputTokens: 8192})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec := atesor.ModelSpec{Model: "claude-haiku-5-5", Effort: "medium", MaxTokens: 4096}
	a, _ := p.ChatModel(ctx, spec)
	b, _ := p.ChatModel(ctx, spec)
	if a != b {
		t.Error("the same model, effort and cap made a second client")
	}
	spec.Effort = "low"
	if c, _ := p.ChatModel(ctx, spec); c == a {
		t.Error("another effort reused the client")
	}
	spec.Effort, spec.MaxTokens = "medium", 1000
	if d, _ := p.ChatModel(ctx, spec); d == a {
		t.Error("a lowered cap reused the client")
	}
}
