package memory_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

func ptr[T any](v T) *T { return &v }

const (
	alpine = "alpine-riscv64"
	debian = "debian-riscv64"
)

func TestScoreRows(t *testing.T) {
	tests := []struct {
		name string
		ex   atesor.Example
		q    atesor.Query
		want float64
	}{
		{"sandbox only", atesor.Example{Sandbox: debian}, atesor.Query{Sandbox: debian}, 0.25},
		{"different sandbox", atesor.Example{Sandbox: alpine}, atesor.Query{Sandbox: debian}, -0.35},
		{"missing sandbox counts as alpine on a debian run", atesor.Example{}, atesor.Query{Sandbox: debian}, -0.35},
		{"missing sandbox counts as alpine on an alpine run", atesor.Example{}, atesor.Query{Sandbox: alpine}, 0.25},
		{"empty query sandbox is alpine", atesor.Example{Sandbox: alpine}, atesor.Query{}, 0.25},
		{"same build system", atesor.Example{Sandbox: debian, BuildSystem: "cmake"}, atesor.Query{Sandbox: debian, BuildSystem: "cmake"}, 0.75},
		{"other build system", atesor.Example{Sandbox: debian, BuildSystem: "cmake"}, atesor.Query{Sandbox: debian, BuildSystem: "make"}, 0.25},
		{"no build system in the query adds nothing", atesor.Example{Sandbox: debian}, atesor.Query{Sandbox: debian}, 0.25},
		{"error pattern matches", atesor.Example{Sandbox: debian, ErrorPattern: `undefined reference to .__atomic_`},
			atesor.Query{Sandbox: debian, ErrorMessage: "x.c:(.text+0x1c): undefined reference to `__atomic_fetch_add_1'"}, 0.65},
		{"error pattern matches case-insensitively", atesor.Example{Sandbox: debian, ErrorPattern: `COULD NOT FIND zlib`},
			atesor.Query{Sandbox: debian, ErrorMessage: "CMake Error: Could NOT find ZLIB (missing: ZLIB_LIBRARY)"}, 0.65},
		{"error pattern does not match", atesor.Example{Sandbox: debian, ErrorPattern: `fts\.h`},
			atesor.Query{Sandbox: debian, ErrorMessage: "argp.h: No such file"}, 0.25},
		{"invalid error pattern adds nothing", atesor.Example{Sandbox: debian, ErrorPattern: `(unclosed`},
			atesor.Query{Sandbox: debian, ErrorMessage: "(unclosed"}, 0.25},
		{"look-ahead (Python only) is invalid in Go and adds nothing", atesor.Example{Sandbox: debian, ErrorPattern: `foo(?=bar)`},
			atesor.Query{Sandbox: debian, ErrorMessage: "foobar"}, 0.25},
		{"Python named group works", atesor.Example{Sandbox: debian, ErrorPattern: `No package '(?P<pkg>[a-z]+)' found`},
			atesor.Query{Sandbox: debian, ErrorMessage: "No package 'zlib' found"}, 0.65},
		{"Python re.escape output works", atesor.Example{Sandbox: debian, ErrorPattern: `No\ package\ 'zlib'\ found`},
			atesor.Query{Sandbox: debian, ErrorMessage: "No package 'zlib' found"}, 0.65},
		{"pattern without an error message adds nothing", atesor.Example{Sandbox: debian, ErrorPattern: `.*`},
			atesor.Query{Sandbox: debian}, 0.25},
		{"one tag in the error", atesor.Example{Sandbox: debian, Tags: []string{"atomic", "cmake"}},
			atesor.Query{Sandbox: debian, ErrorMessage: "undefined reference to __ATOMIC_load_16"}, 0.4},
		{"two tags in the error", atesor.Example{Sandbox: debian, Tags: []string{"atomic", "load", "zzz"}},
			atesor.Query{Sandbox: debian, ErrorMessage: "undefined reference to __atomic_load_16"}, 0.55},
		{"tags without an error add nothing", atesor.Example{Sandbox: debian, Tags: []string{"go"}},
			atesor.Query{Sandbox: debian, BuildSystem: "cmake"}, 0.25},
		{"same has_main", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{HasMain: ptr(true)}},
			atesor.Query{Sandbox: debian, HasMain: ptr(true)}, 0.35},
		{"same has_main false", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{HasMain: ptr(false)}},
			atesor.Query{Sandbox: debian, HasMain: ptr(false)}, 0.35},
		{"different has_main", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{HasMain: ptr(true)}},
			atesor.Query{Sandbox: debian, HasMain: ptr(false)}, 0.25},
		{"has_main absent in the query", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{HasMain: ptr(true)}},
			atesor.Query{Sandbox: debian}, 0.25},
		{"has_main absent in the example", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{}},
			atesor.Query{Sandbox: debian, HasMain: ptr(true)}, 0.25},
		{"same module_dir", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{ModuleDir: "api"}},
			atesor.Query{Sandbox: debian, ModuleDir: "api"}, 0.4},
		{"different module_dir", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{ModuleDir: "api"}},
			atesor.Query{Sandbox: debian, ModuleDir: "go"}, 0.3},
		{"module_dir absent in the query", atesor.Example{Sandbox: debian, Trigger: &atesor.Trigger{ModuleDir: "api"}},
			atesor.Query{Sandbox: debian}, 0.25},
		{"module_dir absent in the example", atesor.Example{Sandbox: debian},
			atesor.Query{Sandbox: debian, ModuleDir: "api"}, 0.25},
		{"cgo project and cgo tag", atesor.Example{Sandbox: debian, Tags: []string{"CGO"}},
			atesor.Query{Sandbox: debian, HasCGO: true}, 0.45},
		{"cgo tag without a cgo project", atesor.Example{Sandbox: debian, Tags: []string{"cgo"}},
			atesor.Query{Sandbox: debian}, 0.25},
		{"cgo project without a cgo tag", atesor.Example{Sandbox: debian, Tags: []string{"go"}},
			atesor.Query{Sandbox: debian, HasCGO: true}, 0.25},
		{"combined scout rows", atesor.Example{Sandbox: debian, BuildSystem: "go",
			Trigger: &atesor.Trigger{HasMain: ptr(false), ModuleDir: "api"}},
			atesor.Query{Sandbox: debian, BuildSystem: "go", HasMain: ptr(false), ModuleDir: "api"}, 1.0},
		{"combined scout rows below the cap", atesor.Example{Sandbox: debian, BuildSystem: "go",
			Trigger: &atesor.Trigger{HasMain: ptr(true), ModuleDir: "api"}},
			atesor.Query{Sandbox: debian, BuildSystem: "go", HasMain: ptr(false), ModuleDir: "cli"}, 0.8},
		{"combined fixer rows are capped at 1.0", atesor.Example{Sandbox: debian, BuildSystem: "cmake",
			ErrorPattern: "atomic", Tags: []string{"atomic", "undefined"}},
			atesor.Query{Sandbox: debian, BuildSystem: "cmake", ErrorMessage: "undefined reference to __atomic_load_16"}, 1.0},
		{"different sandbox still scores the other rows", atesor.Example{Sandbox: alpine, BuildSystem: "cmake", ErrorPattern: "zlib"},
			atesor.Query{Sandbox: debian, BuildSystem: "cmake", ErrorMessage: "zlib.h missing"}, 0.55},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := memory.Score(tc.ex, tc.q)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
				t.Errorf("Score() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func ids(exs []atesor.Example) []string {
	out := []string{}
	for _, e := range exs {
		out = append(out, e.ID)
	}
	return out
}

