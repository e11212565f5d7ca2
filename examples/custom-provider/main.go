// Command custom-provider shows a custom atesor.Provider: any server that speaks the
// OpenAI chat completions protocol, addressed by its base URL.
//
//	go run ./examples/custom-provider -base-url http://localhost:8080/v1 -model qwen2.5-coder ask "Say hello"
//	go run ./examples/custom-provider -base-url http://localhost:8080/v1 -model qwen2.5-coder port ./testdata/packages/hello
//
// The key, if the server needs one, is read from the variable named by -key-env.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/cloudwego/eino/schema"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func main() {
	baseURL := flag.String("base-url", os.Getenv("OPENAI_COMPATIBLE_BASE_URL"), "API root of the server, for example http://localhost:8080/v1")
	modelID := flag.String("model", os.Getenv("OPENAI_COMPATIBLE_MODEL"), "model id")
	keyEnv := flag.String("key-env", "OPENAI_COMPATIBLE_API_KEY", "variable that holds the API key (unset: no key)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: custom-provider [flags] ask PROMPT | port SOURCE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 || *baseURL == "" || *modelID == "" {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p := &Compatible{BaseURL: *baseURL, Model: *modelID, APIKey: os.Getenv(*keyEnv)}
	var err error
	switch flag.Arg(0) {
	case "ask":
		err = ask(ctx, p, flag.Arg(1))
	case "port":
		err = port(ctx, p, flag.Arg(1))
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "custom-provider:", err)
		os.Exit(1)
	}
}

// ask sends one prompt through the scout's model.
func ask(ctx context.Context, p atesor.Provider, prompt string) error {
	cm, err := p.ChatModel(ctx, p.Pool(atesor.RoleScout)[0])
	if err != nil {
		return err
	}
	msg, err := cm.Generate(ctx, []*schema.Message{schema.UserMessage(prompt)})
	var pe *atesor.ProviderError
	if errors.As(err, &pe) {
		return fmt.Errorf("the server answered HTTP %d: %w", pe.Status, err)
	}
	if err != nil {
		return err
	}
	fmt.Println(msg.Content)
	return nil
}

// port runs the whole pipeline with this provider in the default rootfs sandbox.
func port(ctx context.Context, p atesor.Provider, source string) error {
	home, err := memory.Home()
	if err != nil {
		return err
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox("debian-riscv64"))
	if err != nil {
		return err
	}
	g, err := graph.New(graph.Config{
		Provider: p,
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
		return err
	}
	res, err := g.Run(ctx, atesor.Request{Source: source, Platform: "debian"})
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s (%d model calls, $%.4f)\n", res.Package, res.Status, res.Usage.Calls, res.Usage.CostUSD)
	return nil
}
