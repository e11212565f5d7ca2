package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestPortOptimize runs `atesor port --optimize` in process with the fake sandbox and
// the fake provider: the optimizer agent's program run is the workload; the -O3
// candidate is faster with the same output and wins, the vector build is faster still
// but prints something else and is rejected. The recipe gets its Performance section,
// the report JSON its performance, and the summary names the winner.
func TestPortOptimize(t *testing.T) {
	t.Setenv("ATESOR_HOME", t.TempDir())
	out := filepath.Join(t.TempDir(), "out")
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	// Every run opens a fresh sandbox, as a real run does.
	open := func(context.Context, atesor.Platform) (atesor.Sandbox, error) {
		return optimizeSandbox(t, p), nil
	}
	prov := fake.New()
	prov.QueueLabel("optimizer", fake.Reply{Text: `{"program":"hello","command":"./hello"}`})

	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, provider: prov, openSandbox: open}
	args := []string{"port", "--optimize", "--out", out, "--json", helloSource(t)}
	if code := run(context.Background(), a, args); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	var res graph.Report
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || !res.Verified {
		t.Fatalf("result %+v (%v)\nstderr:\n%s", res, err, &stderr)
	}

	b, err := os.ReadFile(res.Files[atesor.FileReport])
	if err != nil {
		t.Fatal(err)
	}
	// --json prints the report file's document, performance section included.
	if diff := cmp.Diff(string(b), stdout.String()); diff != "" || res.Performance == nil {
		t.Errorf("--json output is not the report file (-file +stdout):\n%s", diff)
	}
	var rep graph.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	perf := rep.Performance
	if perf == nil {
		t.Fatalf("the report JSON has no performance:\n%s", b)
	}
	if perf.Source != atesor.WorkloadProgram || perf.Workload != "./hello" || perf.Winner != "O3" || len(perf.Variants) != 4 {
		t.Fatalf("performance: source %s, workload %q, winner %q, %d variants", perf.Source, perf.Workload, perf.Winner, len(perf.Variants))
	}
	for _, v := range perf.Variants {
		wantAccepted := v.Name != "O3-rvv"
		if v.Accepted != wantAccepted || len(v.Durations) < 5 {
			t.Errorf("variant %s: accepted %t (%s), %d runs", v.Name, v.Accepted, v.Rejected, len(v.Durations))
		}
	}
	if emulated := runtime.GOARCH != "riscv64"; perf.Emulated != emulated || (emulated && perf.Caveat != atesor.EmulatedCaveat) {
		t.Errorf("emulated %t, caveat %q", perf.Emulated, perf.Caveat)
	}
	// Instructions are counted only in the root-filesystem sandbox; the fake one says so.
	if runtime.GOARCH != "riscv64" && !strings.HasPrefix(perf.InstructionCounts, "unavailable: no instruction counter is set up for this sandbox") {
		t.Errorf("instruction counts: %q", perf.InstructionCounts)
	}
	// The JSON carries the figures in seconds.
	var raw struct {
		Performance struct {
			Variants []map[string]any `json:"variants"`
		} `json:"performance"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || len(raw.Performance.Variants) == 0 || raw.Performance.Variants[0]["median_seconds"] != 2.0 {
		t.Errorf("report JSON performance variants: %v (%v)", raw.Performance.Variants, err)
	}

	recipe, err := os.ReadFile(res.Files[atesor.FileRecipe])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Performance", "- Workload (agent-program): `./hello`", "| O3 | CFLAGS=-O3 CXXFLAGS=-O3 | 1.500 |",
		"rejected: its output differs from the baseline's", "Winner: **O3**", "export CFLAGS='-O3'", "- Instructions executed: "} {
		if !strings.Contains(string(recipe), want) {
			t.Errorf("the recipe lacks %q:\n%s", want, recipe)
		}
	}
	if runtime.GOARCH != "riscv64" && !strings.Contains(string(recipe), "Emulated — not a hardware measurement") {
		t.Errorf("the recipe lacks the emulation caveat:\n%s", recipe)
	}

	// Without --json the summary names the winner and the caveat.
	stdout.Reset()
	// The second run rebuilds the recipe-cache entry and asks for a workload again.
	prov = fake.New()
	prov.QueueLabel("optimizer", fake.Reply{Text: `{"program":"hello","command":"./hello"}`})
	a.provider = prov
	if code := run(context.Background(), a, []string{"port", "--optimize", "--out", out, helloSource(t)}); code != exitOK {
		t.Fatalf("second run: exit %d\n%s\n%s", code, &stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "  performance: winner O3 of 4 variants, workload ./hello (") {
		t.Errorf("summary:\n%s", &stdout)
	}
}

// optimizeSandbox is a fake sandbox where make plants a riscv64 program and library, and
// ./hello is the workload: the baseline takes 2 s, -O3 1.5 s with the same output, the
// vector build 0.5 s with a different output, the LTO build 1.8 s.
func optimizeSandbox(t *testing.T, p atesor.Platform) *sandboxtest.Sandbox {
	sb := sandboxtest.New(t, p)
	sb.Add(sandboxtest.BuildRule("make", map[string]sandboxtest.Fixture{
		"hello": sandboxtest.RISCV64Executable, "libhello.a": sandboxtest.RISCV64StaticLibrary,
	}))
	for _, v := range []struct {
		suffix string // of the variant's directory; "" for the baseline's
		res    atesor.CommandResult
	}{
		{"-atesor-O3", atesor.CommandResult{Stdout: "Hello, world!\n", Duration: 1500 * time.Millisecond}},
		{"-atesor-O3-rvv", atesor.CommandResult{Stdout: "Hello, w0rld!\n", Duration: 500 * time.Millisecond}},
		{"-atesor-O3-lto", atesor.CommandResult{Stdout: "Hello, world!\n", Duration: 1800 * time.Millisecond}},
		{"", atesor.CommandResult{Stdout: "Hello, world!\n", Duration: 2 * time.Second}},
	} {
		sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool {
			if c.Line != "./hello" {
				return false
			}
			if v.suffix == "" {
				return !strings.Contains(c.Dir, "-atesor-")
			}
			return strings.HasSuffix(c.Dir, v.suffix)
		}, Result: v.res})
	}
	return sb
}
