package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestCompatibleGenerate(t *testing.T) {
	var got wireRequest
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		auth = r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&got)
		_, _ = io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"{\"ok\":true}"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}`)
	}))
	defer srv.Close()

	p := &Compatible{BaseURL: srv.URL + "/v1/", Model: "local-coder", APIKey: "k-123", HTTP: srv.Client()}
	spec := p.Pool(atesor.RoleFixer)[0]
	cm, err := p.ChatModel(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := cm.Generate(context.Background(), []*schema.Message{schema.SystemMessage("sys"), schema.UserMessage("fix it")})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content != `{"ok":true}` {
		t.Errorf("content = %q", msg.Content)
	}
	if u := msg.ResponseMeta.Usage; u.PromptTokens != 12 || u.CompletionTokens != 5 {
		t.Errorf("usage = %+v", u)
	}
	if auth != "Bearer k-123" {
		t.Errorf("Authorization = %q", auth)
	}
	want := []wireMessage{{Role: "system", Content: "sys"}, {Role: "user", Content: "fix it"}}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if got.Model != "local-coder" || got.MaxTokens != 8192 || got.Temperature == nil || *got.Temperature != 0.1 {
		t.Errorf("request = %+v", got)
	}
	if spec.Price == nil || spec.Price.Input != 0 || spec.Price.Output != 0 {
		t.Errorf("a local server's model is priced %+v, want free (so no budget is charged)", spec.Price)
	}

	sr, err := cm.Stream(context.Background(), []*schema.Message{schema.UserMessage("x")})
	if err != nil {
		t.Fatal(err)
	}
	full, err := schema.ConcatMessageStream(sr)
	if err != nil || full.Content != `{"ok":true}` {
		t.Errorf("stream = %v, %v", full, err)
	}
}

func TestCompatibleHTTPError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":"slow down"}`)
	}))
	defer srv.Close()
	p := &Compatible{BaseURL: srv.URL, Model: "m", HTTP: srv.Client()}
	cm, err := p.ChatModel(context.Background(), p.Pool(atesor.RoleScout)[0])
	if err != nil {
		t.Fatal(err)
	}
	_, err = cm.Generate(context.Background(), []*schema.Message{schema.UserMessage("x")})
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *atesor.ProviderError", err)
	}
	if pe.Status != 429 || pe.RetryAfter != 7*time.Second || pe.Body != `{"error":"slow down"}` {
		t.Errorf("ProviderError = %+v", pe)
	}
}

func TestCompatibleNoBaseURL(t *testing.T) {
	p := &Compatible{Model: "m"}
	if _, err := p.ChatModel(context.Background(), p.Pool(atesor.RolePlanner)[0]); err == nil {
		t.Fatal("ChatModel without a base URL succeeded")
	}
}
