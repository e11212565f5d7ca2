package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/openai"
	"github.com/eclipse-atesor/atesor-go/provider/openrouter"
)

const apiKey = "sk-fault-test-key-42"

// step is one scripted answer of the chat completions server.
type step struct {
	status int    // 0: 200 with content
	header string // Retry-After value
	body   string // error body, or the reply content for 200
	hang   bool   // never answer
}

func ok(content string) step { return step{body: content} }

// wire is a chat completions server that answers each model from its own script and
// records every request.
type wire struct {
	mu       sync.Mutex
	arrived  *sync.Cond // broadcast on every request
	script   map[string][]step
	requests []map[string]any
}

// waitRequests blocks until n requests have arrived.
func (w *wire) waitRequests(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.requests) < n {
		w.arrived.Wait()
	}
}

func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	w.mu.Lock()
	w.requests = append(w.requests, body)
	w.arrived.Broadcast()
	m, _ := body["model"].(string)
	var s step
	if q := w.script[m]; len(q) > 0 {
		s, w.script[m] = q[0], q[1:]
	} else {
		s = step{status: 500, body: `{"error":{"message":"test script exhausted for ` + m + `"}}`}
	}
	w.mu.Unlock()
	if s.hang {
		<-r.Context().Done()
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	if s.status != 0 {
		if s.header != "" {
			rw.Header().Set("Retry-After", s.header)
		}
		rw.WriteHeader(s.status)
		_, _ = io.WriteString(rw, s.body)
		return
	}
	content, _ := json.Marshal(s.body)
	_, _ = io.WriteString(rw, `{"id":"x","object":"chat.completion","created":1,"model":"`+m+`","choices":[{"index":0,"message":{"role":"assistant","content":`+
		string(content)+`},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":5,"total_tokens":55}}`)
}

func (w *wire) field(key string) []any {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []any
	for _, r := range w.requests {
		out = append(out, r[key])
	}
	return out
}

// pools: "1" is openai (gpt-4o), "3" is openrouter with one named fallback
// (openai/gpt-oss-120b:free, m2/second:free, openrouter/free).
const (
	one1   = "gpt-4o"
	or1    = "openai/gpt-oss-120b:free"
	or2    = "m2/second:free"
	orFree = "openrouter/free"
)

