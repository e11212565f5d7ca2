package validate

import (
	"errors"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

const cBench = `#include <stdio.h>
#include <zlib.h>
/* system("x") in a comment does not count */
int main(void) {
    unsigned long sum = 0;
    for (int i = 0; i < 1000; i++) sum += crc32(0L, (const unsigned char *)"abc", 3);
    printf("ATESOR-CHECK %lu\n", sum);
    return 0;
}
`

const goBench = `package zstd

import (
	"fmt"
	"testing"
)

func BenchmarkAtesor(b *testing.B) {
	var n int
	for i := 0; i < b.N; i++ {
		n += len(Compress(nil, []byte("abc")))
	}
	fmt.Println("ATESOR-CHECK", n)
}
`

const rustBench = `use my_crate::hash;
// std::process::Command in a comment does not count
fn main() {
    let h = hash(b"abc");
    println!("ATESOR-CHECK {}", h);
}
`

func TestHarness(t *testing.T) {
	h := func(lang, file, code string, fns ...string) *atesor.Harness {
		return &atesor.Harness{Language: lang, Filename: file, Code: code, Functions: fns}
	}
	tests := []struct {
		name string
		h    *atesor.Harness
		opts []HarnessOption
		ok   bool
	}{
		{"c", h("c", "bench.c", cBench, "crc32"), nil, true},
		{"c exports", h("c", "bench.c", cBench), []HarnessOption{WithExports([]string{"crc32", "adler32"})}, true},
		{"cpp", h("cpp", "bench.cpp", cBench, "crc32"), nil, true},
		{"go", h("go", "atesor_bench_test.go", goBench), nil, true},
		{"rust", h("rust", "examples/bench.rs", rustBench), []HarnessOption{WithCrate("my-crate")}, true},
		{"nil", nil, nil, false},
		{"too big", h("c", "bench.c", cBench+strings.Repeat("/", MaxHarnessBytes), "crc32"), nil, false},
		{"no marker", h("c", "bench.c", strings.ReplaceAll(cBench, "ATESOR-CHECK", "RESULT"), "crc32"), nil, false},
		{"system", h("c", "bench.c", strings.Replace(cBench, "return 0;", `system("ls"); return 0;`, 1), "crc32"), nil, false},
		{"rand", h("c", "bench.c", strings.Replace(cBench, "return 0;", `srand(1); return rand();`, 1), "crc32"), nil, false},
		{"popen", h("c", "bench.c", strings.Replace(cBench, "return 0;", `popen("x","r"); return 0;`, 1), "crc32"), nil, false},
		{"socket header", h("c", "bench.c", "#include <sys/socket.h>\n"+cBench, "crc32"), nil, false},
		{"std::system", h("cpp", "bench.cpp", strings.Replace(cBench, "return 0;", `std::system("ls"); return 0;`, 1), "crc32"), nil, false},
		{"no library call", h("c", "bench.c", cBench, "deflate"), nil, false},
		{"no functions", h("c", "bench.c", cBench), nil, false},
		{"not exported", h("c", "bench.c", cBench, "crc32"), []HarnessOption{WithExports([]string{"deflate"})}, false},
		{"c no main", h("c", "bench.c", strings.Replace(cBench, "main", "bench", 1), "crc32"), nil, false},
		{"wrong ext", h("c", "bench.go", cBench, "crc32"), nil, false},
		{"escape", h("c", "../bench.c", cBench, "crc32"), nil, false},
		{"go not test file", h("go", "bench.go", goBench), nil, false},
		{"go no bench", h("go", "x_test.go", strings.Replace(goBench, "BenchmarkAtesor", "BenchmarkX", 1)), nil, false},
		{"go time.Now", h("go", "x_test.go", strings.Replace(goBench, `"testing"`, "\"testing\"\n\t\"time\"", 1)+"\nvar _ = time.Now()\n"), nil, false},
		{"go os/exec", h("go", "x_test.go", strings.Replace(goBench, `"testing"`, "\"testing\"\n\t\"os/exec\"", 1)+"\nvar _ = exec.Command\n"), nil, false},
		{"go net/http", h("go", "x_test.go", strings.Replace(goBench, `"testing"`, "\"testing\"\n\t\"net/http\"", 1)+"\nvar _ = http.Get\n"), nil, false},
		{"go aliased time", h("go", "x_test.go", strings.Replace(goBench, `"testing"`, "\"testing\"\n\tt0 \"time\"", 1)+"\nvar _ = t0.Now()\n"), nil, false},
		{"go syntax", h("go", "x_test.go", "package x\nfunc {"), nil, false},
		{"rust net", h("rust", "examples/b.rs", "use std::net::TcpStream;\n"+rustBench), []HarnessOption{WithCrate("my_crate")}, false},
		{"rust no crate use", h("rust", "examples/b.rs", strings.Replace(rustBench, "use my_crate::hash;", "", 1)), []HarnessOption{WithCrate("my_crate")}, false},
		{"rust crate unknown", h("rust", "examples/b.rs", rustBench), nil, false},
		{"python", h("python", "b.py", "print('ATESOR-CHECK')"), nil, false},
	}
	for _, tc := range tests {
		err := Harness(tc.h, tc.opts...)
		if tc.ok != (err == nil) {
			t.Errorf("%s: Harness = %v, want ok=%v", tc.name, err, tc.ok)
		}
		var r *Rejection
		if err != nil && tc.name != "rust crate unknown" && !errors.As(err, &r) {
			t.Errorf("%s: %T is not a *Rejection", tc.name, err)
		}
	}
}

func TestAnalysis(t *testing.T) {
	good := atesor.AnalysisAnswer{Purpose: "compression", BuildSystem: atesor.BuildSystemClaim{Type: "cmake", Confidence: 0.9},
		Dependencies: []atesor.Dependency{{Name: "zlib"}}, Complexity: 3}.Analysis()
	if err := Analysis(&good); err != nil {
		t.Fatal(err)
	}
	mut := func(f func(a *atesor.PackageAnalysis)) *atesor.PackageAnalysis {
		c := good
		f(&c)
		return &c
	}
	bad := map[string]*atesor.PackageAnalysis{
		"nil":          nil,
		"purpose":      mut(func(a *atesor.PackageAnalysis) { a.Purpose = " " }),
		"build system": mut(func(a *atesor.PackageAnalysis) { a.BuildSystem = "" }),
		"dep name":     mut(func(a *atesor.PackageAnalysis) { a.Dependencies = []atesor.Dependency{{}} }),
		"too many":     mut(func(a *atesor.PackageAnalysis) { a.RiscvRisks = make([]string, 11) }),
		"complexity":   mut(func(a *atesor.PackageAnalysis) { a.Complexity = 11 }),
		"confidence":   mut(func(a *atesor.PackageAnalysis) { a.BuildSystemConfidence = 2 }),
	}
	for name, a := range bad {
		if err := Analysis(a); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	c := mut(func(a *atesor.PackageAnalysis) {
		a.Dependencies = make([]atesor.Dependency, 20)
		for i := range a.Dependencies {
			a.Dependencies[i].Name = "d"
		}
		a.Complexity = 0
		a.BuildSystemConfidence = -1
	})
	ClampAnalysis(c)
	if err := Analysis(c); err != nil || c.Complexity != DefaultComplexity || len(c.Dependencies) != MaxDependencies {
		t.Errorf("ClampAnalysis: %v %+v", err, c)
	}
}
