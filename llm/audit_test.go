package llm_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/llm"
)

func TestAuditLogEntry(t *testing.T) {
	dir := t.TempDir()
	l, err := llm.OpenAuditLog(dir, "github.com/madler/zlib", "sk-secret-1234")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", llm.AuditTextLimit+123)
	err = l.Log(llm.Record{
		CallID: "c1", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Role: "optimizer", Model: "gpt-4o",
		CostUSD: 0.0001234567, InputTokens: 10, OutputTokens: 20,
		Metadata: map[string]any{"repository": "zlib", "attempt": 2, "pool_index": 1, "phase": "optimize-harness-c"},
		Prompt:   "[user]\nkey sk-secret-1234", Response: long,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agent-call_github.com_madler_zlib.log")
	if l.Path() != path {
		t.Errorf("path %s", l.Path())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"CALL ID: c1", "TIMESTAMP: 2026-01-02T03:04:05Z", "ROLE: optimizer", "MODEL: gpt-4o", "COST: $0.000123",
		"TOKENS: input=10 output=20",
		`METADATA: {"attempt":2,"phase":"optimize-harness-c","pool_index":1,"repository":"zlib"}`,
		"[truncated: 123 more characters]", "key [redacted]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("entry lacks %q", want)
		}
	}
	if strings.Contains(text, "sk-secret-1234") {
		t.Error("the key reached the log")
	}
}

func TestAuditLogBlanksEnvironmentKeys(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-env-secret-9876")
	t.Setenv("GOOGLE_API_KEY", "AIza-env-secret-5432")
	l := llm.NewAuditLog(nil)
	if err := l.Log(llm.Record{Prompt: "use sk-env-secret-9876", Response: "key AIza-env-secret-5432"}); err != nil {
		t.Fatal(err)
	}
	r := l.Records()[0]
	if strings.Contains(r.Prompt+r.Response, "env-secret") {
		t.Errorf("a key from the environment reached the log: %+v", r)
	}
}

func TestAuditLogConcurrentAndBounded(t *testing.T) {
	var sb safeBuilder
	l := llm.NewAuditLog(&sb)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				_ = l.Log(llm.Record{Role: "scout", Model: fmt.Sprint(w), Prompt: "p", Response: "r"})
			}
		}()
	}
	wg.Wait()
	recs := l.Records()
	if len(recs) != llm.AuditMemoryRecords {
		t.Errorf("%d records in memory, want %d", len(recs), llm.AuditMemoryRecords)
	}
	if n := strings.Count(sb.String(), "CALL ID: "); n != 1200 {
		t.Errorf("%d entries written, want 1200", n)
	}
	ids := map[string]bool{}
	for _, r := range recs {
		if r.CallID == "" || ids[r.CallID] || r.Time.IsZero() {
			t.Fatalf("bad record %+v", r)
		}
		ids[r.CallID] = true
	}
	var nilLog *llm.AuditLog
	if nilLog.Log(llm.Record{}) != nil || nilLog.Records() != nil {
		t.Error("nil log is not a no-op")
	}
}

type safeBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *safeBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