func TestRank(t *testing.T) {
	examples := []atesor.Example{
		{ID: "a", Sandbox: alpine, BuildSystem: "cmake"},
		{ID: "d1", Sandbox: debian, BuildSystem: "make"},
		{ID: "d2", Sandbox: debian, BuildSystem: "cmake"},
		{ID: "none", BuildSystem: "cmake"},
		{ID: "d3", Sandbox: debian, BuildSystem: "cmake"},
		{ID: "d4", Sandbox: debian, BuildSystem: "cmake", ErrorPattern: "zlib"},
	}
	tests := []struct {
		name  string
		q     atesor.Query
		limit int
		want  []string
	}{
		{"debian run drops alpine and sandbox-less examples; ties keep file order",
			atesor.Query{Sandbox: debian, BuildSystem: "cmake"}, 0, []string{"d2", "d3", "d4", "d1"}},
		{"limit", atesor.Query{Sandbox: debian, BuildSystem: "cmake"}, 2, []string{"d2", "d3"}},
		{"pattern ranks first", atesor.Query{Sandbox: debian, BuildSystem: "cmake", ErrorMessage: "no ZLIB"}, 2, []string{"d4", "d2"}},
		{"alpine run keeps examples without sandbox", atesor.Query{Sandbox: alpine, BuildSystem: "cmake"}, 0, []string{"a", "none"}},
		{"no example of the sandbox gives nothing", atesor.Query{Sandbox: "ubuntu-riscv64"}, 0, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(memory.Rank(examples, tc.q, tc.limit))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Rank() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	exs := []atesor.Example{
		{ID: "fixer-1", Name: "Missing zlib", BuildSystem: "cmake", Sandbox: debian, ErrorPattern: "zlib",
			Fix: &atesor.ExampleFix{Analysis: "zlib is missing", Strategy: "install it",
				Actions: []atesor.Action{{Type: atesor.ActionCommand, Command: "apt-get install -y zlib1g-dev"}}},
			Reasoning: "zlib1g-dev has zlib.h"},
		{ID: "scout-1", Name: "CMake", BuildSystem: "cmake", Sandbox: debian,
			Trigger: &atesor.Trigger{HasMain: ptr(true), ModuleDir: "api"},
			Plan:    []atesor.Phase{{Name: "build", Commands: []string{"cmake -B build", "cmake --build build"}}}},
	}
	full := memory.Format(exs, 0)
	for _, want := range []string{"Example 1: Missing zlib", "apt-get install -y zlib1g-dev", "Example 2: CMake",
		"cmake --build build", "has_main=true", "module_dir=api", "Error pattern: zlib", "Why: zlib1g-dev has zlib.h"} {
		if !containsStr(full, want) {
			t.Errorf("Format() lacks %q:\n%s", want, full)
		}
	}
	if got := memory.Format(nil, 2000); got != "" {
		t.Errorf("Format(nil) = %q, want empty", got)
	}
	one := memory.Format(exs, len([]rune(full))-1)
	if containsStr(one, "Example 2") || !containsStr(one, "Example 1") {
		t.Errorf("Format() with a tight limit should keep only whole examples that fit:\n%s", one)
	}
	cut := memory.Format(exs, 40)
	if n := len([]rune(cut)); n > 40 || n == 0 {
		t.Errorf("Format(40) has %d characters, want 1..40", n)
	}
}

func containsStr(s, sub string) bool { return strings.Contains(s, sub) }
