package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// Performance mode builds, runs and tests with the Go toolchain the port fetched (its
// PATH first in every command's environment) and with the build's SOURCE_DATE_EPOCH,
// as the verified build did; a port on the suite's Go adds nothing.
func TestOptimizeUsesFetchedGoToolchain(t *testing.T) {
	toolchainPath := "PATH=/opt/atesor/go/bin:" + sandbox.DefaultPath
	for _, tc := range []struct {
		name    string
		tc      *atesor.GoToolchain
		wantEnv []string
	}{
		{"fetched", &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", Source: atesor.GoToolchainProxyAMD64, GOROOT: "/opt/atesor/go"},
			[]string{toolchainPath, "SOURCE_DATE_EPOCH=1700000000"}},
		{"suite", &atesor.GoToolchain{Version: "go1.24.4", Arch: "riscv64", Source: atesor.GoToolchainSuite},
			[]string{"SOURCE_DATE_EPOCH=1700000000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &atesor.State{
				RunPart:      atesor.RunPart{RepoName: "gopkg", RepoDir: "/workspace/gopkg"},
				SourcePart:   atesor.SourcePart{SourceDateEpoch: 1700000000},
				AnalysisPart: atesor.AnalysisPart{Analysis: &atesor.PackageAnalysis{Language: "go"}},
				BuildPart:    atesor.BuildPart{GoToolchain: tc.tc, ExecutedCommands: []string{"go build ./..."}},
				TestPart:     atesor.TestPart{Tests: &atesor.TestResult{Commands: []string{"go test ./..."}, Passed: true}},
			}
			tgt := (&run{}).optimizeTarget(s)
			tgt.Source = fstest.MapFS{"go.mod": {Data: []byte("module example.com/gopkg\n")}, "main.go": {Data: []byte("package main\n")}}
			sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
			sb.SetRepo("gopkg")
			sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "go test -run") },
				Result: atesor.CommandResult{Stdout: "BenchmarkSum-2 1 1000 ns/op\nok\n", Duration: time.Second}})
			hw := false
			o := &optimize.Optimizer{Sandbox: sb, Emulated: &hw,
				Candidates: []optimize.Candidate{{Name: "rva22u64", Env: []string{"GORISCV64=rva22u64"}}}}
			res, err := o.Run(context.Background(), tgt)
			if err != nil {
				t.Fatal(err)
			}
			if p := res.Performance; len(p.Variants) != 2 || !p.Variants[1].Accepted {
				t.Fatalf("performance %+v", p)
			}
			var build, bench, test int
			for _, c := range sb.Commands() {
				switch {
				case strings.HasPrefix(c.Line, "go build"):
					build++
				case strings.HasPrefix(c.Line, "go test -run"):
					bench++
				case strings.HasPrefix(c.Line, "go test"):
					test++
				default:
					continue
				}
				if len(c.Env) < len(tc.wantEnv) || strings.Join(c.Env[:len(tc.wantEnv)], " ") != strings.Join(tc.wantEnv, " ") {
					t.Errorf("`%s` in %s ran with env %q, want it to start with %q", c.Line, c.Dir, c.Env, tc.wantEnv)
				}
				if strings.HasSuffix(c.Dir, "-atesor-rva22u64") && !strings.Contains(strings.Join(c.Env, " "), "GORISCV64=rva22u64") {
					t.Errorf("`%s` of the candidate lacks its own env: %q", c.Line, c.Env)
				}
			}
			if build == 0 || bench < 1+2*optimize.DefaultRuns || test == 0 {
				t.Errorf("commands seen: %d builds, %d benchmark runs, %d test runs: %q", build, bench, test, sb.Lines())
			}
		})
	}
}

// toolchainSandbox is the fake sandbox answering as the root-filesystem sandbox does
// (it reports its toolchain and runs host programs), the one sandbox performance mode
// counts instructions in.
type toolchainSandbox struct{ *sandboxtest.Sandbox }

