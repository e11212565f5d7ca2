package graph

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// TestE2EOptimizeResume interrupts an offline performance-mode port of zlib while the
// -O3 candidate is being built, then resumes it: the resumed run goes straight to the
// optimize node in a fresh sandbox, makes the verified build again from its commands and
// measures it, without porting again.
func TestE2EOptimizeResume(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	zlib := debiantest.SourceTarball(t, "zlib", zlibFile)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	interrupt := WithOptimizer(func(o *optimize.Optimizer) {
		onlyO3(o)
		progress := o.Progress
		o.Progress = func(line string) {
			progress(line)
			if strings.HasPrefix(line, "building variant") {
				cancel()
			}
		}
	})
	req := atesor.Request{Source: zlib, TestTimeout: 5 * time.Minute, Optimize: true}
	start := time.Now()
	if _, err := e.pipeline(t, nil, interrupt).Run(ctx, req); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("the run interrupted in optimize returned %v, want ErrInterrupted", err)
	}
	t.Logf("zlib port, interrupted in performance mode: %s", time.Since(start).Round(time.Second))

	start = time.Now()
	var nodes []string
	rebuilt := false
	req.Resume = true
	// The pipeline of e.pipeline, with events of its own (e.pipeline's log them).
	resumed, err := New(Config{
		Memory: e.mem, OutputDir: e.out, RunsDir: filepath.Join(e.home, "runs"),
		OpenSandbox: func(ctx context.Context, p atesor.Platform) (atesor.Sandbox, error) {
			if err := sandbox.SetupBinfmt(); err != nil {
				return nil, err
			}
			return sandbox.NewRootfs(ctx, p)
		},
	}, WithOptimizer(onlyO3), WithEvents(func(ev atesor.Event) {
		switch {
		case ev.Kind == atesor.EventNodeStarted:
			nodes = append(nodes, ev.Node)
			t.Logf("[%6.1fs] %s", ev.Elapsed.Seconds(), ev.Node)
		case ev.Kind == atesor.EventInfo && strings.HasPrefix(ev.Line, "rebuilding the verified build"):
			rebuilt = true
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := resumed.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(nodes, ",") != NodeOptimize || !rebuilt {
		t.Errorf("resumed run: nodes %v, rebuilt %t; want only optimize, after rebuilding", nodes, rebuilt)
	}
	p := checkPerformance(t, e, res, atesor.WorkloadTests)
	if len(p.Variants) != 2 {
		t.Errorf("%d variants", len(p.Variants))
	}
	t.Logf("zlib resumed into performance mode: %s", time.Since(start).Round(time.Second))
}
