package verify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

func index(files map[string]string) sourceIndex {
	idx := sourceIndex{files: files}
	for p := range files {
		idx.paths = append(idx.paths, p)
	}
	return idx
}

// TestExplainMissing: each kind of missing function gets its finding, and only one a
// fix is responsible for is hollowed.
func TestExplainMissing(t *testing.T) {
	header := `#ifndef LIB_H
#define LIB_H
int lib_add(int, int);
int lib_fast_x86(const char *p, int n);
#ifdef HAVE_POSIX_API
int lib_regcomp(void *re, const char *pat, int flags);
#endif
#if defined(FOO_ENABLE_FROB) && FOO_ENABLE_FROB
int lib_frob(int);
#endif
int lib_vanished(void);
int lib_cut(int);
#endif
`
	files := map[string]string{
		"include/lib.h":  header,
		"src/add.c":      "int lib_add(int a, int b)\n{\n\treturn a + b;\n}\n",
		"src/x86/fast.S": ".globl lib_fast_x86\nlib_fast_x86:\n\tret\n",
		"src/posix.c":    "#include \"lib.h\"\nint lib_regcomp(void *re, const char *pat, int flags) { return 0; }\n",
		"src/frob.c":     "int lib_frob(int x) { return x; }\n",
		"src/cut.c":      "/* what the fix left */\nint lib_cut(int x)\n{\n\treturn x;\n}\n",
		"src/krstyle.c":  "int lib_kr(a, b)\nint a; int b;\n{ return a; }\n",
		"src/caller.c":   "int use(void) { return lib_vanished(); }\n",
	}
	build := map[string]string{
		"configure.ac":   "AC_INIT([lib],[1])\nAC_ARG_ENABLE([posix-api], [AS_HELP_STRING([--enable-posix-api], [the POSIX API])])\n",
		"CMakeLists.txt": "project(lib C)\noption(FOO_ENABLE_FROB \"frobbing\" OFF)\n",
	}
	in := explainInput{
		missing:  []string{"lib_fast_x86", "lib_regcomp", "lib_frob", "lib_vanished", "lib_cut", "lib_kr", "_ZN3lib4node4nameEv"},
		declared: map[string]bool{"lib_fast_x86": true, "lib_regcomp": true, "lib_frob": true, "lib_vanished": true, "lib_cut": true},
		sources:  index(files),
		build:    build,
		changed:  map[string]string{"src/cut.c": "cut: src/cut.c (3 of 40 lines left)"},
		dist:     "libfoo1 1.0-1 riscv64",
	}
	got := map[string]atesor.MissingExport{}
	for _, m := range explainMissing(in) {
		got[m.Name] = m
	}
	want := []struct {
		name    string
		finding atesor.ExportFinding
		reason  string
	}{
		{"lib_fast_x86", atesor.FindingOtherArch, "defined only in another architecture's code: src/x86/fast.S"},
		{"lib_regcomp", atesor.FindingOptionOff, "behind HAVE_POSIX_API in include/lib.h, which the option --enable-posix-api (configure) turns on"},
		{"lib_frob", atesor.FindingOptionOff, "the option -DFOO_ENABLE_FROB=ON (CMake)"},
		{"lib_cut", atesor.FindingHollowed, "defined in src/cut.c, which a fix changed (cut: src/cut.c"},
		{"lib_vanished", atesor.FindingUnexplained, "declared but defined nowhere"},
		{"lib_kr", atesor.FindingDistributionOnly, "it is defined in src/krstyle.c, which this build does not compile"},
		{"_ZN3lib4node4nameEv", atesor.FindingDistributionOnly, "exported by libfoo1 1.0-1 riscv64 and not by this build"},
	}
	for _, w := range want {
		m, ok := got[w.name]
		if !ok {
			t.Errorf("%s: not explained", w.name)
			continue
		}
		if m.Finding != w.finding || !strings.Contains(m.Reason, w.reason) {
			t.Errorf("%s: %s %q, want %s containing %q", w.name, m.Finding, m.Reason, w.finding, w.reason)
		}
	}
	ec := &atesor.ExportCheck{Explained: explainMissing(in)}
	if diff := cmp.Diff([]string{"lib_cut"}, ec.Hollowed()); diff != "" {
		t.Errorf("hollowed (-want +got):\n%s", diff)
	}

	// After fixes removed code, a function defined nowhere may have been in what was
	// removed: hollowed, as before explanations existed.
	in.removals = true
	for _, m := range explainMissing(in) {
		if m.Name == "lib_vanished" && m.Finding != atesor.FindingHollowed {
			t.Errorf("lib_vanished after removals: %s %q, want hollowed", m.Finding, m.Reason)
		}
		if m.Name == "lib_fast_x86" && m.Finding != atesor.FindingOtherArch {
			t.Errorf("lib_fast_x86 after removals: %s, want still other_architecture", m.Finding)
		}
	}
}

func TestBodyFollows(t *testing.T) {
	tests := []struct {
		rest string
		want bool
	}{
		{"(int a, int b)\n{", true},
		{"(int a) { return a; }", true},
		{"(int a);", false},
		{"(a, b)\nint a; int b;\n{", true},
		{"(f(x)) ;", false},
		{"(x) = 3;", false},
		{"(a);\nint b(void) {", false},
		{"(", false},
	}
	for _, tt := range tests {
		if got := bodyFollows(tt.rest); got != tt.want {
			t.Errorf("bodyFollows(%q) = %v, want %v", tt.rest, got, tt.want)
		}
	}
}

func TestGuardsAt(t *testing.T) {
	text := "#ifndef LIB_H\n#define LIB_H\n#ifdef HAVE_ZSTD\n#if USE_FAST\nint f(void);\n#endif\n#endif\nint g(void);\n#endif\n"
	if got := guardsAt(text, strings.Index(text, "int f")); !cmp.Equal(got, []string{"HAVE_ZSTD", "USE_FAST"}) {
		t.Errorf("guards at f = %v", got)
	}
	if got := guardsAt(text, strings.Index(text, "int g")); len(got) != 0 {
		t.Errorf("guards at g = %v, want none (an include guard is not a feature)", got)
	}
}

func FuzzExplainSources(f *testing.F) {
	f.Add("int f(int a)\n{\n}\n#ifdef HAVE_X\nint g(void);\n#endif\n", "f")
	f.Add(".globl f\nf:\n", "f")
	f.Fuzz(func(t *testing.T, text, name string) {
		if name == "" || len(text) > 1<<16 {
			return
		}
		idx := index(map[string]string{"a.c": text, "a.h": text, "a.S": text})
		_ = idx.find(name)
		_ = explainMissing(explainInput{missing: []string{name}, sources: idx, build: map[string]string{"configure.ac": text, "CMakeLists.txt": text}})
	})
}
