package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secret = "TOP-SECRET-OUTSIDE-THE-REPO"

// excerptTree makes a repository with sources and links, and a secret file outside it.
func excerptTree(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	repo := filepath.Join(base, "repo")
	var src strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&src, "int line%d;\n", i)
	}
	for p, c := range map[string]string{
		filepath.Join(outside, "secret.c"): secret + "\n" + secret + "\n",
		filepath.Join(repo, "src/foo.c"):   src.String(),
		filepath.Join(repo, "lib/bar.h"):   "#define BAR 1\n#define BAZ 2\n",
		filepath.Join(repo, "Makefile"):    "all:\n\tcc src/foo.c\n",
		filepath.Join(repo, "bin.c"):       "\x00\x01binary",
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(filepath.Join(outside, "secret.c"), filepath.Join(repo, "link.c"))
	os.Symlink("../outside", filepath.Join(repo, "out"))
	return repo
}

func TestErrorExcerpts(t *testing.T) {
	repo := excerptTree(t)
	tests := []struct {
		name    string
		log     string
		want    []string
		notWant []string
	}{
		{"gcc error", "src/foo.c:12:5: error: expected ';'\n", []string{"--- src/foo.c (error at line 12) ---", ">   12 | int line12;", "    8 | int line8;", "   16 | int line16;"}, []string{"line17;"}},
		{"absolute sandbox path", "/workspace/pkg/src/foo.c:3:1: error: x", []string{"src/foo.c", ">    3 | int line3;", "    1 | int line1;"}, nil},
		{"relative from build dir", "../src/foo.c:40: warning", []string{">   40 | int line40;"}, nil},
		{"base name after make -C", "make[1]: Entering directory '/w/lib'\nbar.h:2:9: error: BAZ redefined", []string{"lib/bar.h", ">    2 | #define BAZ 2"}, nil},
		{"make error", "Makefile:2: *** missing separator.  Stop.", []string{"--- Makefile", ">    2 | \tcc src/foo.c"}, nil},
		{"two refs one file", "src/foo.c:10: e\nsrc/foo.c:30: e\n", []string{"error at line 10, 30", "  ...\n"}, nil},
		{"symlink out of the repo", "link.c:1: error", nil, []string{secret}},
		{"directory link out", "out/secret.c:1: error", nil, []string{secret}},
		{"dotdot escape", "../outside/secret.c:1:1: error", nil, []string{secret}},
		{"absolute escape", filepath.Join(filepath.Dir(repo), "outside/secret.c") + ":1: error", nil, []string{secret}},
		{"binary file", "bin.c:1: error", nil, []string{"binary"}},
		{"no refs", "collect2: error: ld returned 1 exit status", nil, []string{"---"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorExcerpts(tt.log, repo)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("excerpt lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("excerpt has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestErrorExcerptsAtMostThreeFiles(t *testing.T) {
	files := map[string]string{}
	var log strings.Builder
	for i := range 5 {
		name := fmt.Sprintf("f%d.c", i)
		files[name] = "int a;\nint b;\n"
		fmt.Fprintf(&log, "%s:1: error\n", name)
	}
	got := ErrorExcerpts(log.String(), writeTree(t, files))
	if n := strings.Count(got, "--- "); n != 3 {
		t.Errorf("%d files excerpted, want 3:\n%s", n, got)
	}
	if ErrorExcerpts("x.c:1: e", filepath.Join(t.TempDir(), "missing")) != "" {
		t.Error("excerpts from a missing repository")
	}
}

func FuzzErrorExcerpts(f *testing.F) {
	for _, s := range []string{
		"src/foo.c:12:5: error: x", "../../outside/secret.c:1", "link.c:1:", "/abs/src/foo.c:3", "out/secret.c:2",
		"Makefile:1: ***", "lib/bar.h:99999999: e", "a.c:0:", "\x00:1", "foo.c:1\nbar.h:2\nMakefile:3\nsrc/foo.c:4",
	} {
		f.Add(s)
	}
	repo := excerptTree(f)
	f.Fuzz(func(t *testing.T, log string) {
		got := ErrorExcerpts(log, repo)
		if strings.Contains(got, secret) {
			t.Fatalf("excerpt leaked a file outside the repository for log %q", log)
		}
		if len(got) > excerptBudget+512 {
			t.Fatalf("excerpt of %d bytes exceeds the budget", len(got))
		}
		if n := strings.Count(got, "\n--- ") + boolInt(strings.HasPrefix(got, "--- ")); n > excerptMaxFiles {
			t.Fatalf("%d files excerpted", n)
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestErrorExcerptsToolchainFormats feeds diagnostics in the formats of gcc, clang, rustc,
// cargo, go and cmake, including references into system headers and dependency caches
// whose trailing path components also name repository files.
func TestErrorExcerptsToolchainFormats(t *testing.T) {
	lines := func(prefix string, n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%s %d\n", prefix, i)
		}
		return b.String()
	}
	repo := writeTree(t, map[string]string{
		"src/main.rs":      lines("// main.rs line", 10),
		"src/cpu.rs":       lines("// repo cpu.rs line", 20),
		"main.go":          lines("// main.go line", 10),
		"cmd/tool/main.go": lines("// tool line", 10),
		"unix/main.go":     lines("// repo unix line", 20),
		"go.mod":           "module example.com/tool\n\ngo 1.25rc\n",
		"CMakeLists.txt":   lines("# cmake line", 8),
		"compat/stddef.h":  lines("/* repo stddef line", 12),
		"src/foo.c":        lines("/* foo.c line", 20),
	})
	tests := []struct {
		name    string
		log     string
		want    []string
		notWant []string
	}{
		{"rustc", "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:4:5\n  |\n4 |     x\n",
			[]string{"--- src/main.rs (error at line 4) ---", ">    4 | // main.rs line 4"}, nil},
		{"rustc in the cargo registry", "error[E0432]: unresolved import\n   --> /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/ring-0.17.8/src/cpu.rs:12:5\n",
			nil, []string{"repo cpu.rs"}},
		{"rust standard library", "note: required by a bound in `f`\n  --> /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/cpu.rs:3:1\n",
			nil, []string{"repo cpu.rs"}},
		{"go package", "# example.com/tool/cmd/tool\ncmd/tool/main.go:7:2: undefined: foo\n",
			[]string{"--- cmd/tool/main.go (error at line 7) ---", ">    7 | // tool line 7"}, nil},
		{"go dot path", "./main.go:3:8: \"fmt\" imported and not used\n", []string{">    3 | // main.go line 3"}, nil},
		{"go module cache", "# golang.org/x/sys/unix\n/root/go/pkg/mod/golang.org/x/sys@v0.30.0/unix/main.go:12:3: undefined: Syscall\n",
			nil, []string{"repo unix line"}},
		{"go.mod", "go: errors parsing go.mod:\n/workspace/tool/go.mod:3: invalid go version '1.25rc': must match format 1.23.0\n",
			[]string{"--- go.mod (error at line 3) ---", ">    3 | go 1.25rc"}, nil},
		{"cmake", "CMake Error at CMakeLists.txt:5 (find_package):\n  Could not find a package configuration file provided by \"Foo\"\n",
			[]string{"--- CMakeLists.txt (error at line 5) ---", ">    5 | # cmake line 5"}, nil},
		{"cmake module in /usr/share", "CMake Error at /usr/share/cmake-3.31/Modules/FindPackageHandleStandardArgs.cmake:233 (message):\nCMake Error at CMakeLists.txt:2 (find_package):\n",
			[]string{"--- CMakeLists.txt (error at line 2) ---"}, []string{"FindPackageHandleStandardArgs"}},
		{"gcc system header", "In file included from /usr/lib/gcc/riscv64-linux-gnu/14/include/stddef.h:10,\n                 from src/foo.c:2:\nsrc/foo.c:12:5: error: expected ';' before '}' token\n",
			[]string{"--- src/foo.c (error at line 2, 12) ---", ">   12 | /* foo.c line 12"}, []string{"repo stddef"}},
		{"clang", "src/foo.c:9:3: error: call to undeclared function 'f'; ISO C99 and later do not support implicit function declarations [-Wimplicit-function-declaration]\n",
			[]string{">    9 | /* foo.c line 9"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorExcerpts(tt.log, repo)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("excerpt lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("excerpt has %q:\n%s", w, got)
				}
			}
		})
	}
}
