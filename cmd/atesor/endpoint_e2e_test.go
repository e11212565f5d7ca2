package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// tickFix is the stand-in model's fix for testdata/packages/tick: read the monotonic
// clock instead of the x86 cycle counter.
const tickFix = `--- a/tick.c
+++ b/tick.c
@@ -1,8 +1,11 @@
-#include <x86intrin.h>
+#include <time.h>
 
 #include "tick.h"
 
 unsigned long long tick_now(void)
 {
-	return __rdtsc();
+	struct timespec ts;
+
+	clock_gettime(CLOCK_MONOTONIC, &ts);
+	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
 }
`

// standInModel is a local OpenAI-compatible model server: it answers the fixer's prompt
// with tickFix and every other prompt with prose that holds no JSON (those nodes use
// their scripted fallbacks). It records the prompts' first lines and whether each
// request asked for response_format json_object.
type standInModel struct {
	mu       sync.Mutex
	fixer    int
	requests int
	jsonAsks int
	models   []string
}

func (m *standInModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "" {
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
		return
	}
	var req struct {
		Model          string `json:"model"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad body"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests++
	m.models = append(m.models, req.Model)
	if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object" {
		m.jsonAsks++
	}
	content := "I would rather not answer that one."
	if strings.Contains(req.Messages[0].Content, "You are the fixer") && strings.Contains(req.Messages[0].Content, "x86intrin.h") {
		m.fixer++
		fix, _ := json.Marshal(map[string]any{
			"analysis": "tick.c includes the x86-only <x86intrin.h> and reads the TSC with __rdtsc()",
			"strategies": []any{map[string]any{"id": 1, "description": "read CLOCK_MONOTONIC with clock_gettime instead of the x86 cycle counter",
				"actions": []any{map[string]any{"type": "patch", "file": "tick.c", "diff": tickFix}}}},
			"recommended_strategy_id": 1,
		})
		content = string(fix)
	}
	m.mu.Unlock()
	body, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// TestPortWithLocalEndpointE2E ports testdata/packages/tick in the real riscv64 sandbox
// with LLM_PROVIDER=openai and OPENAI_BASE_URL pointing at a stand-in local model
// server, whose fixer answer repairs the build: the port ends verified, at no cost.
func TestPortWithLocalEndpointE2E(t *testing.T) {
	e2e.Short(t)
	e2e.Root(t)
	model := &standInModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()

	c := newCLI(t)
	// The shared, already provisioned sandboxes; a fresh recipe cache and examples.
	if h, err := os.UserHomeDir(); err == nil {
		shared := filepath.Join(h, ".local", "share", "atesor-ai", "sandboxes")
		if err := os.MkdirAll(shared, 0o755); err == nil {
			if err := os.Symlink(shared, filepath.Join(c.home, "sandboxes")); err != nil {
				t.Fatal(err)
			}
		}
	}
	src := filepath.Join(c.dir, "tick")
	copyTree(t, filepath.Join("..", "..", "testdata", "packages", "tick"), src)
	c.env["LLM_PROVIDER"] = "openai"
	c.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	c.env["ATESOR_MODEL"] = "local-coder"
	out := filepath.Join(c.dir, "out")
	start := time.Now()
	o := c.runFor(30*time.Minute, "port", "--out", out, src)
	t.Logf("port took %s", time.Since(start).Round(time.Second))
	if o.code != exitOK {
		t.Fatalf("port: %s", o)
	}
	var rep struct {
		Status   string `json:"status"`
		Verified bool   `json:"verified"`
		Fixes    []struct {
			Success bool   `json:"success"`
			Source  string `json:"source"`
		} `json:"fixes"`
		LLM struct {
			Calls   int     `json:"calls"`
			CostUSD float64 `json:"cost_usd"`
			Prices  map[string]struct {
				Input  float64 `json:"input_usd_per_million"`
				Output float64 `json:"output_usd_per_million"`
				Source string  `json:"source"`
			} `json:"prices"`
		} `json:"llm"`
	}
	b, err := os.ReadFile(filepath.Join(out, "tick_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Status != "verified" || !rep.Verified {
		t.Fatalf("status %s verified %v; %s", rep.Status, rep.Verified, b)
	}
	fixed := false
	for _, f := range rep.Fixes {
		fixed = fixed || f.Success
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	if !fixed || model.fixer == 0 {
		t.Errorf("the model's fix did not repair the build (fixer asked %d times); fixes %+v", model.fixer, rep.Fixes)
	}
	price, ok := rep.LLM.Prices["local-coder"]
	if rep.LLM.CostUSD != 0 || rep.LLM.Calls == 0 || !ok || price.Input != 0 || price.Output != 0 || !strings.Contains(price.Source, "OPENAI_BASE_URL") {
		t.Errorf("llm usage: %+v", rep.LLM)
	}
	if model.jsonAsks == 0 {
		t.Error("no request asked for response_format json_object")
	}
	for _, m := range model.models {
		if m != "local-coder" {
			t.Errorf("a request for model %q, want local-coder (ATESOR_MODEL)", m)
		}
	}
	if !strings.Contains(o.stdout+o.stderr, "verified") {
		t.Errorf("the CLI does not say verified; %s", o)
	}
	if !strings.Contains(o.stdout+o.stderr, "price:     local-coder: $0 in / $0 out per million tokens (custom endpoint OPENAI_BASE_URL") {
		t.Errorf("the CLI does not say which price was used; %s", o)
	}
	fmt.Fprintf(os.Stderr, "model requests: %d (fixer %d, json asks %d)\n", model.requests, model.fixer, model.jsonAsks)
}

// copyTree copies the regular files of a directory tree.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
