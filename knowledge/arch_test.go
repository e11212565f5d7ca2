package knowledge

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

type finding struct {
	File, Kind string
	Line       int
	Severity   atesor.Severity
	Guarded    bool
}

func findings(fs []atesor.ArchFinding) map[string]finding {
	out := map[string]finding{}
	for _, f := range fs {
		key := f.File + ":" + strconv.Itoa(f.Line) + ":" + f.Kind
		out[key] = finding{f.File, f.Kind, f.Line, f.Severity, f.Guarded}
	}
	return out
}

func TestArchFindingsTree(t *testing.T) {
	d, err := Detect(context.Background(), filepath.Join(treesDir, "arch-mixed"))
	if err != nil {
		t.Fatal(err)
	}
	got := findings(d.ArchFindings)
	want := map[string]finding{
		"src/cacheline.h:6:unsupported-arch-error": {"src/cacheline.h", "unsupported-arch-error", 6, atesor.SeverityCritical, false},
		"src/unguarded.c:1:x86-intrinsics-header":  {"src/unguarded.c", "x86-intrinsics-header", 1, atesor.SeverityCritical, false},
		"CMakeLists.txt:3:arch-flag":               {"CMakeLists.txt", "arch-flag", 3, atesor.SeverityHigh, false},
		"src/asm.c:3:inline-asm":                   {"src/asm.c", "inline-asm", 3, atesor.SeverityHigh, false},
		"src/unguarded.c:4:x86-intrinsic":          {"src/unguarded.c", "x86-intrinsic", 4, atesor.SeverityHigh, false},
		"src/unguarded.c:5:x86-intrinsic":          {"src/unguarded.c", "x86-intrinsic", 5, atesor.SeverityHigh, false},
		"CMakeLists.txt:5:arch-flag":               {"CMakeLists.txt", "arch-flag", 5, atesor.SeverityLow, true},
		"CMakeLists.txt:8:arch-flag":               {"CMakeLists.txt", "arch-flag", 8, atesor.SeverityLow, true},
		"src/cacheline.h:1:x86-macro":              {"src/cacheline.h", "x86-macro", 1, atesor.SeverityLow, true},
		"src/cacheline.h:3:arm-macro":              {"src/cacheline.h", "arm-macro", 3, atesor.SeverityLow, true},
		"src/guarded.c:2:x86-macro":                {"src/guarded.c", "x86-macro", 2, atesor.SeverityLow, true},
		"src/guarded.c:3:x86-intrinsics-header":    {"src/guarded.c", "x86-intrinsics-header", 3, atesor.SeverityLow, true},
		"src/guarded.c:5:x86-intrinsic":            {"src/guarded.c", "x86-intrinsic", 5, atesor.SeverityLow, true},
		"src/guarded.c:6:x86-intrinsic":            {"src/guarded.c", "x86-intrinsic", 6, atesor.SeverityLow, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	// Sorted by severity, most severe first.
	for i := 1; i < len(d.ArchFindings); i++ {
		if severityRank(d.ArchFindings[i].Severity) > severityRank(d.ArchFindings[i-1].Severity) {
			t.Fatalf("findings not sorted by severity at %d", i)
		}
	}
}

func TestScanCSeverities(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []finding // Line, Kind, Severity, Guarded (File is x.c)
	}{
		{"guarded with fallback is low", "#ifdef __SSE2__\n#include <emmintrin.h>\n#else\nint x;\n#endif\n",
			[]finding{{"x.c", "x86-macro", 1, atesor.SeverityLow, true}, {"x.c", "x86-intrinsics-header", 2, atesor.SeverityLow, true}}},
		{"guarded without fallback is medium", "#if defined(__x86_64__)\nstatic int t(void){ return __builtin_ia32_rdtsc(); }\n#endif\n",
			[]finding{{"x.c", "x86-macro", 1, atesor.SeverityLow, true}, {"x.c", "x86-builtin", 2, atesor.SeverityMedium, true}}},
		{"riscv branch counts as fallback", "#if defined(__riscv)\nint x;\n#elif defined(__aarch64__)\n#include <arm_neon.h>\n#endif\n",
			[]finding{{"x.c", "arm-macro", 3, atesor.SeverityLow, true}, {"x.c", "arm-intrinsics-header", 4, atesor.SeverityLow, true}}},
		{"x86 code in the else branch is unguarded", "#if defined(__aarch64__)\nint x;\n#else\n#include <immintrin.h>\n#endif\n",
			[]finding{{"x.c", "arm-macro", 1, atesor.SeverityLow, true}, {"x.c", "x86-intrinsics-header", 4, atesor.SeverityCritical, false}}},
		{"negated test branch is portable", "#ifndef __x86_64__\nint y;\n#else\n__asm__ volatile(\"pause\");\n#endif\n",
			[]finding{{"x.c", "x86-macro", 1, atesor.SeverityLow, true}, {"x.c", "inline-asm", 4, atesor.SeverityLow, true}}},
		{"compiler barrier is portable", "void b(void){ __asm__ __volatile__(\"\" ::: \"memory\"); }\n", nil},
		{"commented code is ignored", "/* _mm_add_ps(a, b);\n asm(\"cpuid\"); */\n// #include <immintrin.h>\nint z;\n", nil},
		{"neon calls need arm_neon.h", "#include <arm_neon.h>\nuint8x16_t f(uint8x16_t a){ return vaddq_u8(a, a); }\n",
			[]finding{{"x.c", "arm-intrinsics-header", 1, atesor.SeverityCritical, false}, {"x.c", "neon-intrinsic", 2, atesor.SeverityHigh, false}}},
		{"error without arch test is not a finding", "#if FOO\nint a;\n#else\n#error need FOO\n#endif\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []finding
			for _, f := range scanC("x.c", []byte(tt.src)) {
				got = append(got, finding{f.File, f.Kind, f.Line, f.Severity, f.Guarded})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestScanBuildFile(t *testing.T) {
	mk := "CFLAGS += -O2\nifeq ($(shell uname -m),x86_64)\nCFLAGS += -mavx2\nendif\nLDFLAGS = -m64\nRV = -march=rv64gc\n"
	var got []finding
	for _, f := range scanBuildFile("Makefile", "Makefile", mk) {
		got = append(got, finding{f.File, f.Kind, f.Line, f.Severity, f.Guarded})
	}
	want := []finding{{"Makefile", "arch-flag", 3, atesor.SeverityLow, true}, {"Makefile", "arch-flag", 5, atesor.SeverityHigh, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
