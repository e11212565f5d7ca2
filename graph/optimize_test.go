package graph

import (
	"context"
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
		if e.Kind == EventNodeStarted {
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
		if e.Kind == EventNodeStarted {
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