func (toolchainSandbox) Toolchain() sandbox.Toolchain { return sandbox.Toolchain{} }
func (toolchainSandbox) RunsHostPrograms() bool       { return true }

// In the root-filesystem sandbox the optimize node counts instructions: the counter's
// tools are prepared on the host (the real qemu-user and gcc, in the state home's
// cache) and copied into the sandbox, and each variant's counted run gives its count.
func TestOptimizeCountsInstructionsInTheRootfsSandbox(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ATESOR_HOME", home)
	if _, err := optimize.PrepareCounter(context.Background(), filepath.Join(home, "cache", "insncount")); err != nil {
		t.Skipf("the host cannot count instructions: %v", err)
	}
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasSuffix(c.Line, "--help </dev/null") },
		Result: sandboxtest.OK("usage: vecsum [-b]\n  -b   run the built-in benchmark\n")})
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.Contains(c.Line, " -plugin ") },
		Result: sandboxtest.OK("atesor-insns: 123456789\n")})
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return c.Line == "./vecsum -b" },
		Result: atesor.CommandResult{Stdout: "vecsum: sum 499999500000\n", Duration: 2 * time.Second}})
	p, err := New(Config{Sandbox: toolchainSandbox{h.sb}, Memory: h.mem, OutputDir: h.out, RunsDir: filepath.Join(h.out, "runs")},
		WithOptimizer(func(o *optimize.Optimizer) {
			o.Candidates = []optimize.Candidate{{Name: "O3", Env: []string{"CFLAGS=-O3"}}}
		}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), atesor.Request{Source: h.src, TestTimeout: time.Minute, Optimize: true})
	if err != nil || res.Status != atesor.StatusVerified {
		t.Fatalf("run: %v, status %s", err, res.Status)
	}
	perf := h.report().Performance
	if perf == nil || !strings.HasPrefix(perf.InstructionCounts, "guest instructions executed") {
		t.Fatalf("performance %+v", perf)
	}
	for _, v := range perf.Variants {
		if v.Instructions != 123456789 {
			t.Errorf("variant %s: %d instructions", v.Name, v.Instructions)
		}
	}
	if _, err := os.Stat(filepath.Join(h.sb.Root(), optimize.CounterInSandbox, "insncount.so")); err != nil {
		t.Errorf("the counting plugin was not copied into the sandbox: %v", err)
	}
}

// acceleratedReporter is a fake root-filesystem sandbox that reports an accelerated C
// toolchain, as the real one does.
type acceleratedReporter struct{ *sandboxtest.Sandbox }

func (acceleratedReporter) Toolchain() sandbox.Toolchain {
	return sandbox.Toolchain{
		C:  sandbox.ToolchainPart{Accelerated: true, Versions: map[string]string{"gcc-14-riscv64-linux-gnu": "14.2.0-19"}},
		Go: sandbox.ToolchainPart{Reason: "no Go in this sandbox"},
	}
}

// The report says which toolchain ran for a sandbox that reports one, although the
// pipeline only ever holds the sandbox through its timing wrapper.
func TestReportCarriesToolchainThroughTheWrapper(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	p, err := New(Config{Sandbox: acceleratedReporter{h.sb}, Memory: h.mem, OutputDir: h.out, RunsDir: filepath.Join(h.out, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), atesor.Request{Source: h.src, TestTimeout: time.Minute})
	if err != nil || res.Status != atesor.StatusVerified {
		t.Fatalf("run: %v, status %s", err, res.Status)
	}
	tc := h.report().Toolchain
	if tc == nil {
		t.Fatal("the report has no toolchain")
	}
	if diff := cmp.Diff(acceleratedReporter{}.Toolchain(), *tc); diff != "" {
		t.Errorf("report toolchain (-want +got):\n%s", diff)
	}

	// A sandbox that reports none gives the report none.
	h = newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	h.run()
	if tc := h.report().Toolchain; tc != nil {
		t.Errorf("toolchain %+v from a sandbox that reports none", tc)
	}
}
