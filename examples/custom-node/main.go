// Command custom-node shows a replaced build node: node.go runs the plan's commands
// through the run's sandbox (atesor.Run.Sandbox) and asks a model for a note through the
// run's Ask, so its commands are events and its model call is in the audit log
// (agent-call_<repo>.log), as the built-in build node's are. node_test.go runs it in a
// whole port with the fake sandbox and the fake provider.
//
// The program ports a package directory in the host sandbox of this machine (a
// riscv64 host, or one where the package's build makes sense) with the house build
// node and no model (offline):
//
//	go run ./examples/custom-node -source ./mypkg -o atesor-out
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func main() {
	src := flag.String("source", "", "the package directory to port")
	out := flag.String("o", "atesor-out", "the output directory")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "usage: custom-node -source DIR [-o DIR]")
		os.Exit(2)
	}
	platform, err := knowledge.Profile("debian")
	if err != nil {
		fmt.Fprintln(os.Stderr, "custom-node:", err)
		os.Exit(1)
	}
	sb, err := sandbox.NewHost(platform)
	if err != nil {
		fmt.Fprintln(os.Stderr, "custom-node:", err)
		os.Exit(1)
	}
	defer sb.Close()
	res, err := port(context.Background(), nil, sb, *src, *out, func(e atesor.Event) {
		if e.Kind == atesor.EventCommand || e.Kind == atesor.EventInfo {
			fmt.Printf("[%s] %s\n", e.Node, e.Line)
		}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "custom-node:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %s (%s)\n", res.Package, res.Status, res.Reason)
}

// port ports src with the house build node in place of the built-in one.
func port(ctx context.Context, p atesor.Provider, sb atesor.Sandbox, src, out string, events func(atesor.Event)) (*atesor.Result, error) {
	g, err := graph.New(graph.Config{Provider: p, Sandbox: sb, OutputDir: out},
		graph.WithNode(graph.NodeBuild, BuildNode{}), graph.WithEvents(events))
	if err != nil {
		return nil, err
	}
	return g.Run(ctx, atesor.Request{Source: src, MaxAttempts: 2})
}
