package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/compose"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// The tracer on a whole run with the fake provider and the fake sandbox: a line for each
// node and for the model call, with its duration and tokens.
func TestTracerPrintsNodesAndModelCalls(t *testing.T) {
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxtest.New(t, p)
	sb.Add(sandboxtest.BuildRule("make", map[string]sandboxtest.Fixture{
		"hello": sandboxtest.RISCV64Executable, "libhello.a": sandboxtest.RISCV64StaticLibrary, "libhello.so": sandboxtest.RISCV64SharedLibrary,
	}))
	prov := fake.New()
	prov.QueueReply(atesor.RolePlanner, fake.Reply{InputTokens: 1200, OutputTokens: 80, Text: `{"purpose": "a greeting library", "language": "C",
		"build_system": {"type": "make", "confidence": 0.95, "reasoning": "Makefile"}, "dependencies": [], "needs_custom_plan": false}`})
	home := t.TempDir()
	store, err := memory.Open(filepath.Join(home, "examples"), memory.WithRecipeCache(filepath.Join(home, "recipes.json")), memory.WithSandbox(p.SandboxKey()))
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.New(graph.Config{Provider: prov, Memory: store, Sandbox: sb, OutputDir: t.TempDir(), RunsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tr := NewTracer(&out)
	clock := time.Unix(0, 0)
	tr.now = func() time.Time { clock = clock.Add(250 * time.Millisecond); return clock }
	src, err := filepath.Abs("../../testdata/packages/hello")
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.RunWith(context.Background(), atesor.Request{Source: src, TestTimeout: time.Minute}, compose.WithCallbacks(tr.Handler()))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	tr.Summary()
	text := out.String()
	t.Logf("\n%s", text)
	for _, node := range []string{graph.NodeInit, graph.NodeAnalyst, graph.NodeBuild, graph.NodeVerify, graph.NodeFinish} {
		if !strings.Contains(text, "node  "+node) {
			t.Errorf("no line for node %s:\n%s", node, text)
		}
	}
	if !strings.Contains(text, "250ms  tokens in=1200 out=80") {
		t.Errorf("no model line with its duration and tokens:\n%s", text)
	}
	if !strings.Contains(text, "model calls, ") || !strings.Contains(text, "1280 tokens") {
		t.Errorf("summary missing or wrong:\n%s", text)
	}
}
