package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/openai"
)

// chatServer is a stand-in OpenAI-compatible server (a local model server or a gateway):
// answer decides each chat-completions reply from the request's decoded body and its
// index; the server records the bodies and Authorization headers it received.
type chatServer struct {
	URL string

	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
}

// chatReply is one scripted answer: a status, headers and either the assistant's content
// (wrapped in a chat.completion) or a raw body.
type chatReply struct {
	status  int
	header  map[string]string
	content string
	raw     string
	delay   time.Duration
}

func newChatServer(t *testing.T, answer func(i int, body map[string]any) chatReply) *chatServer {
	t.Helper()
	s := &chatServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		i := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		rep := answer(i, body)
		if rep.delay > 0 {
			select {
			case <-time.After(rep.delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status == 0 {
			rep.status = 200
		}
		w.WriteHeader(rep.status)
		if rep.raw != "" {
			io.WriteString(w, rep.raw)
			return
		}
		c, _ := json.Marshal(rep.content)
		fmt.Fprintf(w, `{"id":"c%d","object":"chat.completion","created":1,"model":%q,
			"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":1000,"completion_tokens":500,"total_tokens":1500}}`, i, body["model"], c)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

func (s *chatServer) requests() ([]map[string]any, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...), append([]string(nil), s.auth...)
}

func wantsJSON(body map[string]any) bool {
	rf, _ := body["response_format"].(map[string]any)
	return rf["type"] == "json_object"
}

type answer struct {
	Name string `json:"name"`
}

func nonEmpty(a *answer) error {
	if a.Name == "" {
		return errors.New("name must not be empty")
	}
	return nil
}

// endpoint builds the provider the CLI builds for LLM_PROVIDER=openai with
// OPENAI_BASE_URL and ATESOR_MODEL set, plus env.
func endpoint(t *testing.T, url string, env map[string]string) (*openai.Provider, provider.Settings) {
	t.Helper()
	vars := map[string]string{"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": url, "ATESOR_MODEL": "local-coder"}
	for k, v := range env {
		vars[k] = v
	}
	s, err := provider.LoadSettingsFrom(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	p, err := openai.New(s.Config())
	if err != nil {
		t.Fatal(err)
	}
	return p, s
}

func ask(p atesor.Provider, clock llm.Clock, audit *llm.AuditLog) llm.Outcome[answer] {
	c := &llm.Client{Provider: p, Clock: clock, Audit: audit}
	return llm.Call(context.Background(), c, llm.Request[answer]{
		Role: atesor.RoleFixer, Messages: []*schema.Message{schema.UserMessage("Reply with JSON {\"name\": ...}")}, Validate: nonEmpty,
	})
}

func TestEndpointIgnoringResponseFormat(t *testing.T) {
	srv := newChatServer(t, func(i int, body map[string]any) chatReply {
		if i == 0 { // a chatty local model that ignores response_format
			return chatReply{content: "Sure! Here is the JSON you asked for:\n```json\n{\"name\": \"\"}\n```"}
		}
		return chatReply{content: "<think>the name was empty</think>\n{\"name\": \"zlib\"} Hope this helps."}
	})
	p, _ := endpoint(t, srv.URL, nil)
	out := ask(p, llm.NewManualClock(time.Unix(0, 0)), nil)
	if !out.OK() || out.Data.Name != "zlib" || out.Attempts != 2 {
		t.Fatalf("ok=%v data=%+v attempts=%d err=%v", out.OK(), out.Data, out.Attempts, out.LastErr)
	}
	bodies, auth := srv.requests()
	for i, b := range bodies {
		if !wantsJSON(b) || b["model"] != "local-coder" {
			t.Errorf("request %d: response_format %v model %v", i, b["response_format"], b["model"])
		}
		if auth[i] != "" {
			t.Errorf("request %d sent Authorization %q with no key set", i, auth[i])
		}
	}
	// A custom endpoint costs 0 unless ATESOR_PRICE_* are set, and says so.
	if out.Usage.CostUSD != 0 || out.Usage.InputTokens != 2000 {
		t.Errorf("usage %+v", out.Usage)
	}
	if pr, ok := out.Usage.Prices["local-coder"]; !ok || pr.Input != 0 || !strings.Contains(pr.Source, "OPENAI_BASE_URL") {
		t.Errorf("prices %+v", out.Usage.Prices)
	}
	// A free-text call (the recipe) asks for no JSON.
	c := &llm.Client{Provider: p}
	if _, err := c.Invoke(context.Background(), atesor.RoleSummarizer, []*schema.Message{schema.UserMessage("write")}); err != nil {
		t.Fatal(err)
	}
	if bodies, _ := srv.requests(); wantsJSON(bodies[len(bodies)-1]) {
		t.Error("a free-text call sent response_format")
	}
}

func TestEndpointRejectingResponseFormat(t *testing.T) {
	srv := newChatServer(t, func(i int, body map[string]any) chatReply {
		if _, has := body["response_format"]; has {
			return chatReply{status: 400, raw: `{"error":{"message":"Unrecognized request argument supplied: response_format","type":"invalid_request_error"}}`}
		}
		return chatReply{content: `{"name":"zlib"}`}
	})
	p, _ := endpoint(t, srv.URL, map[string]string{"ATESOR_PRICE_INPUT": "1", "ATESOR_PRICE_OUTPUT": "2"})
	for round := range 2 {
		out := ask(p, llm.NewManualClock(time.Unix(0, 0)), nil)
		if !out.OK() || out.Attempts != 1 {
			t.Fatalf("round %d: ok=%v attempts=%d err=%v", round, out.OK(), out.Attempts, out.LastErr)
		}
		// 1000 in at $1/M + 500 out at $2/M.
		if got := out.Usage.CostUSD; got < 0.00199 || got > 0.00201 {
			t.Errorf("round %d: cost %v, want 0.002 (ATESOR_PRICE_*)", round, got)
		}
	}
	bodies, _ := srv.requests()
	var sent []bool
	for _, b := range bodies {
		sent = append(sent, wantsJSON(b))
	}
	// The first call tries response_format and repeats without it; the provider then
	// stops sending it.
	if fmt.Sprint(sent) != "[true false false]" {
		t.Errorf("response_format sent per request: %v", sent)
	}
}

func TestEndpointOtherBadRequestIsNotHidden(t *testing.T) {
	srv := newChatServer(t, func(i int, body map[string]any) chatReply {
		return chatReply{status: 400, raw: `{"error":{"message":"context length exceeded"}}`}
	})
	p, _ := endpoint(t, srv.URL, nil)
	out := ask(p, llm.NewManualClock(time.Unix(0, 0)), nil)
	var pe *atesor.ProviderError
	if out.OK() || !errors.As(out.LastErr, &pe) || pe.Status != 400 || !strings.Contains(pe.Body, "context length") {
		t.Fatalf("ok=%v err=%v", out.OK(), out.LastErr)
	}
	// Each attempt tried with and without response_format; none proved it unsupported.
	bodies, _ := srv.requests()
	if len(bodies) != 2*out.Attempts || !wantsJSON(bodies[len(bodies)-2]) {
		t.Errorf("%d requests for %d attempts", len(bodies), out.Attempts)
	}
}

func TestEndpointRetryAfter(t *testing.T) {
	const key = "gw-key-0123456789"
	srv := newChatServer(t, func(i int, body map[string]any) chatReply {
		if i == 0 {
			return chatReply{status: 429, header: map[string]string{"Retry-After": "7"},
				raw: `{"error":{"message":"rate limited for key ` + key + `"}}`}
		}
		return chatReply{content: `{"name":"zlib"}`}
	})
	p, _ := endpoint(t, srv.URL, map[string]string{"OPENAI_API_KEY": key})
	var log bytes.Buffer
	audit := llm.NewAuditLog(&log, key)
	clock := llm.NewManualClock(time.Unix(0, 0))
	out := ask(p, clock, audit)
	if !out.OK() || out.Attempts != 2 || fmt.Sprint(out.Waits) != "[7s]" || fmt.Sprint(clock.Sleeps()) != "[7s]" {
		t.Fatalf("ok=%v attempts=%d waits=%v err=%v", out.OK(), out.Attempts, out.Waits, out.LastErr)
	}
	_, auth := srv.requests()
	if auth[0] != "Bearer "+key {
		t.Errorf("a gateway key is not sent: %q", auth[0])
	}
	if strings.Contains(log.String(), key) || len(audit.Records()) != 1 {
		t.Errorf("audit log (%d records) holds the key or lacks the answer:\n%s", len(audit.Records()), log.String())
	}
}

func TestEndpointSlowPastTimeout(t *testing.T) {
	srv := newChatServer(t, func(i int, body map[string]any) chatReply {
		return chatReply{content: `{"name":"late"}`, delay: 10 * time.Second}
	})
	p, _ := endpoint(t, srv.URL, map[string]string{"ATESOR_LLM_TIMEOUT": "0.3"})
	start := time.Now()
	c := &llm.Client{Provider: p}
	out := llm.Call(context.Background(), c, llm.Request[answer]{
		Role: atesor.RoleFixer, Messages: []*schema.Message{schema.UserMessage("json")}, CritiqueRetries: 1,
	})
	took := time.Since(start)
	var ne net.Error
	if out.OK() || !(errors.As(out.LastErr, &ne) && ne.Timeout() || errors.Is(out.LastErr, context.DeadlineExceeded)) {
		t.Fatalf("ok=%v err=%v, want a timeout", out.OK(), out.LastErr)
	}
	// A timeout is a critique retry of the same model: 2 attempts of 0.3 s, no hang.
	if out.Attempts != 2 || took > 5*time.Second {
		t.Errorf("%d attempts in %s", out.Attempts, took)
	}
}

func TestModels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/models" && r.Header.Get("Authorization") == "Bearer k-0123456789":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"b"},{"id":"a"},{"id":"b"},{"id":""}]}`)
		case r.URL.Path == "/v1/models":
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"message":"bad key `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)
		default:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>a web page</html>")
		}
	}))
	defer srv.Close()
	p, err := openai.New(provider.Config{BaseURL: srv.URL + "/v1", APIKey: "k-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := p.Models(context.Background())
	if err != nil || fmt.Sprint(ids) != "[a b]" {
		t.Errorf("Models = %v, %v", ids, err)
	}
	p, _ = openai.New(provider.Config{BaseURL: srv.URL + "/v1", APIKey: "wrong-key-999"})
	_, err = p.Models(context.Background())
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) || pe.Status != 401 || strings.Contains(err.Error(), "wrong-key-999") {
		t.Errorf("wrong key: %v", err)
	}
	p, _ = openai.New(provider.Config{BaseURL: srv.URL + "/ui"})
	if _, err = p.Models(context.Background()); err == nil || !strings.Contains(err.Error(), "is the URL the API root") {
		t.Errorf("a web page, not the API root: %v", err)
	}
}

func TestParseModelList(t *testing.T) {
	for _, tt := range []struct{ body, want, err string }{
		{`{"data":[{"id":"x"},{"id":"a"}]}`, "[a x]", ""},
		{`{"data":[]}`, "[]", ""},
		{`{"models":[{"name":"x"}]}`, "", `no "data" list`},
		{`<html>`, "", "not a JSON model list"},
	} {
		ids, err := openai.ParseModelList([]byte(tt.body))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.body, err, tt.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(ids) != tt.want {
			t.Errorf("%s: %v %v", tt.body, ids, err)
		}
	}
}

func FuzzParseModelList(f *testing.F) {
	f.Add([]byte(`{"data":[{"id":"x"}]}`))
	f.Add([]byte(`{"data":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := openai.ParseModelList(b)
		if err != nil && ids != nil {
			t.Fatal("ids with an error")
		}
		for i := 1; i < len(ids); i++ {
			if ids[i-1] >= ids[i] {
				t.Fatalf("not sorted and unique: %v", ids)
			}
		}
	})
}
