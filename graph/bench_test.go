package graph

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// BenchmarkPipeline measures the pipeline's own overhead on a scripted offline port with
// the fake sandbox (no memory, so every iteration builds): detection, planning, routing,
// verification, recipe and outputs. Divide by the nodes per run for a per-node figure.
func BenchmarkPipeline(b *testing.B) {
	p, err := knowledge.Profile("debian")
	if err != nil {
		b.Fatal(err)
	}
	src := filepath.Join(b.TempDir(), "vecsum")
	copyDir(b, "../testdata/packages/vecsum", src)
	out := b.TempDir()
	nodes := 0
	b.ReportAllocs()
	for b.Loop() {
		sb := sandboxtest.New(b, p)
		sb.Add(sandboxtest.Rule{
			Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make -j") },
			Do: func(sb *sandboxtest.Sandbox, _ atesor.Command) {
				copyFile(b, "../testdata/elf/riscv64-glibc-hello", filepath.Join(sb.Root(), "workspace/vecsum/vecsum"))
			},
		})
		pl, err := New(Config{Sandbox: sb, OutputDir: out, RunsDir: filepath.Join(out, "runs")},
			WithEvents(func(e atesor.Event) {
				if e.Kind == atesor.EventNodeFinished {
					nodes++
				}
			}))
		if err != nil {
			b.Fatal(err)
		}
		res, err := pl.Run(context.Background(), atesor.Request{Source: src})
		if err != nil || !res.Verified {
			b.Fatalf("run: %v %+v", err, res)
		}
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}
