package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

func TestTapTurnsErrorsIntoProviderErrors(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name      string
		status    int
		header    map[string]string
		body      string
		wantRetry time.Duration
	}{
		{"retry-after seconds", 429, map[string]string{"Retry-After": "10"}, `{"error":"slow down"}`, 10 * time.Second},
		{"retry-after http date", 503, map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, "busy", 90 * time.Second},
		{"gemini retryDelay", 429, nil, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"22s"}]}}`, 22 * time.Second},
		{"openrouter reset", 429, nil, `{"error":{"metadata":{"headers":{"X-RateLimit-Reset":"` + strconv.FormatInt(now.Add(30*time.Second).UnixMilli(), 10) + `"}}}}`, 30 * time.Second},
		{"402 no wait", 402, nil, `{"error":{"message":"can only afford 1234"}}`, 0},
		{"html 502", 502, map[string]string{"Content-Type": "text/html"}, "<html>bad gateway</html>", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body+" key=sk-secret-123")
			}))
			defer srv.Close()
			hc := provider.Config{Now: func() time.Time { return now }}.Client("test")
			ctx, capt := provider.WithCapture(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
			req.Header.Set("Authorization", "Bearer sk-secret-123")
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.HasPrefix(string(body), tt.body) {
				t.Errorf("the SDK no longer sees the body: %q", body)
			}
			if resp.Header.Get("X-Should-Retry") != "false" {
				t.Error("X-Should-Retry not set")
			}
			f := capt.Failure()
			if f == nil {
				t.Fatal("no failure captured")
			}
			if f.Status != tt.status || f.RetryAfter != tt.wantRetry || f.Provider != "test" {
				t.Errorf("failure = %+v, want status %d retry %s", f, tt.status, tt.wantRetry)
			}
			if strings.Contains(f.Body, "sk-secret-123") || !strings.Contains(f.Body, "[redacted]") {
				t.Errorf("key not blanked out: %q", f.Body)
			}
		})
	}
}

func TestTapReadsCostAndModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"model":"qwen/qwen3-coder:free","usage":{"prompt_tokens":3,"cost":0.00125}}`)
	}))
	defer srv.Close()
	hc := provider.Config{}.Client("openrouter")
	ctx, capt := provider.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"cost":0.00125`) {
		t.Errorf("body changed: %s", b)
	}
	if c, ok := capt.Cost(); !ok || c != 0.00125 {
		t.Errorf("cost = %v %v", c, ok)
	}
	if capt.Model() != "qwen/qwen3-coder:free" {
		t.Errorf("model = %q", capt.Model())
	}
}

// failingTransport fails every request at once, as a timed-out or refused connection.
type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

func TestTapReportsTransportTimeouts(t *testing.T) {
	hc := provider.Config{HTTPClient: &http.Client{Transport: failingTransport{os.ErrDeadlineExceeded}}}.Client("test")
	ctx, capt := provider.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://model.invalid/", nil)
	if _, err := hc.Do(req); err == nil {
		t.Fatal("no error")
	}
	if !errors.Is(capt.TransportErr(), os.ErrDeadlineExceeded) {
		t.Errorf("transport error not captured: %v", capt.TransportErr())
	}
}

func TestGivenClientIsNotChanged(t *testing.T) {
	orig := &http.Client{Timeout: 5 * time.Second}
	hc := provider.Config{HTTPClient: orig, Timeout: time.Minute}.Client("x")
	if orig.Transport != nil {
		t.Error("caller's client was modified")
	}
	if hc.Timeout != 5*time.Second {
		t.Errorf("timeout = %s, want the client's own", hc.Timeout)
	}
	if _, ok := hc.Transport.(*provider.Tap); !ok {
		t.Errorf("transport %T is not the tap", hc.Transport)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	tests := []struct {
		h    http.Header
		body string
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, "", 7 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, "", 1500 * time.Millisecond},
		{http.Header{"Retry-After": {"-1"}}, "", 0},
		{http.Header{"Retry-After": {"soon"}}, "", 0},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, "", 0},
		{http.Header{"Retry-After-Ms": {"250"}}, "", 250 * time.Millisecond},
		{http.Header{"Retry-After": {"999999999999"}}, "", 48 * time.Hour},
		{nil, `"retryDelay": "0.5s"`, 500 * time.Millisecond},
		{nil, `{"X-RateLimit-Reset": 1700000005}`, 5 * time.Second},
		{nil, `nothing`, 0},
	}
	for _, tt := range tests {
		if got := provider.RetryAfter(tt.h, []byte(tt.body), now); got != tt.want {
			t.Errorf("RetryAfter(%v, %q) = %s, want %s", tt.h, tt.body, got, tt.want)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	f.Add("10", `{"retryDelay":"22s"}`)
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT", `"X-RateLimit-Reset":"1700000000000"`)
	f.Add("1e308", `"retryDelay":"99999999999999999999s"`)
	f.Fuzz(func(t *testing.T, header, body string) {
		d := provider.RetryAfter(http.Header{"Retry-After": {header}}, []byte(body), time.Unix(1_700_000_000, 0))
		if d < 0 || d > 48*time.Hour {
			t.Fatalf("wait %s out of range", d)
		}
	})
}

func TestWrapAttachesProviderError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, "too many")
	}))
	defer srv.Close()
	m := provider.Wrap(httpModel{hc: provider.Config{}.Client("p"), url: srv.URL}, atesor.ModelSpec{Provider: "p", Model: "m"}, "sk-secret-123")
	_, err := m.Generate(context.Background(), nil)
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.RetryAfter != 3*time.Second || pe.Model != "m" || pe.Provider != "p" {
		t.Fatalf("err = %v (%+v)", err, pe)
	}
	if strings.Contains(err.Error(), "sk-secret-123") {
		t.Errorf("key in error: %v", err)
	}
}