func newWireClient(t *testing.T, pool string, script map[string][]step, hc *http.Client) (*llm.Client, *llm.ManualClock, *wire) {
	t.Helper()
	w := &wire{script: script}
	w.arrived = sync.NewCond(&w.mu)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	cfg := provider.Config{APIKey: apiKey, BaseURL: srv.URL + "/v1", MaxOutputTokens: 4096, HTTPClient: hc, FallbackModels: []string{or2}}
	var p atesor.Provider
	var err error
	if pool == "1" {
		p, err = openai.New(cfg)
	} else {
		p, err = openrouter.New(cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	c, clock := newClient(p)
	return c, clock, w
}

func TestFaultInjection(t *testing.T) {
	const valid = `{"name":"zlib"}`
	e := func(status int, body string) step { return step{status: status, body: body} }
	tests := []struct {
		name       string
		pool       string
		role       atesor.Role
		script     map[string][]step
		wantOK     bool
		wantModels []string
		wantWaits  []time.Duration
		wantErr    error  // errors.Is target for a failed call
		errText    string // substring of LastErr
		check      func(t *testing.T, w *wire)
	}{
		{name: "429 retry-after 10, 1 model", pool: "1", role: atesor.RolePlanner,
			script: map[string][]step{one1: {{status: 429, header: "10", body: `{"error":{"message":"rate limit"}}`}, ok(valid)}},
			wantOK: true, wantModels: []string{one1, one1}, wantWaits: []time.Duration{10 * time.Second}},
		{name: "429 retry-after 10, 3 models", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {{status: 429, header: "10", body: "{}"}, ok(valid)}},
			wantOK: true, wantModels: []string{or1, or1}, wantWaits: []time.Duration{10 * time.Second}},
		{name: "429 retry-after 120, 1 model: no wait, critique retries", pool: "1", role: atesor.RolePlanner,
			script:     map[string][]step{one1: {{status: 429, header: "120"}, {status: 429, header: "120"}, {status: 429, header: "120"}}},
			wantModels: []string{one1, one1, one1}, errText: "HTTP 429"},
		{name: "429 retry-after 120, 3 models: rotate", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {{status: 429, header: "120"}}, or2: {ok(valid)}},
			wantOK: true, wantModels: []string{or1, or2}},
		{name: "402 can only afford 1234, 1 model", pool: "1", role: atesor.RoleScout,
			script: map[string][]step{one1: {e(402, `{"error":{"message":"You requested up to 4096 tokens, but can only afford 1234."}}`), ok(valid)}},
			wantOK: true, wantModels: []string{one1, one1},
			check: func(t *testing.T, w *wire) {
				if d := cmp.Diff([]any{4096.0, 1110.0}, w.field("max_completion_tokens")); d != "" {
					t.Errorf("caps (-want +got):\n%s", d)
				}
			}},
		{name: "402 can only afford 1234, 3 models: every cap lowered", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {e(402, `{"error":{"message":"can only afford 1234"}}`), e(402, `{"error":{"message":"can only afford 1234"}}`)}, or2: {ok(valid)}},
			wantOK: true, wantModels: []string{or1, or1, or2},
			check: func(t *testing.T, w *wire) {
				if d := cmp.Diff([]any{4096.0, 1110.0, 1110.0}, w.field("max_tokens")); d != "" {
					t.Errorf("caps (-want +got):\n%s", d)
				}
			}},
		{name: "404 use this slug instead, 1 model", pool: "1", role: atesor.RoleScout,
			script: map[string][]step{one1: {e(404, `{"error":{"message":"model retired, use this slug instead: x/y"}}`)}, "x/y": {ok(valid)}},
			wantOK: true, wantModels: []string{one1, "x/y"}},
		{name: "404 use this slug instead, 3 models: added next", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {e(404, `{"error":{"message":"use this slug instead: x/y."}}`)}, "x/y": {e(503, "down")}, or2: {ok(valid)}},
			wantOK: true, wantModels: []string{or1, "x/y", or2}},
		{name: "free-models-per-day stops", pool: "3", role: atesor.RolePlanner,
			script:     map[string][]step{or1: {{status: 429, header: "5", body: `{"error":{"message":"Rate limit exceeded: free-models-per-day"}}`}}},
			wantModels: []string{or1}, wantErr: llm.ErrDailyCap},
		{name: "401 stops and names the key, 1 model", pool: "1", role: atesor.RoleFixer,
			script:     map[string][]step{one1: {e(401, `{"error":{"message":"Incorrect API key provided: `+apiKey+`"}}`)}},
			wantModels: []string{one1}, wantErr: llm.ErrAuth, errText: "OPENAI_API_KEY"},
		{name: "403 stops and names the key, 3 models", pool: "3", role: atesor.RolePlanner,
			script:     map[string][]step{or1: {e(403, `{"error":{"message":"forbidden"}}`)}},
			wantModels: []string{or1}, wantErr: llm.ErrAuth, errText: "OPENROUTER_API_KEY"},
		{name: "500/502/503, 1 model", pool: "1", role: atesor.RolePlanner,
			script:     map[string][]step{one1: {e(500, "{}"), e(502, "<html>bad gateway</html>"), e(503, "{}")}},
			wantModels: []string{one1, one1, one1}, errText: "HTTP 503"},
		{name: "500/502/503, 3 models, then critique retries", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {e(500, "{}")}, or2: {e(502, "<html>bad gateway</html>")}, orFree: {e(503, "{}"), e(503, "{}"), ok(valid)}},
			wantOK: true, wantModels: []string{or1, or2, orFree, orFree, orFree}},
		{name: "empty reply, 1 model", pool: "1", role: atesor.RolePlanner,
			script: map[string][]step{one1: {ok(""), ok(valid)}},
			wantOK: true, wantModels: []string{one1, one1}},
		{name: "empty reply, 3 models", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {ok("")}, or2: {ok(valid)}},
			wantOK: true, wantModels: []string{or1, or2}},
		{name: "prose without JSON, 1 model: critique", pool: "1", role: atesor.RolePlanner,
			script: map[string][]step{one1: {ok("I would build it with make."), ok(valid)}},
			wantOK: true, wantModels: []string{one1, one1},
			check: func(t *testing.T, w *wire) {
				msgs, _ := w.field("messages")[1].([]any)
				if len(msgs) != 4 || !strings.Contains(toJSON(msgs[3]), "did not contain a valid JSON object") {
					t.Errorf("second request thread: %s", toJSON(msgs))
				}
			}},
		{name: "prose without JSON, 3 models: rotate", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {ok("no idea")}, or2: {ok(valid)}},
			wantOK: true, wantModels: []string{or1, or2}},
		{name: "fails validation twice, 3 models: same model", pool: "3", role: atesor.RolePlanner,
			script: map[string][]step{or1: {ok(`{"name":""}`), ok(`{"name":""}`), ok(valid)}},
			wantOK: true, wantModels: []string{or1, or1, or1}},
		{name: "fails validation three times, 1 model", pool: "1", role: atesor.RolePlanner,
			script:     map[string][]step{one1: {ok(`{"name":""}`), ok(`{"name":""}`), ok(`{"name":""}`)}},
			wantModels: []string{one1, one1, one1}, wantErr: llm.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock, w := newWireClient(t, tt.pool, tt.script, nil)
			out := llm.Call(context.Background(), c, llm.Request[answer]{Role: tt.role, Messages: prompt(), Validate: validName})
			if out.OK() != tt.wantOK {
				t.Fatalf("ok = %v, err %v, models %v", out.OK(), out.LastErr, out.Models)
			}
			if d := cmp.Diff(tt.wantModels, out.Models); d != "" {
				t.Errorf("models (-want +got):\n%s", d)
			}
			if out.Attempts != len(tt.wantModels) {
				t.Errorf("attempts %d", out.Attempts)
			}
			if d := cmp.Diff(tt.wantWaits, clock.Sleeps()); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantWaits, out.Waits); d != "" {
				t.Errorf("outcome waits (-want +got):\n%s", d)
			}
			if tt.wantErr != nil && !errors.Is(out.LastErr, tt.wantErr) {
				t.Errorf("LastErr %v is not %v", out.LastErr, tt.wantErr)
			}
			if tt.errText != "" && (out.LastErr == nil || !strings.Contains(out.LastErr.Error(), tt.errText)) {
				t.Errorf("LastErr %v lacks %q", out.LastErr, tt.errText)
			}
			if out.LastErr != nil && strings.Contains(out.LastErr.Error(), apiKey) {
				t.Errorf("the key leaks: %v", out.LastErr)
			}
			if tt.wantOK && (out.LastErr != nil || out.Data.Name != "zlib") {
				t.Errorf("outcome %+v", out)
			}
			if bound := 2 + 1 + len(c.Provider.Pool(tt.role)) + 1; out.Attempts > bound {
				t.Errorf("attempts %d over the bound %d", out.Attempts, bound)
			}
			if tt.pool == "3" {
				for i, m := range w.field("models") {
					if m == nil {
						t.Errorf("request %d has no models array", i)
					}
				}
			}
			if tt.check != nil {
				tt.check(t, w)
			}
		})
	}
}

