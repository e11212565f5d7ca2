// Command trace ports a package and prints one line per pipeline node and per model call,
// with durations and tokens, from an Eino callback handler: the way to attach tracing,
// metrics or an observability backend (Langfuse, APMPlus, ...) to the pipeline without
// changing it.
//
//	go run ./examples/trace ./testdata/packages/hello
//
// The provider comes from the environment as for the CLI (LLM_PROVIDER=none ports
// offline); the sandbox is the default rootfs sandbox.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/cloudwego/eino/compose"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: trace SOURCE   (a directory, a source tarball path or URL, or a git URL)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p, err := knowledge.Profile("debian")
	if err != nil {
		fail(err)
	}
	prov, err := provider.FromEnv(ctx)
	if err != nil {
		fail(err)
	}
	home, err := memory.Home()
	if err != nil {
		fail(err)
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox(p.SandboxKey()))
	if err != nil {
		fail(err)
	}
	g, err := graph.New(graph.Config{
		Provider: prov,
		Memory:   store,
		OpenSandbox: func(ctx context.Context, pl atesor.Platform) (atesor.Sandbox, error) {
			if err := sandbox.SetupBinfmt(); err != nil { // qemu-riscv64 for the host, as root
				return nil, err
			}
			return sandbox.NewRootfs(ctx, pl)
		},
		OutputDir: "atesor-out",
	})
	if err != nil {
		fail(err)
	}
	t := NewTracer(os.Stdout)
	res, err := g.RunWith(ctx, atesor.Request{Source: os.Args[1]}, compose.WithCallbacks(t.Handler()))
	if err != nil {
		fail(err)
	}
	t.Summary()
	fmt.Printf("%s: %s\n", res.Package, res.Status)
	if !res.Status.Succeeded() {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "trace:", err)
	os.Exit(2)
}
