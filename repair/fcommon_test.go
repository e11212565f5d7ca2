package repair

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// dahdiTree is dahdi-tools 3.1.0's two files the real link names, read from testdata
// (their first lines, unchanged), with the build files of its tree.
func dahdiTree(t *testing.T) memTree {
	t.Helper()
	tree := memTree{"configure.ac": "AC_INIT([dahdi-tools])\n", "xpp/Makefile.am": "", "xpp/astribank_tool.c": "",
		// What the failed build left: libtool's objects, which the fix leaves to the
		// rebuild's make clean.
		"xpp/libastribank_la-mpptalk.lo": "", "xpp/.libs/libastribank_la-mpptalk.o": "",
		"xpp/xtalk/libxtalk_la-xtalk_sync.lo": "", "xpp/xtalk/.libs/libxtalk_la-xtalk_sync.o": ""}
	for _, f := range []string{"xpp/mpptalk.c", "xpp/xtalk/xtalk_sync.c"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fcommon-dahdi", f))
		if err != nil {
			t.Fatal(err)
		}
		tree[f] = string(b)
	}
	return tree
}

// ldLine is GNU ld's report of a duplicate with debug information.
func ldLine(sym, a string, la int, b string, lb int) string {
	return "/usr/bin/riscv64-linux-gnu-ld: CMakeFiles/p.dir/" + a + ".o:/workspace/p/" + a + ":" + strconv.Itoa(la) +
		": multiple definition of `" + sym + "'; CMakeFiles/p.dir/" + b + ".o:/workspace/p/" + b + ":" + strconv.Itoa(lb) + ": first defined here\n" +
		"collect2: error: ld returned 1 exit status\n"
}

