package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// In performance mode the optimize node runs after finish: offline, the built program's
// own benchmark flag is the workload; the result reaches the report, the recipe and the
// recipe-cache entry, and the port's status stays verified.
func TestOptimizeNodeAfterFinish(t *testing.T) {
	h := newHarness(t, false)
	script := func() {
		h.builds(0, "riscv64-glibc-hello")
		h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasSuffix(c.Line, "--help </dev/null") },
			Result: sandboxtest.OK("usage: vecsum [-b]\n  -b   run the built-in benchmark\n")})
		h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return c.Line == "./vecsum -b" },
			Result: atesor.CommandResult{Stdout: "vecsum: 1000000 elements, sum 499999500000\n", Duration: 2 * time.Second}})
	}
	script()
	res, err := h.pipeline(WithOptimizer(func(o *optimize.Optimizer) {
		o.Candidates = []optimize.Candidate{{Name: "O3", Env: []string{"CFLAGS=-O3"}}}
	})).Run(context.Background(), atesor.Request{Source: h.src, TestTimeout: time.Minute, Optimize: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != atesor.StatusVerified {
		t.Fatalf("status %s: %s", res.Status, res.Reason)
	}
	var order []string
	for _, e := range h.events {
		if e.Kind == atesor.EventNodeStarted {
			order = append(order, e.Node)
		}
	}
	if n := len(order); n < 2 || order[n-2] != NodeFinish || order[n-1] != NodeOptimize {
		t.Fatalf("node order %v: want finish then optimize last", order)
	}
	p := h.report().Performance
	if p == nil || p.Source != atesor.WorkloadBenchmark || p.Workload != "./vecsum -b" || len(p.Variants) != 2 {
		t.Fatalf("performance %+v", p)
	}
	if v := p.Variants[1]; !v.Accepted || len(v.Durations) != optimize.DefaultRuns || v.Median != 2*time.Second {
		t.Errorf("O3 variant %+v", v)
	}
	// The O3 build replayed the verified build's commands in its own directory with
	// its flags.
	var rebuilt bool
	for _, c := range h.sb.Commands() {
		if strings.HasSuffix(c.Dir, "-atesor-O3") && strings.HasPrefix(c.Line, "make") && strings.Contains(strings.Join(c.Env, " "), "CFLAGS=-O3") {
			rebuilt = true
		}
	}
	if !rebuilt {
		t.Error("the O3 candidate was not rebuilt with its flags")
	}
	recipe, err := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	if err != nil || !strings.Contains(string(recipe), "## Performance") || !strings.Contains(string(recipe), "Emulated — not a hardware measurement") {
		t.Errorf("recipe lacks the Performance section: %v", err)
	}
	entry, err := h.mem.Recipe(context.Background(), "vecsum", h.platform.SandboxKey())
	if err != nil || entry == nil || entry.Performance == nil || entry.Performance.Winner != p.Winner {
		t.Errorf("cache entry %+v (%v)", entry, err)
	}

	// A second run in performance mode rebuilds from the cached recipe: no analyst,
	// the cached analysis marked as not grounded, and it is measured again.
	h.events = nil
	h.sb = sandboxtest.New(t, h.platform) // a fresh sandbox, as every run gets
	script()
	res, err = h.pipeline().Run(context.Background(), atesor.Request{Source: h.src, TestTimeout: time.Minute, Optimize: true})
	if err != nil {
		t.Fatal(err)
	}
	order = nil
	for _, e := range h.events {
		if e.Kind == atesor.EventNodeStarted {
			order = append(order, e.Node)
		}
	}
	if res.Status != atesor.StatusVerified || strings.Join(order, ",") != "init,build,verify,finish,optimize" {
		t.Errorf("cached rebuild: status %s, nodes %v", res.Status, order)
	}
	if st := res.State; st == nil || st.Analysis == nil || st.Analysis.LLMGrounded || st.PlanSource != planFromCache || st.Performance == nil {
		t.Errorf("cached rebuild state: %+v", st)
	}
}

// A run interrupted in the optimize node resumes into optimize: no analyst, no build
// node, the verified build made again in the fresh sandbox (its commands replayed), and
// measured.
func TestResumeIntoOptimize(t *testing.T) {
	h := newHarness(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	script := func(interrupt bool) {
		h.builds(0, "riscv64-glibc-hello")
		h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasSuffix(c.Line, "--help </dev/null") },
			Result: sandboxtest.OK("usage: vecsum [-b]\n  -b   run the built-in benchmark\n")})
		h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return c.Line == "./vecsum -b" },
			Do: func(*sandboxtest.Sandbox, atesor.Command) {
				if interrupt {
					cancel()
				}
			},
			Result: atesor.CommandResult{Stdout: "vecsum: sum 499999500000\n", Duration: 2 * time.Second}})
	}
	script(true)
	oneCandidate := WithOptimizer(func(o *optimize.Optimizer) {
		o.Candidates = []optimize.Candidate{{Name: "O3", Env: []string{"CFLAGS=-O3"}}}
	})
	req := atesor.Request{Source: h.src, TestTimeout: time.Minute, Optimize: true}
	if _, err := h.pipeline(oneCandidate).Run(ctx, req); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("the interrupted run returned %v, want ErrInterrupted", err)
	}
	if st := h.state(); st.LastNode != NodeFinish || st.NextNode != NodeOptimize || st.Performance != nil || !st.Verified {
		t.Fatalf("saved state: last %s, next %s, verified %t, performance %v", st.LastNode, st.NextNode, st.Verified, st.Performance)
	}

	// A fresh sandbox, as after a crash: the package is restored, rebuilt and measured.
	h.events = nil
	h.sb = sandboxtest.New(t, h.platform)
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "test -d ") }, Times: 1,
		Result: sandboxtest.Fail(1, "")})
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "test -e ") }, Times: 1,
		Result: sandboxtest.Fail(1, "")})
	script(false)
	req.Resume = true
	res, err := h.pipeline(oneCandidate).Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range h.events {
		if e.Kind == atesor.EventNodeStarted {
			order = append(order, e.Node)
		}
	}
	if res.Status != atesor.StatusVerified || strings.Join(order, ",") != NodeOptimize {
		t.Fatalf("resumed run: status %s, nodes %v", res.Status, order)
	}
	rebuilt := false
	for _, c := range h.sb.Commands() {
		rebuilt = rebuilt || (c.Dir == "/workspace/vecsum" && strings.HasPrefix(c.Line, "make"))
	}
	if !rebuilt {
		t.Errorf("the verified build was not made again in the fresh sandbox: %q", h.sb.Lines())
	}
	if p := h.report().Performance; p == nil || len(p.Variants) != 2 || p.Workload != "./vecsum -b" {
		t.Errorf("performance after resume: %+v", p)
	}
	// Measured once, the run is finished: a second resume is refused.
	if _, err := h.pipeline(oneCandidate).Run(context.Background(), req); err == nil || !strings.Contains(err.Error(), "already finished") {
		t.Errorf("resuming a measured run: %v", err)
	}
}
