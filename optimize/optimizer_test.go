package optimize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// fakeSandbox plays a package with a benchmark flag: each variant directory
// (/workspace/lz4-atesor-NAME, or the package directory for the baseline) has its
// benchmark report, run time, build and test outcome.
type fakeSandbox struct {
	mu       sync.Mutex
	help     string
	variants map[string]fakeVariant
	run      int
	execs    []atesor.Command
	copies   []string
}

type fakeVariant struct {
	size      string // the compressed size the benchmark reports
	dur       time.Duration
	buildFail bool
	testsFail bool
	insns     uint64 // what the counted run reports; 0 makes it fail
}

var _ atesor.Sandbox = (*fakeSandbox)(nil)

func (f *fakeSandbox) Platform() atesor.Platform { return atesor.Platform{} }

func variantOf(dir string) string {
	if _, name, ok := strings.Cut(dir, "-atesor-"); ok {
		return name
	}
	return "baseline"
}

func (f *fakeSandbox) Exec(_ context.Context, c atesor.Command) (atesor.CommandResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.execs = append(f.execs, c)
	v := f.variants[variantOf(c.Dir)]
	ok := atesor.CommandResult{Line: c.Line}
	switch {
	case strings.Contains(c.Line, " -plugin "):
		if v.insns == 0 {
			ok.ExitCode, ok.Stderr = 1, "qemu: Could not load plugin insncount.so"
			break
		}
		ok.Stdout = fmt.Sprintf("atesor-insns: %d\n", v.insns)
	case strings.HasSuffix(c.Line, "--help </dev/null"):
		ok.Stdout = f.help
	case c.Line == "./programs/lz4 -b":
		f.run++
		// The speed varies from run to run; the sizes are the variant's.
		ok.Stderr = fmt.Sprintf("Synthetic 50%%  :  10000000 ->  %s (2.102), %d.%d MB/s , 1541.1 MB/s\n", v.size, 200+f.run%7, f.run%10)
		ok.Duration = v.dur + time.Duration(f.run%3)*time.Millisecond
	case c.Line == "make" || strings.HasPrefix(c.Line, "./configure"):
		if v.buildFail {
			ok.ExitCode, ok.Output = 2, "cc: error: unrecognized command-line option"
		}
	case c.Line == "make test":
		if v.testsFail {
			ok.ExitCode, ok.Output = 1, "FAIL"
		}
	}
	return ok, nil
}

func (f *fakeSandbox) CopyIn(_ context.Context, src, dst string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.copies = append(f.copies, src+" -> "+dst)
	return nil
}
func (f *fakeSandbox) CopyOut(context.Context, string, string) error { return nil }
func (f *fakeSandbox) ReadFile(context.Context, string) ([]byte, error) {
	return nil, fs.ErrNotExist
}
func (f *fakeSandbox) WriteFile(context.Context, string, []byte, fs.FileMode) error { return nil }
func (f *fakeSandbox) Close() error                                                 { return nil }

const lz4Help = `Usage : lz4 [arg] [input] [output]
Benchmark arguments :
 -b#    : benchmark file(s), using # compression level (default : 1)
 -i#    : minimum evaluation time in seconds (default : 3s)
`

func lz4Target() Target {
	return Target{
		Package: "lz4", Language: "c", RepoDir: "/workspace/lz4",
		Source:   fstest.MapFS{"Makefile": {Data: []byte("all:\n\tcc lz4.c\n")}, "lz4.c": {Data: []byte("int main(){}")}},
		Commands: []string{"make"}, TestCommands: []string{"make test"}, TestsPassed: true,
		Artifacts: []atesor.Artifact{{Path: "/workspace/lz4/programs/lz4", Kind: atesor.KindExecutable}},
	}
}

func runFake(t *testing.T, sb *fakeSandbox, tgt Target) *atesor.Performance {
	t.Helper()
	emulated := true
	o := &Optimizer{Sandbox: sb, Emulated: &emulated, Now: func() time.Time { return time.Unix(0, 0) }}
	res, err := o.Run(context.Background(), tgt)
	if err != nil {
		t.Fatal(err)
	}
	return res.Performance
}

