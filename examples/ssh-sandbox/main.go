// Command ssh-sandbox shows a custom atesor.Sandbox: a native riscv64 board reached
// over SSH (the ssh command-line client, so ~/.ssh/config, keys and agents work as
// usual). It ports a package on the board instead of in an emulated sandbox:
//
//	go run ./examples/ssh-sandbox -target builder@visionfive2 -root /home/builder/atesor ./testdata/packages/hello
//
// The model provider comes from the environment as for the atesor command
// (LLM_PROVIDER=none ports without a model).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider"
	_ "github.com/eclipse-atesor/atesor-go/provider/all"
)

func main() {
	target := flag.String("target", "", "ssh destination of the riscv64 board, for example builder@visionfive2")
	root := flag.String("root", "", "board directory that holds the sandbox's /workspace (default: the board's /)")
	platform := flag.String("platform", "debian", "the board's distro: debian, ubuntu or alpine")
	sshOpts := flag.String("ssh-options", "", "extra ssh options, space separated (for example \"-p 2222\")")
	flag.Parse()
	if *target == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: ssh-sandbox -target USER@BOARD [-root DIR] [-platform NAME] SOURCE")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *target, *root, *platform, strings.Fields(*sshOpts), flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "ssh-sandbox:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, target, root, platform string, opts []string, source string) error {
	profile, err := knowledge.Profile(platform)
	if err != nil {
		return err
	}
	board := &SSH{Target: target, Root: root, Options: opts, Profile: profile}
	res, err := board.Exec(ctx, atesor.Command{Line: "uname -m", Dir: "/"})
	if err != nil {
		return err
	}
	if arch := strings.TrimSpace(res.Stdout); arch != "riscv64" {
		return fmt.Errorf("%s is a %s machine, not riscv64", target, arch)
	}
	prov, err := provider.FromEnv(ctx)
	if err != nil {
		return fmt.Errorf("%w (or set LLM_PROVIDER=none to port without a model)", err)
	}
	home, err := memory.Home()
	if err != nil {
		return err
	}
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox(profile.SandboxKey()))
	if err != nil {
		return err
	}
	g, err := graph.New(graph.Config{Provider: prov, Sandbox: board, Memory: store, OutputDir: "atesor-out"},
		graph.WithEvents(func(e atesor.Event) {
			if e.Kind == atesor.EventNodeStarted || e.Kind == atesor.EventPhase {
				fmt.Fprintf(os.Stderr, "[%s] %s %s\n", e.Elapsed.Round(1e9), e.Node, e.Phase)
			}
		}))
	if err != nil {
		return err
	}
	out, err := g.Run(ctx, atesor.Request{Source: source, Platform: platform})
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s on %s (%d artifacts)\n", out.Package, out.Status, target, len(out.Artifacts))
	return nil
}
