package graph

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
)

// auditEntry is the part of an audit log entry the name tests read.
type auditEntry struct {
	Role string
	Meta map[string]any
}

func (h *harness) auditEntries() []auditEntry {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.out, llm.AuditFileName("vecsum")))
	if err != nil {
		h.t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^ROLE: (.*)\n(?:.*\n){3}METADATA: (.*)$`)
	var out []auditEntry
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		e := auditEntry{Role: m[1]}
		if err := json.Unmarshal([]byte(m[2]), &e.Meta); err != nil {
			h.t.Fatalf("metadata %q: %v", m[2], err)
		}
		out = append(out, e)
	}
	return out
}

// TestNamesAgreeBetweenEventsAndAuditLog: each model call is logged under the node that
// made it, as events name that node, with its agent label as the role and the model
// pool's role beside it when they differ.
func TestNamesAgreeBetweenEventsAndAuditLog(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RolePlanner, `{"purpose": "sums vectors", "build_system": {"type": "make", "confidence": 0.9, "reasoning": "a Makefile"}, "language": "C"}`)
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	if res := h.run(); !res.Verified {
		t.Fatalf("status = %s (%s)", res.Status, res.Reason)
	}
	started := map[string]bool{}
	for _, e := range h.events {
		if e.Kind == atesor.EventNodeStarted {
			started[e.Node] = true
		}
	}
	entries := h.auditEntries()
	if len(entries) == 0 {
		t.Fatal("no audit entries")
	}
	want := map[string]struct{ node, role string }{
		"analyst":    {NodeAnalyst, string(atesor.RolePlanner)},
		"fixer":      {NodeFix, string(atesor.RoleFixer)},
		"scout":      {NodeScout, string(atesor.RoleScout)},
		"summarizer": {NodeFinish, string(atesor.RoleSummarizer)},
		"curator":    {NodeFinish, string(atesor.RoleSummarizer)},
	}
	seen := map[string]bool{}
	for _, e := range entries {
		node, _ := e.Meta["node"].(string)
		if !started[node] {
			t.Errorf("audit entry %s names node %q, which no event started (events: %v)", e.Role, node, started)
		}
		w, ok := want[e.Role]
		if !ok {
			t.Errorf("audit role label %q is not documented", e.Role)
			continue
		}
		seen[e.Role] = true
		if node != w.node {
			t.Errorf("audit entry %s: node %q, want %q", e.Role, node, w.node)
		}
		llmRole, _ := e.Meta["llm_role"].(string)
		if e.Role != w.role && llmRole != w.role {
			t.Errorf("audit entry %s: llm_role %q, want %q", e.Role, llmRole, w.role)
		}
	}
	for _, label := range []string{"analyst", "fixer"} {
		if !seen[label] {
			t.Errorf("no audit entry for %s", label)
		}
	}
}
