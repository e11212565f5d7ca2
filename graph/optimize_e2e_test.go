package graph

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

// checkPerformance checks the measured, correctness-checked table of a performance
// run: in the report, the recipe and the recipe-cache entry.
func checkPerformance(t *testing.T, e *e2eEnv, res *atesor.Result, source string) *atesor.Performance {
	t.Helper()
	if !res.Verified {
		t.Fatalf("%s: status %s class %s: %s", res.Package, res.Status, res.FailureClass, res.Reason)
	}
	rep := e.report(t, res.Package)
	p := rep.Performance
	if p == nil {
		t.Fatal("the report has no performance")
	}
	b, _ := json.MarshalIndent(p, "", "  ")
	t.Logf("performance:\n%s", b)
	if p.Source != source || len(p.Variants) < 2 || p.Runs < 5 || !p.Emulated || p.Caveat != atesor.EmulatedCaveat {
		t.Fatalf("performance: source %s, %d variants, %d runs, emulated %t, caveat %q; notes %v", p.Source, len(p.Variants), p.Runs, p.Emulated, p.Caveat, p.Notes)
	}
	measured := 0
	for _, v := range p.Variants {
		if v.Accepted {
			if len(v.Durations) < 5 || v.Min > v.Median || v.Median > v.Max || v.Output != p.Variants[0].Output {
				t.Errorf("accepted variant %s: %d runs, min %s median %s max %s, output %q (baseline %q)", v.Name, len(v.Durations), v.Min, v.Median, v.Max, v.Output, p.Variants[0].Output)
			}
			measured++
		}
	}
	if measured < 2 {
		t.Errorf("only %d accepted variants (the baseline and at least one candidate expected)", measured)
	}
	recipe, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Performance", "Emulated — not a hardware measurement", "| baseline |", "(winner)"} {
		if !strings.Contains(string(recipe), want) {
			t.Errorf("the recipe lacks %q", want)
		}
	}
	if i := strings.Index(string(recipe), "## Performance"); i >= 0 {
		t.Logf("the recipe's Performance section:\n%s", recipe[i:])
	}
	// Instructions are counted when the host has the counting emulator (Debian's
	// dynamic qemu-user and a C compiler) and the workload is one program; otherwise the
	// statement says why not, and no variant carries a number.
	t.Logf("instruction counts: %s", p.InstructionCounts)
	switch counted := strings.HasPrefix(p.InstructionCounts, "guest instructions executed"); {
	case counted && p.Variants[0].Instructions == 0:
		t.Errorf("instructions counted, but the baseline has no count; notes %q", p.Notes)
	case !counted && !strings.HasPrefix(p.InstructionCounts, "unavailable: "):
		t.Errorf("instruction counts %q: neither counted nor unavailable", p.InstructionCounts)
	case !counted:
		for _, v := range p.Variants {
			if v.Instructions != 0 {
				t.Errorf("%s has %d instructions though counting was unavailable", v.Name, v.Instructions)
			}
		}
	}
	entry, err := e.mem.Recipe(context.Background(), res.Package, e.platform.SandboxKey())
	if err != nil || entry == nil || entry.Performance == nil || entry.Performance.Winner != p.Winner {
		t.Errorf("recipe cache entry: %v (err %v)", entry, err)
	}
	return p
}

// onlyO3 keeps an end-to-end run to one rebuild: each candidate rebuilds the package
// under the emulator (lz4: about 5 minutes with its tests), and the default set has three.
func onlyO3(o *optimize.Optimizer) {
	o.Candidates = optimize.Candidates("c", nil)[:1]
}

// TestE2EOptimizeOwnBenchmark ports lz4 offline with performance mode: its own
// benchmark (lz4 -b, found in its --help) times the verified build and the -O3
// rebuild, whose benchmark report must equal the baseline's.
var compressedSize = regexp.MustCompile(`10000000 -> [0-9]{6,}`)