// TestFaultServerNeverAnswers runs against a server that never answers: the wall timer
// of each attempt fires on the manual clock once the request has arrived, so the test
// never waits for real.
func TestFaultServerNeverAnswers(t *testing.T) {
	hang := step{hang: true}
	tests := []struct {
		name       string
		pool       string
		script     map[string][]step
		rotate     bool
		wantModels []string
	}{
		{"1 model: timeouts are critique retries", "1", map[string][]step{one1: {hang, hang, hang}}, false, []string{one1, one1, one1}},
		{"1 model, RotateOnTimeout: stops after the last model", "1", map[string][]step{one1: {hang}}, true, []string{one1}},
		{"3 models: critique retries on the first model", "3", map[string][]step{or1: {hang, hang, hang}}, false, []string{or1, or1, or1}},
		{"3 models, RotateOnTimeout: rotate, stop after the last", "3", map[string][]step{or1: {hang}, or2: {hang}, orFree: {hang}}, true, []string{or1, or2, orFree}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock, w := newWireClient(t, tt.pool, tt.script, nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 1; i <= len(tt.wantModels); i++ {
					w.waitRequests(i)
					clock.BlockUntil(1)
					clock.Advance(c.WallTimeout())
				}
			}()
			out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RolePlanner, Messages: prompt(), RotateOnTimeout: tt.rotate})
			<-done
			if out.OK() || !errors.Is(out.LastErr, llm.ErrTimeout) {
				t.Fatalf("%+v", out)
			}
			if d := cmp.Diff(tt.wantModels, out.Models); d != "" {
				t.Errorf("models (-want +got):\n%s", d)
			}
			if want := time.Unix(0, 0).Add(time.Duration(len(tt.wantModels)) * c.WallTimeout()); !clock.Now().Equal(want) {
				t.Errorf("clock at %s, want %s", clock.Now(), want)
			}
		})
	}
}

// timeoutTransport fails every request at once as an HTTP client timeout does.
type timeoutTransport struct{}

func (timeoutTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("awaiting headers: %w", os.ErrDeadlineExceeded)
}

// TestFaultHTTPTimeout checks that the HTTP client's own timeout (ATESOR_LLM_TIMEOUT,
// which fires before the wall timeout) counts as a timeout: with RotateOnTimeout a
// 1-model pool stops after one attempt, where another provider error would be retried.
func TestFaultHTTPTimeout(t *testing.T) {
	for _, rotate := range []bool{false, true} {
		c, _, w := newWireClient(t, "1", nil, &http.Client{Transport: timeoutTransport{}})
		out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RolePlanner, Messages: prompt(), RotateOnTimeout: rotate})
		want := 3
		if rotate {
			want = 1
		}
		if out.OK() || out.Attempts != want || !errors.Is(out.LastErr, os.ErrDeadlineExceeded) {
			t.Errorf("rotate=%v: attempts %d, err %v", rotate, out.Attempts, out.LastErr)
		}
		if len(w.field("model")) != 0 {
			t.Errorf("rotate=%v: requests reached the server", rotate)
		}
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
