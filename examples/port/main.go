// Command port ports a package from Go code with Atesor's default pieces: the provider
// chosen by the environment (LLM_PROVIDER and its key; LLM_PROVIDER=none for no model),
// the few-shot memory and recipe cache of the state home, and the rootfs sandbox, which
// is provisioned on first use (as root, with the host tools installed).
//
//	LLM_PROVIDER=none go run ./examples/port ./testdata/packages/hello
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider"
	_ "github.com/eclipse-atesor/atesor-go/provider/all" // link gemini, openai, openrouter, anthropic
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: port SOURCE   (a directory, a source tarball path or URL, or a git URL)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := port(ctx, os.Args[1], "debian")
	if err != nil {
		fmt.Fprintln(os.Stderr, "port:", err)
		os.Exit(2)
	}
	fmt.Printf("%s: %s on %s\n", res.Package, res.Status, res.Sandbox)
	for _, a := range res.Artifacts {
		fmt.Printf("  %s %s riscv64=%v\n", a.Kind, a.Path, a.RISCV64)
	}
	if res.Reason != "" {
		fmt.Println("  reason:", res.Reason)
	}
	fmt.Println("  recipe:", res.Files[atesor.FileRecipe])
	fmt.Println("  report:", res.Files[atesor.FileReport])
	if !res.Status.Succeeded() {
		os.Exit(1)
	}
}

// port runs the pipeline once with the default pieces.
func port(ctx context.Context, source, platform string) (*atesor.Result, error) {
	p, err := knowledge.Profile(platform)
	if err != nil {
		return nil, err
	}
	// The provider: nil for LLM_PROVIDER=none, an error naming the key variable when the
	// key is missing.
	prov, err := provider.FromEnv(ctx)
	if err != nil {
		return nil, err
	}
	home, err := memory.Home()
	if err != nil {
		return nil, err
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox(p.SandboxKey()))
	if err != nil {
		return nil, err
	}
	g, err := graph.New(graph.Config{
		Provider: prov,
		Memory:   store,
		// Opened only after a recipe-cache miss; provisioning reports its steps.
		OpenSandbox: func(ctx context.Context, pl atesor.Platform) (atesor.Sandbox, error) {
			// Registering qemu-riscv64 in binfmt_misc changes the whole host, so the
			// sandbox never does it by itself (as root; a no-op when it is registered).
			if err := sandbox.SetupBinfmt(); err != nil {
				return nil, err
			}
			return sandbox.NewRootfs(ctx, pl, sandbox.WithProgress(func(pr sandbox.Progress) {
				if pr.Stage != "bootstrap" {
					fmt.Fprintf(os.Stderr, "sandbox %s: %s\n", pr.Stage, pr.Message)
				}
			}))
		},
		OutputDir: "atesor-out",
	}, graph.WithEvents(func(e atesor.Event) {
		switch e.Kind {
		case atesor.EventNodeStarted:
			fmt.Fprintf(os.Stderr, "[%s] %s\n", e.Elapsed.Round(1e9), e.Node)
		case atesor.EventPhase:
			fmt.Fprintf(os.Stderr, "[%s]   %s\n", e.Elapsed.Round(1e9), e.Phase)
		}
	}))
	if err != nil {
		return nil, err
	}
	return g.Run(ctx, atesor.Request{Source: source, Platform: platform})
}