// TestFcommonRule runs the rule on dahdi-tools 3.1.0's real link (two files declare `}
// PACKED members;` closing a union) and on the other build systems, linkers and the
// duplicates -fcommon does not merge.
func TestFcommonRule(t *testing.T) {
	realLog := readLog(t, "fcommon-dahdi-tools.log")
	two := memTree{"src/a.c": "#include \"c.h\"\nint counter;\nint main(void) { counter = 1; return 0; }\n",
		"src/b.c": "/* the same, with a size */\nstatic int other;\nint counter;\n"}
	sized := memTree{"src/a.c": "int table[16];\n", "src/b.c": "int table[16];\n"}
	ld := ldLine("counter", "src/b.c", 3, "src/a.c", 2)
	noDebug := "/usr/bin/ld: b.o:(.bss+0x0): multiple definition of `debug_level'; a.o:(.bss+0x0): first defined here\n"
	header := memTree{"src/common.h": "#ifndef COMMON_H\n#define COMMON_H\nint debug_level;\nextern int verbose;\n#endif\n",
		"src/a.c": "#include \"common.h\"\nint main(void) { return debug_level; }\n", "src/b.c": "#include \"common.h\"\nvoid f(int debug_level) { (void)debug_level; }\n"}
	tests := []struct {
		name    string
		log     string
		tree    memTree
		build   string
		want    string   // the build phase's new command
		actions []string // the fix's commands
		inWhy   []string // in the analysis
		none    string   // the reason when no fix
	}{
		{name: "dahdi-tools: autotools, CFLAGS at configure time, the flag alone", log: realLog, tree: dahdiTree(t),
			build: "autoreconf -fi && ./configure && make -j1", want: "autoreconf -fi && CFLAGS='-g -O2 -fcommon' ./configure && make -j1",
			inWhy: []string{"members (xpp/xtalk/xtalk_sync.c:63 `} PACKED members;`; xpp/mpptalk.c:240 `} PACKED members;`)",
				"GCC 10 made -fno-common the default", "common storage"}},
		{name: "CMake: the build type's CMAKE_C_FLAGS, no object removed", log: ld, tree: two, build: cmakeBuild,
			want:  "cmake -DCMAKE_C_FLAGS_RELEASE='-O3 -DNDEBUG -fcommon' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			inWhy: []string{"counter (src/b.c:3 `int counter;`; src/a.c:2 `int counter;`)"}},
		{name: "meson: c_args", log: ldLine("table", "src/a.c", 1, "src/b.c", 1), tree: sized, build: "meson setup build && ninja -C build",
			want: "meson setup -Dc_args='-fcommon' build && ninja -C build", inWhy: []string{"src/a.c:1 `int table[16];`"}},
		{name: "meson: into the line's own c_args", log: ldLine("table", "src/a.c", 1, "src/b.c", 1), tree: sized,
			build: "meson setup build -Dc_args=-O1 && ninja -C build", want: "meson setup build -Dc_args='-O1 -fcommon' && ninja -C build"},
		{name: "plain make: CFLAGS in its environment", log: ld, tree: two, build: "make -j$(nproc)",
			want: "CFLAGS='-g -O2 -fcommon' make -j$(nproc)"},
		{name: "no debug information: the tree searched, a header's tentative definition", log: noDebug, tree: header, build: cmakeBuild,
			want:  "cmake -DCMAKE_C_FLAGS_RELEASE='-O3 -DNDEBUG -fcommon' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			inWhy: []string{"debug_level (src/common.h:3 `int debug_level;`)"}},
		{name: "one initialized definition merges with the common one", log: ld,
			tree: memTree{"src/a.c": "\nint counter = 4;\n", "src/b.c": "\n\nint counter;\n"}, build: cmakeBuild,
			want:  "cmake -DCMAKE_C_FLAGS_RELEASE='-O3 -DNDEBUG -fcommon' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			inWhy: []string{"but for one initialized definition"}},
		{name: "lld's form", log: "ld.lld: error: duplicate symbol: counter\n>>> defined at a.c:2 (/workspace/p/src/a.c:2)\n>>>            a.o:(counter)\n>>> defined at b.c:3 (/workspace/p/src/b.c:3)\n>>>            b.o:(.bss+0x0)\n",
			tree: two, build: "make", want: "CFLAGS='-g -O2 -fcommon' make"},
		{name: "mold's form: the tree searched", log: "mold: error: duplicate symbol: b.o: a.o: counter\n", tree: two, build: "make",
			want: "CFLAGS='-g -O2 -fcommon' make", inWhy: []string{"src/a.c:2 `int counter;`; src/b.c:3 `int counter;`"}},

		{name: "both initialized", log: ld, tree: memTree{"src/a.c": "\nint counter = 1;\n", "src/b.c": "\n\nint counter = 2;\n"}, build: cmakeBuild,
			none: "initializers in more than one definition"},
		{name: "both initialized, no debug information", log: "/usr/bin/ld: b.o:(.data+0x0): multiple definition of `z'; a.o:(.data+0x0): first defined here\n",
			tree: memTree{"a.c": "#define Z(v) int z = v\nZ(1);\n", "b.c": "int z;\n"}, build: cmakeBuild, none: "initializers in more than one definition"},
		{name: "a function, with debug information", log: "/usr/bin/ld: b.o: in function `f':\n" + strings.TrimPrefix(ldLine("f", "src/b.c", 2, "src/a.c", 1), "/usr/bin/riscv64-linux-gnu-ld: "),
			tree: memTree{"src/a.c": "int f(void) { return 0; }\n", "src/b.c": "int\nf(void)\n{ return 1; }\n"}, build: cmakeBuild, none: "is a function"},
		{name: "a function, no debug information", log: "/usr/bin/ld: b.o: in function `f':\nb.c:(.text+0x0): multiple definition of `f'; a.o:a.c:(.text+0x0): first defined here\n",
			tree: two, build: cmakeBuild, none: "a function defined twice"},
		{name: "C++ sources", log: strings.ReplaceAll(ld, ".c", ".cpp"), tree: memTree{"src/a.cpp": "\nint counter;\n", "src/b.cpp": "\n\nint counter;\n"},
			build: cmakeBuild, none: "C++ has no tentative definitions"},
		{name: "a C++ symbol", log: "/usr/bin/ld: b.o:(.bss+0x0): multiple definition of `ns::counter'; a.o:(.bss+0x0): first defined here\n", tree: two,
			build: cmakeBuild, none: "C++ symbol"},
		{name: "a header of a tree with no C files", log: ldLine("counter", "src/x.h", 1, "src/x.h", 1), tree: memTree{"src/x.h": "int counter;\n", "src/a.cpp": ""},
			build: cmakeBuild, none: "not C source of a tree with C files"},
		{name: "thread-local", log: ld, tree: memTree{"src/a.c": "\n__thread int counter;\n", "src/b.c": "\n\n__thread int counter;\n"}, build: cmakeBuild,
			none: "thread-local"},
		{name: "the named line declares something else", log: ld, tree: memTree{"src/a.c": "\nint counter;\n", "src/b.c": "void g(void) {\n\tint x;\n\tcounter++;\n}\n"},
			build: cmakeBuild, none: "src/b.c:3 (counter++;) is no file-scope declaration of counter"},
		{name: "a file not in the tree", log: ld, tree: memTree{"other.c": ""}, build: cmakeBuild, none: "not in the tree"},
		{name: "no declaration found by the search", log: noDebug, tree: two, build: cmakeBuild, none: "no C file of the tree declares it"},
		{name: "the plan passes -fcommon already", log: realLog, tree: dahdiTree(t),
			build: "autoreconf -fi && CFLAGS='-g -O2 -fcommon' ./configure && make -j1", none: "already passes -fcommon"},
		{name: "no command takes C flags", log: ld, tree: two, build: "ninja -C out", none: "no cmake, configure, meson or make command"},
		{name: "not a duplicate", log: "/usr/bin/ld: a.o: undefined reference to `f'\n", tree: two, build: cmakeBuild, none: "no multiple definition"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.log)
			f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: tt.log, Phase: "build", Command: tt.build}
			plan := defaultPlan(tt.build)
			fix, why := makeFcommon(context.Background(), f, Env{Platform: p, Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.want {
				t.Errorf("build phase\n got %q\nwant %q", got, tt.want)
			}
			if plan.Phases[1].Commands[0] != tt.build {
				t.Error("the rule changed the caller's plan in place")
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			var got []string
			for _, a := range fix.Actions {
				got = append(got, a.Command)
				if err := validate.FixCommand(a.Command); err != nil {
					t.Errorf("action %q fails the fix validation: %v", a.Command, err)
				}
			}
			if d := cmp.Diff(tt.actions, got); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
			for _, s := range tt.inWhy {
				if !strings.Contains(fix.Analysis, s) {
					t.Errorf("the analysis does not say %q:\n%s", s, fix.Analysis)
				}
			}
			// The replayed plan is idempotent: the rule makes no second fix on it.
			f.Command = fix.Plan.Phases[1].Commands[0]
			if again, why := makeFcommon(context.Background(), f, Env{Platform: p, Plan: fix.Plan, Files: tt.tree.files(), ReadFile: tt.tree.read}); again != nil || !strings.Contains(why, "already passes") {
				t.Errorf("a second fix on the fixed plan: %+v (%s)", again, why)
			}
		})
	}
}

// TestFcommonLinkers judges each duplicate of a real link by GNU ld, lld and mold (host
// gcc 12, binutils 2.40, lld 14, mold 1.10), with and without debug information, of two
// files that each define a tentative x and y, a function f and an initialized z: x and y
// are -fcommon's, f and z are not, whichever form the linker reports them in.
func TestFcommonLinkers(t *testing.T) {
	tree := memTree{"a.c": "int x;\nstruct s { int a; } y;\nint f(void){return 0;}\nint z = 1;\n",
		"b.c": "int x;\nstruct s { int a; } y;\nint f(void){return 1;}\nint z = 2;\nint main(void){return 0;}\n"}
	want := map[string]string{"x": "", "y": "", "f": "function", "z": "initializers in more than one definition"}
	for _, name := range []string{"fcommon-linkers-g.log", "fcommon-linkers.log"} {
		for i, out := range strings.SplitAfter(readLog(t, name), "collect2: error: ld returned 1 exit status\n") {
			if strings.TrimSpace(out) == "" {
				continue
			}
			t.Run(name+"/"+strconv.Itoa(i), func(t *testing.T) {
				dups := parseDuplicates(out)
				var syms []string
				for _, d := range dups {
					syms = append(syms, d.Symbol)
				}
				if !slices.Equal(syms, []string{"x", "y", "f", "z"}) {
					t.Fatalf("symbols %v", syms)
				}
				r := &fcommonReader{ctx: context.Background(), env: Env{Files: tree.files(), ReadFile: tree.read}, cache: map[string][]byte{}, hasC: true}
				for _, d := range dups {
					if _, why := r.judge(d); want[d.Symbol] == "" && why != "" || !strings.Contains(why, want[d.Symbol]) {
						t.Errorf("%s (%+v): %q, want %q", d.Symbol, d.Defs, why, want[d.Symbol])
					}
				}
				f := Failure{Category: atesor.CategoryLinking, Message: out, Phase: "build", Command: "make"}
				if fix, why := makeFcommon(context.Background(), f, Env{Plan: defaultPlan("make"), Files: tree.files(), ReadFile: tree.read}); fix != nil || !strings.Contains(why, "function") {
					t.Errorf("the whole link: fix %+v, reason %q; want none, for f", fix, why)
				}
			})
		}
	}
}

// TestFcommonPropose runs the real log through Propose, as the graph does: the rule
// claims the link failure from its message alone and is the one that fixes it.
func TestFcommonPropose(t *testing.T) {
	realLog := readLog(t, "fcommon-dahdi-tools.log")
	tree := dahdiTree(t)
	ev := buildlog.Extract(realLog)
	f := Failure{Category: ev.Category(), Message: ev.Text, Phase: "build", Command: "autoreconf -fi && ./configure && make -j1"}
	if f.Category != atesor.CategoryLinking {
		t.Errorf("category %s, want linking", f.Category)
	}
	if claims := Claims(f, nil); !slices.Contains(claims, "gcc10-fcommon") {
		t.Fatalf("Claims = %v", claims)
	}
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan(f.Command), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "gcc10-fcommon" {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
}

// TestFileScopeDecls reads what each occurrence of a name at file scope is.
func TestFileScopeDecls(t *testing.T) {
	tests := []struct {
		name, src string
		want      []declKind
	}{
		{"plain", "int x;", []declKind{declTentative}},
		{"second declarator", "int a = 1, x;", []declKind{declTentative}},
		{"first of several, the next initialized", "int x, *p = &y;", []declKind{declTentative}},
		{"a use in another's initializer", "int *p = &x;", nil},
		{"array with a size", "char x[4 * 16];", []declKind{declTentative}},
		{"array with an initializer", "int x[] = {1, 2};", []declKind{declInitialized}},
		{"struct variable, its member of the same name left out", "struct s { int x; } x;", []declKind{declTentative}},
		{"closing a union spelled through macros", "CMD_DEF(A, B, int c; );\nunion PDATA(A) {\n\tMEMBER(A, B);\n} PACKED x;\n", []declKind{declTentative}},
		{"closing an attributed struct", "struct __attribute__((aligned(8))) {\n\tint a;\n} x;", []declKind{declTentative}},
		{"function pointer", "int (*x)(void);", []declKind{declTentative}},
		{"pointer to array", "int (*const x)[3];", []declKind{declTentative}},
		{"prototype", "int x(void);", []declKind{declFunction}},
		{"definition", "static int g;\nint\nx (int a)\n{\n\treturn a;\n}\n", []declKind{declFunction}},
		{"after a function body", "int f(void) { return 0; }\nint x;", []declKind{declTentative}},
		{"after a function returning a struct", "struct s f(void) { struct s r; return r; }\nint x;", []declKind{declTentative}},
		{"a parameter", "void f(int x);", nil},
		{"a local", "void f(void) { int x; x = 1; }", nil},
		{"array size", "char buf[sizeof x];", nil},
		{"extern", "extern int x;", []declKind{declExtern}},
		{"static", "static int x;", []declKind{declStatic}},
		{"thread-local", "_Thread_local int x;", []declKind{declThread}},
		{"typedef", "typedef struct { int a; } x;", []declKind{declTypedef}},
		{"a tag", "struct x { int a; };\nenum x;", nil},
		{"in a comment and a string", "/* int x; */\n// int x;\nconst char *s = \"int x;\";\nchar c = 'x';", nil},
		{"a macro", "#define x 1\n#if defined(x) \\\n  && x\nint x;\n#endif", []declKind{declTentative}},
		{"initialized with a string", "char *x = \"a;b\";", []declKind{declInitialized}},
		{"member access in an initializer", "int y = s.x;", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []declKind
			for _, d := range fileScopeDecls([]byte(tt.src), "x", 0) {
				got = append(got, d.Kind)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestParseDuplicates reads GNU ld's forms, lld's and mold's.
func TestParseDuplicates(t *testing.T) {
	text := readLog(t, "fcommon-dahdi-tools.log") +
		"/usr/bin/ld: b.o: in function `f':\nb.c:(.text+0x0): multiple definition of `f'; a.o:a.c:(.text+0x0): first defined here\n" +
		"/usr/bin/ld: b.o:(.sbss+0x4): multiple definition of `y'; a.o:(.sbss+0x4): first defined here\n"
	want := []duplicate{
		{Symbol: "members", Defs: []symbolDef{{File: "/workspace/dahdi-tools/xpp/xtalk/xtalk_sync.c", Line: 63}, {File: "/workspace/dahdi-tools/xpp/mpptalk.c", Line: 240}}},
		{Symbol: "f", Defs: []symbolDef{{Section: ".text"}, {Section: ".text"}}},
		{Symbol: "y", Defs: []symbolDef{{Section: ".sbss"}, {Section: ".sbss"}}},
	}
	if d := cmp.Diff(want, parseDuplicates(text)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// FuzzFileScopeDecls feeds the source scanner arbitrary text, as a tree's files are: it
// must not panic, and every declaration it reports is on a line of the text that holds
// the name.
func FuzzFileScopeDecls(f *testing.F) {
	f.Add([]byte("union P(A) {\n} PACKED x;\n"), 0)
	f.Add([]byte("int (*x)(void), y = 1;\n/* x */ \"x\" #x\n"), 2)
	f.Add([]byte("#define A \\\nx\nint x[] = {x};"), 3)
	f.Fuzz(func(t *testing.T, src []byte, line int) {
		if line < 0 || line > 1000 {
			return
		}
		for _, d := range fileScopeDecls(src, "x", line) {
			if line > 0 && d.Line != line {
				t.Fatalf("declaration on line %d, asked for %d", d.Line, line)
			}
			lo, hi := lineSpan(src, d.Line)
			if !strings.Contains(string(src[lo:hi]), "x") {
				t.Fatalf("line %d (%q) does not hold the name", d.Line, src[lo:hi])
			}
		}
	})
}

// FuzzParseDuplicates feeds the linker-output parser arbitrary text: it must not panic
// and reports at most maxFcommonSymbols symbols, none empty.
func FuzzParseDuplicates(f *testing.F) {
	f.Add("/usr/bin/ld: a.o:/w/a.c:3: multiple definition of `x'; b.o:/w/b.c:4: first defined here\n")
	f.Add("ld.lld: error: duplicate symbol: x\n>>> defined at a.c:1\n>>>            a.o:(.bss+0x0)\n")
	f.Add("mold: error: duplicate symbol: a.o: b.o: x\n/usr/bin/ld: in function `x':\n(.text+0x4): multiple definition of `x'; : first defined here")
	f.Fuzz(func(t *testing.T, text string) {
		dups := parseDuplicates(text)
		if len(dups) > maxFcommonSymbols {
			t.Fatalf("%d symbols", len(dups))
		}
		for _, d := range dups {
			if d.Symbol == "" {
				t.Fatalf("an empty symbol: %+v", dups)
			}
		}
	})
}