func TestE2EOptimizeOwnBenchmark(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	lz4 := debiantest.SourceTarball(t, "lz4", lz4File)
	start := time.Now()
	res, err := e.pipeline(t, nil, WithOptimizer(onlyO3)).Run(context.Background(), atesor.Request{Source: lz4, TestTimeout: 8 * time.Minute, Optimize: true})
	if err != nil {
		t.Fatal(err)
	}
	p := checkPerformance(t, e, res, atesor.WorkloadBenchmark)
	if !strings.Contains(p.Workload, "lz4 -b") {
		t.Errorf("workload %q, want lz4's own benchmark flag", p.Workload)
	}
	// The check covers the compressed size lz4 reports ("10000000 -> 4690337"), and
	// the table carries lz4's own speeds.
	if !compressedSize.MatchString(p.Variants[0].Output) || len(p.Variants[0].Figures) == 0 {
		t.Errorf("baseline check %q, figures %q: want the compressed size checked and lz4's speeds reported", p.Variants[0].Output, p.Variants[0].Figures)
	}
	t.Logf("lz4 port + performance mode: %s", time.Since(start).Round(time.Second))
}

// TestE2EOptimizeHarness ports zlib with the fake provider playing the optimizer agent:
// it writes a C harness for zlib's compress/uncompress round trip (after one with a
// forbidden call, which gets a critique), which is validated, built against the
// verified library, run and checked against every variant.
func TestE2EOptimizeHarness(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	zlib := debiantest.SourceTarball(t, "zlib", zlibFile)
	prov := fake.New()
	harness := func(code string) string {
		b, _ := json.Marshal(atesor.Harness{Language: "c", Filename: "atesor_bench.c", Code: code, Functions: []string{"compress", "uncompress", "crc32"}})
		return string(b)
	}
	bad := strings.Replace(zlibHarness, "unsigned long sum = 0;", "unsigned long sum = 0; system(\"true\");", 1)
	// zlib's primary artifacts are its libraries (what make install installs): no
	// program run is asked for, the harness is.
	prov.QueueLabel("optimizer", fake.Reply{Text: harness(bad)}, fake.Reply{Text: harness(zlibHarness)})
	start := time.Now()
	res, err := e.pipeline(t, prov, WithOptimizer(onlyO3)).Run(context.Background(), atesor.Request{Source: zlib, TestTimeout: 5 * time.Minute, Optimize: true})
	if err != nil {
		t.Fatal(err)
	}
	p := checkPerformance(t, e, res, atesor.WorkloadHarness)
	if p.Harness == nil || !strings.HasPrefix(p.Variants[0].Output, "ATESOR-CHECK ") {
		t.Errorf("harness %v, baseline check %q", p.Harness, p.Variants[0].Output)
	}
	// The rejected harness, then the accepted one after its critique.
	var calls []fake.Call
	for _, c := range prov.Calls() {
		if c.Label == optimize.AuditLabel {
			calls = append(calls, c)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d optimizer calls, want 2", len(calls))
	}
	if last := calls[1].Messages; !strings.Contains(last[len(last)-1].Content, "system") {
		t.Errorf("the accepted harness was not asked for after a critique naming the forbidden call: %q", last[len(last)-1].Content)
	}
	t.Logf("zlib port + performance mode: %s", time.Since(start).Round(time.Second))
}

// zlibHarness round-trips fixed data through zlib's compress and uncompress and prints
// a checksum of the compressed bytes.
const zlibHarness = `#include <stdio.h>
#include <string.h>
#include "zlib.h"

int main(void) {
	static unsigned char in[1 << 18], out[(1 << 18) + 1024], back[1 << 18];
	unsigned long sum = 0;
	for (unsigned i = 0; i < sizeof in; i++)
		in[i] = (unsigned char)((i * 2654435761u) >> 24) % 17 + 'a';
	for (int round = 0; round < 8; round++) {
		uLongf n = sizeof out, m = sizeof back;
		in[round] = (unsigned char)('a' + round);
		if (compress2(out, &n, in, sizeof in, 6) != Z_OK) return 1;
		if (uncompress(back, &m, out, n) != Z_OK || m != sizeof in || memcmp(in, back, m) != 0) return 2;
		sum = crc32(sum, out, (uInt)n) + n;
	}
	printf("ATESOR-CHECK %lu\n", sum);
	return 0;
}
`
