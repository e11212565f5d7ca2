package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modelServer answers GET /v1/models with the given ids, after delay.
func modelServer(t *testing.T, delay time.Duration, ids ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		var data []string
		for _, id := range ids {
			data = append(data, `{"id":"`+id+`","object":"model","owned_by":"local"}`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[` + strings.Join(data, ",") + `]}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDoctorEndpoint(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/v1"
	closed.Close()
	served := modelServer(t, 0, "qwen2.5-coder-7b", "llama-3.1-8b")
	slow := modelServer(t, 5*time.Second, "qwen2.5-coder-7b")
	tests := []struct {
		name     string
		env      map[string]string
		dotenv   string // written to ./.env instead of the environment
		wantCode int
		want     []string
		dont     []string
	}{
		{"the configured model is served",
			map[string]string{"OPENAI_BASE_URL": served.URL + "/v1", "ATESOR_MODEL": "qwen2.5-coder-7b"}, "", exitOK,
			[]string{"no OPENAI_API_KEY (none needed with OPENAI_BASE_URL set", "serves 2 model(s): llama-3.1-8b, qwen2.5-coder-7b",
				"model qwen2.5-coder-7b is served by the endpoint", "priced at $0 in / $0 out", "custom endpoint OPENAI_BASE_URL"},
			[]string{"PROBLEM  model"}},
		{"the same from a .env file, with a price",
			nil, "LLM_PROVIDER=openai\nOPENAI_BASE_URL=" + served.URL + "/v1\nATESOR_MODEL=qwen2.5-coder-7b\nATESOR_PRICE_INPUT=0.1\nATESOR_PRICE_OUTPUT=0.2\n", exitOK,
			[]string{"model qwen2.5-coder-7b is served by the endpoint", "priced at $0.1 in / $0.2 out"}, nil},
		{"a model the server does not serve",
			map[string]string{"OPENAI_BASE_URL": served.URL + "/v1", "ATESOR_MODEL": "gpt-oss-20b", "ATESOR_MODEL_FIXER": "llama-3.1-8b"}, "", exitFailed,
			[]string{"PROBLEM  model gpt-oss-20b is not among the endpoint's models", "set ATESOR_MODEL", "model llama-3.1-8b is served"}, nil},
		{"the table's models when none is set",
			map[string]string{"OPENAI_BASE_URL": served.URL + "/v1"}, "", exitFailed,
			[]string{"model gpt-4o is not among", "model gpt-4o-mini is not among"}, nil},
		{"an unreachable server",
			map[string]string{"OPENAI_BASE_URL": closedURL, "ATESOR_MODEL": "m"}, "", exitFailed,
			[]string{"PROBLEM  the endpoint does not answer GET /models", "check OPENAI_BASE_URL"}, nil},
		{"a server that does not answer in time",
			map[string]string{"OPENAI_BASE_URL": slow.URL + "/v1", "ATESOR_MODEL": "m", "ATESOR_LLM_TIMEOUT": "1"}, "", exitFailed,
			[]string{"PROBLEM  the endpoint does not answer GET /models"}, nil},
		{"a URL that is not the API root",
			map[string]string{"OPENAI_BASE_URL": served.URL, "ATESOR_MODEL": "m"}, "", exitFailed,
			[]string{"PROBLEM  the endpoint does not answer GET /models", "HTTP 404"}, nil},
		{"a malformed URL",
			map[string]string{"OPENAI_BASE_URL": "localhost:8080/v1"}, "", exitFailed,
			[]string{"PROBLEM  OPENAI_BASE_URL=\"localhost:8080/v1\" is not an http(s) URL"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.env["LLM_PROVIDER"] = "openai"
			if tt.dotenv != "" {
				delete(c.env, "LLM_PROVIDER")
				// The user's own .env: the working directory's may not redirect model traffic.
				dir := filepath.Join(c.env["HOME"], ".config", "atesor-ai")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(tt.dotenv), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for k, v := range tt.env {
				c.env[k] = v
			}
			start := time.Now()
			o := c.run("doctor")
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("doctor took %s", d)
			}
			section := o.stdout[strings.Index(o.stdout, "Model provider"):]
			if tt.wantCode == exitOK && strings.Contains(section, "PROBLEM") {
				t.Errorf("a problem in the provider section; %s", o)
			}
			if tt.wantCode == exitFailed && o.code != exitFailed {
				t.Errorf("exit %d, want %d; %s", o.code, tt.wantCode, o)
			}
			for _, w := range tt.want {
				if !strings.Contains(section, w) {
					t.Errorf("doctor output lacks %q; %s", w, o)
				}
			}
			for _, w := range tt.dont {
				if strings.Contains(section, w) {
					t.Errorf("doctor output has %q; %s", w, o)
				}
			}
		})
	}
}
