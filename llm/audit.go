package llm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go/internal/logfile"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// Limits of the audit log.
const (
	// AuditTextLimit is the number of characters of a prompt or response an entry keeps.
	AuditTextLimit = 10000
	// AuditMemoryRecords is the number of records kept in memory.
	AuditMemoryRecords = 1000
)

// Record is one entry of the audit log: one model call that returned a response.
type Record struct {
	CallID       string         `json:"call_id"`
	Time         time.Time      `json:"timestamp"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	CostUSD      float64        `json:"cost_usd"`
	InputTokens  int            `json:"input_tokens"`
	OutputTokens int            `json:"output_tokens"`
	Metadata     map[string]any `json:"metadata,omitempty"`
	// Prompt is the whole message thread sent, critiques included.
	Prompt string `json:"prompt"`
	// Response is the reply text.
	Response string `json:"response"`
}

// AuditLog records every model call of a package: one text file per package
// (agent-call_<repo>.log) plus the last 1000 records in memory. It is safe for concurrent
// use; a nil *AuditLog records nothing. Prompts and responses are cut at 10000
// characters with the dropped length noted, and the secrets it was given (API keys) are
// blanked out.
type AuditLog struct {
	mu      sync.Mutex
	w       io.Writer
	closer  io.Closer
	path    string
	secrets []string
	now     func() time.Time
	records []Record
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// AuditFileName returns the log file name of a repository: agent-call_<repo>.log, with
// characters unsafe in a file name replaced.
func AuditFileName(repo string) string {
	name := strings.Trim(unsafeName.ReplaceAllString(repo, "_"), "._")
	if name == "" {
		name = "unknown"
	}
	return "agent-call_" + name + ".log"
}

// OpenAuditLog opens (appending) or creates dir/agent-call_<repo>.log. secrets, and the
// API keys found in the environment's key variables, are blanked out of every entry.
func OpenAuditLog(dir, repo string, secrets ...string) (*AuditLog, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the log directory: %w", err)
	}
	path := filepath.Join(dir, AuditFileName(repo))
	f, err := logfile.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("open the LLM audit log: %w", err)
	}
	l := NewAuditLog(f, secrets...)
	l.closer, l.path = f, path
	return l, nil
}

// NewAuditLog returns a log that writes entries to w (nil: memory only). secrets, and the
// API keys found in the environment's key variables, are blanked out of every entry.
func NewAuditLog(w io.Writer, secrets ...string) *AuditLog {
	return &AuditLog{w: w, secrets: append(slices.Clone(secrets), provider.EnvKeys()...), now: time.Now}
}

// Path returns the log file's path, or "" for a log without a file.
func (l *AuditLog) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// Log writes one record; CallID and Time are filled in when empty. Prompt and Response
// are cut to [AuditTextLimit] characters. A write error is returned, the record is kept
// in memory anyway.
func (l *AuditLog) Log(r Record) error {
	if l == nil {
		return nil
	}
	if r.CallID == "" {
		r.CallID = newCallID()
	}
	if r.Time.IsZero() {
		r.Time = l.now()
	}
	r.Prompt = truncate(provider.Redact(r.Prompt, l.secrets...), AuditTextLimit)
	r.Response = truncate(provider.Redact(r.Response, l.secrets...), AuditTextLimit)
	entry := formatRecord(r)

	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	if n := len(l.records) - AuditMemoryRecords; n > 0 {
		l.records = slices.Delete(l.records, 0, n)
	}
	if l.w == nil {
		return nil
	}
	if _, err := io.WriteString(l.w, entry); err != nil {
		return fmt.Errorf("write the LLM audit log: %w", err)
	}
	return nil
}

// Records returns the records kept in memory (at most the last 1000), oldest first.
func (l *AuditLog) Records() []Record {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.records)
}

// Close closes the log file, if the log has one.
func (l *AuditLog) Close() error {
	if l == nil || l.closer == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.closer.Close()
	l.closer, l.w = nil, nil
	return err
}

func formatRecord(r Record) string {
	meta, err := json.Marshal(r.Metadata)
	if err != nil || r.Metadata == nil {
		meta = []byte("{}")
	}
	var b strings.Builder
	b.WriteString(strings.Repeat("=", 80) + "\n")
	fmt.Fprintf(&b, "CALL ID: %s\n", r.CallID)
	fmt.Fprintf(&b, "TIMESTAMP: %s\n", r.Time.UTC().Format(time.RFC3339Nano))
	fmt.Fprintf(&b, "ROLE: %s\n", r.Role)
	fmt.Fprintf(&b, "MODEL: %s\n", r.Model)
	fmt.Fprintf(&b, "COST: $%.6f\n", r.CostUSD)
	fmt.Fprintf(&b, "TOKENS: input=%d output=%d\n", r.InputTokens, r.OutputTokens)
	fmt.Fprintf(&b, "METADATA: %s\n", meta)
	b.WriteString("--- PROMPT ---\n")
	b.WriteString(r.Prompt)
	b.WriteString("\n--- RESPONSE ---\n")
	b.WriteString(r.Response)
	b.WriteString("\n")
	return b.String()
}

// FormatThread renders a message thread for the audit log: each message as
// "[role]" followed by its text.
func FormatThread(msgs []*schema.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if m == nil {
			continue
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", m.Role, m.Content)
	}
	return b.String()
}

// truncate keeps the first limit characters of s and notes how many were dropped.
func truncate(s string, limit int) string {
	n := 0
	for i := range s {
		if n == limit {
			dropped := len([]rune(s[i:]))
			return s[:i] + fmt.Sprintf("\n... [truncated: %d more characters]", dropped)
		}
		n++
	}
	return s
}

func newCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
