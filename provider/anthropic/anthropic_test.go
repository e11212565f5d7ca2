package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/anthropic"
)

const key = "sk-ant-test-0123"

func TestMessagesWire(t *testing.T) {
	var body map[string]any
	var path, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, gotKey = r.URL.Path, r.Header.Get("X-Api-Key")
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5",
			"content":[{"type":"thinking","thinking":"the error says -m64","signature":"sig"},{"type":"text","text":"{\"ok\":true}"}],
			"stop_reason":"end_turn","usage":{"input_tokens":11,"output_tokens":7}}`)
	}))
	defer srv.Close()
	p, err := anthropic.New(provider.Config{APIKey: key, BaseURL: srv.URL, MaxOutputTokens: 3000})
	if err != nil {
		t.Fatal(err)
	}
	spec := p.Pool(atesor.RoleFixer)[0]
	m, err := p.ChatModel(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if path != "/v1/messages" || gotKey != key {
		t.Errorf("path %q key %q", path, gotKey)
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
	for _, status := range []int{429, 500, 529} {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
		}))
		p, _ := anthropic.New(provider.Config{APIKey: key, BaseURL: srv.URL})
		m, _ := p.ChatModel(context.Background(), p.Pool(atesor.RoleScout)[0])
		_, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
		srv.Close()
		var pe *atesor.ProviderError
		if !errors.As(err, &pe) || pe.Status != status || pe.RetryAfter != 7*time.Second {
			t.Errorf("status %d: err %v", status, err)
		}
		if hits.Load() != 1 {
			t.Errorf("status %d: %d requests, want 1", status, hits.Load())
		}
		if strings.Contains(err.Error(), key) {
			t.Errorf("key leaks: %v", err)
		}
	}
}