func variantByName(t *testing.T, p *atesor.Performance, name string) atesor.Variant {
	t.Helper()
	for _, v := range p.Variants {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variant %s in %+v", name, p.Variants)
	return atesor.Variant{}
}

// The fastest candidate prints a different compressed size: it is rejected however
// fast it is, and so is a faster one whose tests fail; the correct faster one wins.
func TestCandidateSelection(t *testing.T) {
	sb := &fakeSandbox{help: lz4Help, variants: map[string]fakeVariant{
		"baseline": {size: "4756415", dur: 10 * time.Second},
		"O3":       {size: "4756415", dur: 8 * time.Second},
		"O3-rvv":   {size: "4756999", dur: 3 * time.Second},
		"O3-lto":   {size: "4756415", dur: 5 * time.Second, testsFail: true},
	}}
	p := runFake(t, sb, lz4Target())
	if p.Source != atesor.WorkloadBenchmark || p.Workload != "./programs/lz4 -b" {
		t.Fatalf("workload %s %q", p.Source, p.Workload)
	}
	if p.Winner != "O3" {
		t.Errorf("winner %s, want O3; variants %+v", p.Winner, p.Variants)
	}
	if v := variantByName(t, p, "O3-rvv"); v.Accepted || !strings.Contains(v.Rejected, "output differs") || !v.NeedsVector || len(v.RunEnv) != 1 || v.RunEnv[0] != VectorCPU {
		t.Errorf("rvv variant %+v", v)
	}
	if v := variantByName(t, p, "O3-lto"); v.Accepted || !strings.Contains(v.Rejected, "tests fail") {
		t.Errorf("lto variant %+v", v)
	}
	base := variantByName(t, p, "baseline")
	if len(base.Durations) != DefaultRuns || base.Median < 10*time.Second || base.Min > base.Median || base.Max < base.Median {
		t.Errorf("baseline stats %+v", base)
	}
	if !strings.Contains(base.Output, "4756415") || !strings.Contains(base.Output, "*") {
		t.Errorf("baseline check %q: the size must stay, the varying speed must be masked", base.Output)
	}
	if !p.Emulated || p.Caveat != atesor.EmulatedCaveat {
		t.Errorf("emulated %t caveat %q", p.Emulated, p.Caveat)
	}
	if strings.Join(p.Replay, "\n") != "export CFLAGS='-O3'\nexport CXXFLAGS='-O3'\nmake" {
		t.Errorf("replay %q", p.Replay)
	}
	// The vector build and its runs had the emulated vector CPU; no other variant did.
	for _, c := range sb.execs {
		hasV := strings.Contains(strings.Join(c.Env, " "), "QEMU_CPU")
		if variantOf(c.Dir) == "O3-rvv" && (c.Line == "make" || c.Line == "./programs/lz4 -b") && !hasV {
			t.Errorf("rvv %q ran without QEMU_CPU", c.Line)
		}
		if variantOf(c.Dir) != "O3-rvv" && hasV {
			t.Errorf("%s %q ran with QEMU_CPU", c.Dir, c.Line)
		}
	}
	sec := Section(p)
	for _, want := range []string{"## Performance", "Emulated — not a hardware measurement", "| O3 |", "**(winner)**", "```sh\nexport CFLAGS='-O3'", "needs the vector extension"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
}

func TestBaselineWinsWhenNoCandidateIsCorrectAndFaster(t *testing.T) {
	sb := &fakeSandbox{help: lz4Help, variants: map[string]fakeVariant{
		"baseline": {size: "4756415", dur: 5 * time.Second},
		"O3":       {size: "4756415", dur: 6 * time.Second},
		"O3-rvv":   {size: "1", dur: time.Second},
		"O3-lto":   {buildFail: true},
	}}
	p := runFake(t, sb, lz4Target())
	if p.Winner != "baseline" {
		t.Errorf("winner %s", p.Winner)
	}
	if v := variantByName(t, p, "O3-lto"); v.Built || !strings.HasPrefix(v.Rejected, "build failed") {
		t.Errorf("lto %+v", v)
	}
	if strings.Join(p.Replay, "\n") != "make" {
		t.Errorf("replay %q", p.Replay)
	}
}

// Offline, with no benchmark flag and no bench target, the test suite is the workload.
func TestTestSuiteIsTheLastResort(t *testing.T) {
	sb := &fakeSandbox{help: "Usage: lz4 [arg]\n -v verbose\n", variants: map[string]fakeVariant{}}
	tgt := lz4Target()
	p := runFake(t, sb, tgt)
	if p.Source != atesor.WorkloadTests || p.Workload != "make test" || p.Check != CheckExit.String() {
		t.Errorf("workload %s %q (%s)", p.Source, p.Workload, p.Check)
	}
	tgt.TestsPassed = false
	emulated := false
	o := &Optimizer{Sandbox: sb, Emulated: &emulated}
	if _, err := o.Run(context.Background(), tgt); err == nil || !strings.Contains(err.Error(), "no workload") {
		t.Errorf("err %v, want no workload", err)
	}
}

func TestOwnSwitchIsACandidate(t *testing.T) {
	sb := &fakeSandbox{help: lz4Help, variants: map[string]fakeVariant{
		"baseline":    {size: "1", dur: 5 * time.Second},
		"own-rvv":     {size: "1", dur: 2 * time.Second},
		"own-enable":  {size: "1", dur: 2 * time.Second},
		"O3":          {size: "1", dur: 4 * time.Second},
		"O3-rvv":      {size: "1", dur: 4 * time.Second},
		"O3-lto":      {size: "1", dur: 4 * time.Second},
		"own-rvv-opt": {size: "1", dur: 4 * time.Second},
	}}
	tgt := lz4Target()
	tgt.Source = fstest.MapFS{"configure": {Data: []byte("  --enable-rvv     use RVV kernels\n  --enable-FEATURE[=ARG]\n")}}
	tgt.Commands = []string{"./configure --prefix=/usr", "make"}
	p := runFake(t, sb, tgt)
	v := variantByName(t, p, "own:rvv")
	if !v.NeedsVector || len(v.ConfigureArgs) != 1 || v.ConfigureArgs[0] != "--enable-rvv" {
		t.Errorf("own switch %+v", v)
	}
	var configured bool
	for _, c := range sb.execs {
		if variantOf(c.Dir) == "own-rvv" && c.Line == "./configure --prefix=/usr --enable-rvv" {
			configured = true
		}
	}
	if !configured {
		t.Error("the variant's configure did not get --enable-rvv")
	}
}

// ctxSandbox fails every command once its context has ended, as the real sandboxes do.
type ctxSandbox struct{ *fakeSandbox }

func (c ctxSandbox) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	if err := ctx.Err(); err != nil {
		return atesor.CommandResult{Line: cmd.Line}, err
	}
	return c.fakeSandbox.Exec(ctx, cmd)
}

// An interruption while the last candidate builds ends the run with the context's
// error: the candidate is not reported as rejected, and nothing counts as measured.
func TestInterruptedDuringTheLastCandidate(t *testing.T) {
	sb := ctxSandbox{&fakeSandbox{help: lz4Help, variants: map[string]fakeVariant{
		"baseline": {size: "4756415", dur: 5 * time.Second},
		"O3":       {size: "4756415", dur: 4 * time.Second},
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	emulated := true
	o := &Optimizer{Sandbox: sb, Emulated: &emulated, Candidates: []Candidate{{Name: "O3", Env: []string{"CFLAGS=-O3"}}},
		Progress: func(line string) {
			if line == "building variant O3" {
				cancel()
			}
		}}
	res, err := o.Run(ctx, lz4Target())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if n := len(res.Performance.Variants); n != 1 {
		t.Errorf("%d variants reported, want only the baseline: %+v", n, res.Performance.Variants)
	}
}
