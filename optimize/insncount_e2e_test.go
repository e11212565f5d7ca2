package optimize

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// loopC is a program with its own benchmark flag: -b [N] sums N numbers (default 3
// million) in a loop the compiler cannot drop.
const loopC = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
	if (argc < 2 || strcmp(argv[1], "-b") != 0) {
		puts("usage: loop -b [N]\n  -b N   run the built-in benchmark of N iterations");
		return 0;
	}
	long n = argc > 2 ? atol(argv[2]) : 3000000;
	volatile unsigned long sum = 0;
	for (long i = 0; i < n; i++) sum += (unsigned long)i * 7u;
	printf("sum %lu\n", (unsigned long)sum);
	return 0;
}
`

// The counting emulator in the real sandbox: a loop of 2N iterations executes about
// twice the guest instructions of N, the same run counts the same twice, and a
// performance-mode run puts the counts in the table.
func TestE2EInstructionCount(t *testing.T) {
	e2e.Short(t)
	e2e.Root(t)
	if _, err := PrepareCounter(context.Background(), t.TempDir()); err != nil {
		t.Skipf("the host cannot count instructions: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	if err := sandbox.SetupBinfmt(); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.NewRootfs(ctx, atesor.Platform{
		Name: "debian", Profile: "debian", DisplayName: "Debian GNU/Linux (trixie)", Libc: "glibc",
		Triplet: "riscv64-linux-gnu", PackageManager: "apt-get", InstallCommand: "apt-get install -y",
		UpdateCommand: "apt-get update", Loader: "/lib/ld-linux-riscv64-lp64d.so.1", FloatABI: "lp64d", OSReleaseID: "debian",
	}, sandbox.WithRepo("loop"))
	if err != nil {
		t.Fatalf("NewRootfs: %v", err)
	}
	defer sb.Close()
	const dir = "/workspace/loop"
	if _, err := sb.Exec(ctx, atesor.Command{Line: "mkdir -p " + dir, Dir: "/"}); err != nil {
		t.Fatal(err)
	}
	if err := sb.WriteFile(ctx, dir+"/loop.c", []byte(loopC), 0o644); err != nil {
		t.Fatal(err)
	}
	const build = "cc -O1 $CFLAGS -o loop loop.c"
	if r, err := sb.Exec(ctx, atesor.Command{Line: build, Dir: dir}); err != nil || !r.OK() {
		t.Fatalf("build: %v %s", err, r.Output)
	}

	o := &Optimizer{Sandbox: sb, CounterTools: HostCounter(t.TempDir())}
	o.defaults()
	c := o.setupCounter(ctx, Workload{Command: "./loop -b 1"})
	if c.prefix == "" {
		t.Fatalf("no counter: %s", c.why)
	}
	count := func(n string) uint64 {
		got, why := o.count(ctx, c, Workload{Command: "./loop -b " + n}, dir, nil)
		if why != "" {
			t.Fatalf("count of %s iterations: %s", n, why)
		}
		return got
	}
	n1, n1again, n2 := count("1000000"), count("1000000"), count("2000000")
	t.Logf("instructions: %d (N=1e6), %d (again), %d (2N)", n1, n1again, n2)
	if n1 != n1again {
		t.Errorf("the same run counted %d and %d", n1, n1again)
	}
	if ratio := float64(n2) / float64(n1); ratio < 1.9 || ratio > 2.1 {
		t.Errorf("2N iterations executed %.3f times the instructions of N, want about 2", ratio)
	}

	// Performance mode: the loop's benchmark flag is the workload, and both variants
	// are counted and shown in the section.
	emulated := true
	o = &Optimizer{Sandbox: sb, Emulated: &emulated, CounterTools: HostCounter(t.TempDir()),
		Candidates: []Candidate{{Name: "O3", Env: cFlags("-O3", "")}}}
	res, err := o.Run(ctx, Target{
		Package: "loop", Language: "c", RepoDir: dir,
		Source:    fstest.MapFS{"loop.c": {Data: []byte(loopC)}},
		Commands:  []string{build},
		Artifacts: []atesor.Artifact{{Path: dir + "/loop", Kind: atesor.KindExecutable}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Performance
	b, _ := json.MarshalIndent(p, "", "  ")
	t.Logf("performance:\n%s\n%s", b, Section(p))
	if p.InstructionCounts != insnLabel || len(p.Variants) != 2 {
		t.Fatalf("instruction counts %q, %d variants, notes %q", p.InstructionCounts, len(p.Variants), p.Notes)
	}
	for _, v := range p.Variants {
		if !v.Accepted || v.Instructions < 3000000 {
			t.Errorf("variant %s: accepted %t, %d instructions (%s)", v.Name, v.Accepted, v.Instructions, v.Rejected)
		}
	}
	if !strings.Contains(Section(p), "guest instructions (emulated)") {
		t.Error("the section has no instruction column")
	}
	t.Logf("took %s", time.Since(start).Round(time.Second))
}
