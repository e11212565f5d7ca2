package graph_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// A pipeline over a scripted sandbox: the build leaves a riscv64 program behind, so the
// offline port verifies. With sandbox.NewRootfs as OpenSandbox the same code ports for
// real.
func ExampleNew() {
	platform, _ := knowledge.Profile("debian")
	tmp, _ := os.MkdirTemp("", "atesor-example-")
	defer os.RemoveAll(tmp)
	sb := sandboxtest.NewAt(filepath.Join(tmp, "sandbox"), platform)
	sb.Add(sandboxtest.Rule{
		Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make -j") },
		Do: func(sb *sandboxtest.Sandbox, _ atesor.Command) {
			elf, _ := os.ReadFile("../testdata/elf/riscv64-glibc-hello")
			_ = os.WriteFile(filepath.Join(sb.Root(), "workspace/vecsum/vecsum"), elf, 0o755)
		},
	})
	p, err := graph.New(graph.Config{Sandbox: sb, OutputDir: filepath.Join(tmp, "out"), RunsDir: filepath.Join(tmp, "runs")})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := p.Run(context.Background(), atesor.Request{Source: "../testdata/packages/vecsum"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Package, res.Status, res.Verified)
	for _, a := range res.Artifacts {
		fmt.Println(filepath.Base(a.Path), a.Machine, a.FloatABI)
	}
	// Output:
	// vecsum verified true
	// vecsum EM_RISCV lp64d
}
