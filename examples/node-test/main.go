// Command node-test shows a replaced pipeline node that asks a model: the analyst in
// node.go makes its call through the run's Ask, so the call is in the audit log
// (agent-call_<repo>.log), its rejected answers are events, and its tokens are in the
// report, as the built-in analyst's are. node_test.go tests it in a whole pipeline run
// with the fake provider and the fake sandbox, without any network or riscv64 system.
//
// Running the program does the same once: it ports a package directory (default
// testdata/packages/vecsum, run from the repository root) with a scripted answer, and
// prints the stored analysis and where the audit log is.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

func main() {
	src := flag.String("source", "testdata/packages/vecsum", "the package directory to port")
	flag.Parse()
	if err := run(context.Background(), *src); err != nil {
		fmt.Fprintln(os.Stderr, "node-test:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, src string) error {
	p := fake.New()
	p.Queue(atesor.RolePlanner, `{"purpose": "sums vectors", "language": "C",
		"build_system": {"type": "make", "confidence": 0.95, "reasoning": "Makefile"},
		"dependencies": [], "needs_custom_plan": false, "complexity": 1}`)
	tmp, err := os.MkdirTemp("", "node-test-")
	if err != nil {
		return err
	}
	platform, err := knowledge.Profile("debian")
	if err != nil {
		return err
	}
	// The fake sandbox answers every command with success; the port ends unverified
	// (nothing builds), which is all this program needs: the analyst ran.
	res, err := portWith(ctx, p, sandboxtest.NewAt(tmp+"/sandbox", platform), src, tmp+"/out", nil)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(res.State.Analysis, "", "  ")
	fmt.Println(string(b))
	fmt.Println("audit log:", res.Files[atesor.FileAudit])
	return nil
}

// portWith ports src with the house analyst in place of the built-in one.
func portWith(ctx context.Context, p atesor.Provider, sb atesor.Sandbox, src, out string, events func(atesor.Event)) (*atesor.Result, error) {
	opts := []graph.Option{graph.WithNode(graph.NodeAnalyst, AnalystNode{})}
	if events != nil {
		opts = append(opts, graph.WithEvents(events))
	}
	g, err := graph.New(graph.Config{Provider: p, Sandbox: sb, OutputDir: out}, opts...)
	if err != nil {
		return nil, err
	}
	return g.Run(ctx, atesor.Request{Source: src, MaxAttempts: 1})
}
