package buildlog_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
)

// The logic cases below pin one rule each; the real logs are in corpus_test.go.
func TestExtractRules(t *testing.T) {
	tests := []struct {
		name, log  string
		first      string
		kind       buildlog.Kind
		strength   buildlog.Strength
		target     string
		category   atesor.ErrorCategory
		inText     []string
		notInFirst string
	}{
		{
			name: "a weak early line never outranks the missing program make failed on",
			log: "!! doxygen not found, not generating documentation\n-- Configuring done\n" +
				"[ 50%] Building C object CMakeFiles/x.dir/x.c.o\nsh: 1: ./gen_test: not found\n" +
				"make[2]: *** [CMakeFiles/t.dir/build.make:70: t.out] Error 127\n" +
				"make[1]: *** [CMakeFiles/Makefile2:100: CMakeFiles/t.dir/all] Error 2\nmake: *** [Makefile:136: all] Error 2",
			first: "sh: 1: ./gen_test: not found", kind: buildlog.KindMissingProgram, strength: buildlog.Strong,
			target: "t.out", category: atesor.CategoryMissingTool, inText: []string{"make: *** [Makefile:136: all] Error 2"},
		},
		{
			name: "parallel make: the diagnostic of the target make reports failed first",
			log: "In file included from bar.h:3,\n                 from bar.c:1:\nbaz.h:12:5: error: unknown type name 'uint32_t'\n" +
				"foo.c: In function 'main':\nfoo.c:5:3: error: implicit declaration of function 'strlen' [-Wimplicit-function-declaration]\n" +
				"    5 |   strlen(x);\n      |   ^~~~~~\nmake: *** [Makefile:10: foo.o] Error 1\nmake: *** Waiting for unfinished jobs....\n" +
				"make: *** [Makefile:10: bar.o] Error 1",
			first: "foo.c:5:3: error: implicit declaration of function 'strlen' [-Wimplicit-function-declaration]",
			kind:  buildlog.KindCompiler, strength: buildlog.Strong, target: "foo.o", category: atesor.CategoryCompilation,
			inText: []string{"foo.c: In function 'main':", "    5 |   strlen(x);"},
		},
		{
			name: "the include chain of the failing translation unit makes the error its own",
			log: "gcc -c a.c\nb.c:3:1: error: expected ';' before '}' token\nIn file included from a.c:2:\ninc/x.h:4:10: fatal error: zlib.h: No such file or directory\n" +
				"compilation terminated.\nmake: *** [Makefile:5: a.o] Error 1\nmake: *** [Makefile:5: b.o] Error 1",
			first: "inc/x.h:4:10: fatal error: zlib.h: No such file or directory", kind: buildlog.KindCompiler,
			strength: buildlog.Strong, target: "a.o", category: atesor.CategoryDependency, inText: []string{"In file included from a.c:2:"},
		},
		{
			// Real: make in a Go module whose Makefile builds with -race, riscv64 sandbox.
			name:  "the go command refusing a build flag the platform lacks",
			log:   "go build -race -o bin/raceprobe .\n-race is not supported on linux/riscv64\nmake: *** [Makefile:4: build] Error 2\n",
			first: "-race is not supported on linux/riscv64", kind: buildlog.KindGo, strength: buildlog.Strong,
			target: "build", category: atesor.CategoryCompilation,
		},
		{
			name: "a link target takes the linker's diagnostic",
			log: "gcc -o prog main.o -lm\n/usr/bin/ld: main.o: in function `main':\nmain.c:(.text+0x1c): undefined reference to `deflate'\n" +
				"collect2: error: ld returned 1 exit status\nmake: *** [Makefile:20: prog] Error 1",
			first: "main.c:(.text+0x1c): undefined reference to `deflate'", kind: buildlog.KindLinker, strength: buildlog.Strong,
			target: "prog", category: atesor.CategoryLinking, inText: []string{"in function `main'", "collect2"},
		},
		{
			name: "ninja: the output under FAILED: is the failed command's",
			log: "[1/4] Building C object a.o\nFAILED: CMakeFiles/x.dir/a.c.o\n/usr/bin/cc -c a.c -o CMakeFiles/x.dir/a.c.o\n" +
				"a.c:1:10: fatal error: foo.h: No such file or directory\n    1 | #include <foo.h>\n      |          ^~~~~~~\ncompilation terminated.\n" +
				"[2/4] Building C object b.o\nninja: build stopped: subcommand failed.",
			first: "a.c:1:10: fatal error: foo.h: No such file or directory", kind: buildlog.KindCompiler, strength: buildlog.Strong,
			target: "CMakeFiles/x.dir/a.c.o", category: atesor.CategoryDependency,
		},
		{
			name: "configure: the error, not the survived checks and not the 'in dir' header",
			log: "checking for gcc... gcc\nchecking for zlibVersion in -lz... no\nconfigure: error: in `/workspace/p':\n" +
				"configure: error: zlib not installed\nSee `config.log' for more details",
			first: "configure: error: zlib not installed", kind: buildlog.KindConfigure, strength: buildlog.Strong,
			category: atesor.CategoryDependency,
		},
		{
			name: "cmake: the message under the header becomes the first line",
			log: "-- Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\n" +
				"CMake Error at /usr/share/cmake-3.31/Modules/FindPackageHandleStandardArgs.cmake:233 (message):\n" +
				"  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)\nCall Stack (most recent call first):\n  CMakeLists.txt:5 (find_package)\n\n\n" +
				"-- Configuring incomplete, errors occurred!",
			first: "CMake Error: Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)", kind: buildlog.KindCMake,
			strength: buildlog.Strong, category: atesor.CategoryDependency, inText: []string{"CMakeLists.txt:5 (find_package)"},
		},
		{
			name:  "meson",
			log:   "Run-time dependency zlib found: NO (tried pkgconfig and cmake)\n\nmeson.build:10:0: ERROR: Dependency \"zlib\" not found, tried pkgconfig and cmake\n\nA full log can be found at /w/builddir/meson-logs/meson-log.txt",
			first: "meson.build:10:0: ERROR: Dependency \"zlib\" not found, tried pkgconfig and cmake", kind: buildlog.KindMeson,
			strength: buildlog.Strong, category: atesor.CategoryDependency,
		},
		{
			name:  "go: a module error, not the downloads",
			log:   "go: downloading golang.org/x/sys v0.20.0\ngo: go.mod requires go >= 1.99 (running go 1.24.4; GOTOOLCHAIN=local)",
			first: "go: go.mod requires go >= 1.99 (running go 1.24.4; GOTOOLCHAIN=local)", kind: buildlog.KindGo,
			strength: buildlog.Strong, category: atesor.CategoryMissingTool,
		},
		{
			name:  "go: a compile error under its package header",
			log:   "# example.com/m/pkg\npkg/a.go:5:2: undefined: foo\npkg/a.go:6:2: undefined: bar",
			first: "pkg/a.go:5:2: undefined: foo", kind: buildlog.KindGo, strength: buildlog.Strong,
			inText: []string{"# example.com/m/pkg", "pkg/a.go:6:2"},
		},
		{
			name: "cargo: the first error, not the summary",
			log: "   Compiling foo v0.1.0 (/w/foo)\nwarning: unused variable: `x`\nerror[E0425]: cannot find value `y` in this scope\n --> src/main.rs:3:5\n  |\n" +
				"3 |     y\n  |     ^ not found in this scope\n\nerror: could not compile `foo` (bin \"foo\") due to 1 previous error",
			first: "error[E0425]: cannot find value `y` in this scope", kind: buildlog.KindCargo, strength: buildlog.Strong,
			category: atesor.CategoryCompilation, inText: []string{"--> src/main.rs:3:5"},
		},
		{
			name:  "x86-only flag: the driver's own error",
			log:   "cc -O2 -msse4.2 -c a.c\ncc: error: unrecognized command-line option '-msse4.2'\nmake: *** [Makefile:3: a.o] Error 1",
			first: "cc: error: unrecognized command-line option '-msse4.2'", kind: buildlog.KindCompiler, strength: buildlog.Strong,
			target: "a.o", category: atesor.CategoryArchitecture,
		},
		{
			name:  "a failure summary stands in when there is no diagnostic",
			log:   "gcc -c a.c -o a.o\nmake: *** [Makefile:3: a.o] Killed",
			first: "make: *** [Makefile:3: a.o] Killed", kind: buildlog.KindMake, strength: buildlog.Summary, target: "a.o",
			inText: []string{"gcc -c a.c -o a.o"},
		},
		{
			name:  "diagnostics before a failure make ignored do not count",
			log:   "sh: 1: doxygen: not found\nmake: [Makefile:9: doc] Error 127 (ignored)\nmake: *** [Makefile:3: all] Error 2",
			first: "make: *** [Makefile:3: all] Error 2", kind: buildlog.KindMake, strength: buildlog.Summary, target: "all",
		},
		{
			name:  "only weak signals: the one nearest the failure",
			log:   "doxygen not found\nbuilding\nfoo: cannot open bar\ndone",
			first: "foo: cannot open bar", kind: buildlog.KindHint, strength: buildlog.Weak,
		},
		{
			name:  "no signal: the last line",
			log:   "step one\nstep two\n\n",
			first: "step two", kind: buildlog.KindTail, strength: buildlog.None,
		},
		{
			name:  "no output",
			log:   " \n\n",
			first: buildlog.NoOutput, kind: buildlog.KindTail,
		},
		{
			name:       "a compiler command line with -Werror is no diagnostic",
			log:        "gcc -Werror -c error.c -o error.o\nerror.c:3:1: error: expected identifier\nmake: *** [Makefile:3: error.o] Error 1",
			first:      "error.c:3:1: error: expected identifier",
			kind:       buildlog.KindCompiler,
			strength:   buildlog.Strong,
			target:     "error.o",
			notInFirst: "-Werror",
		},
		{
			name:  "terminal escapes and carriage returns are what a terminal shows",
			log:   "progress 10%\rprogress 100%\n\x1b[1m\x1b[31merror\x1b[0m\x1b[1m: linker `cc` not found\x1b[0m",
			first: "error: linker `cc` not found", kind: buildlog.KindError, strength: buildlog.Strong,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.log)
			if ev.Diagnostic != tt.first {
				t.Errorf("Diagnostic = %q, want %q\ntext:\n%s", ev.Diagnostic, tt.first, ev.Text)
			}
			if ev.Kind != tt.kind || ev.Strength != tt.strength || ev.Target != tt.target {
				t.Errorf("kind, strength, target = %s, %s, %q; want %s, %s, %q", ev.Kind, ev.Strength, ev.Target, tt.kind, tt.strength, tt.target)
			}
			if tt.category != "" && ev.Category() != tt.category {
				t.Errorf("Category = %s, want %s", ev.Category(), tt.category)
			}
			for _, s := range tt.inText {
				if !strings.Contains(ev.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, ev.Text)
				}
			}
			if tt.notInFirst != "" && strings.Contains(ev.Diagnostic, tt.notInFirst) {
				t.Errorf("first line %q holds %q", ev.Diagnostic, tt.notInFirst)
			}
			checkEvidence(t, ev)
		})
	}
}

// checkEvidence asserts what holds for every extraction.
func checkEvidence(t *testing.T, ev buildlog.Evidence) {
	t.Helper()
	if len(ev.Text) > buildlog.MaxChars {
		t.Errorf("text has %d bytes, more than %d", len(ev.Text), buildlog.MaxChars)
	}
	if ev.Diagnostic == "" || strings.ContainsAny(ev.Diagnostic, "\n") || strings.TrimSpace(ev.Diagnostic) != ev.Diagnostic {
		t.Errorf("diagnostic %q is not one trimmed line", ev.Diagnostic)
	}
	if first, _, _ := strings.Cut(ev.Text, "\n"); first != ev.Diagnostic {
		t.Errorf("first line of the text %q is not the diagnostic %q", first, ev.Diagnostic)
	}
	if !utf8.ValidString(ev.Text) {
		t.Errorf("text is not valid UTF-8")
	}
}

func TestExtractBound(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		b.WriteString("gcc -c file" + strings.Repeat("é", i%7) + ".c\n")
	}
	b.WriteString("file.c:1:1: error: " + strings.Repeat("ü", 2000) + "\n")
	for range 200 {
		b.WriteString("      |  context line " + strings.Repeat("x", 100) + "\n")
	}
	b.WriteString("make: *** [Makefile:1: file.o] Error 1\n")
	ev := buildlog.Extract(b.String())
	checkEvidence(t, ev)
	if !strings.HasPrefix(ev.Diagnostic, "file.c:1:1: error: üü") {
		t.Errorf("Diagnostic = %.60q", ev.Diagnostic)
	}
	if !strings.HasSuffix(ev.Text, "make: *** [Makefile:1: file.o] Error 1") {
		t.Errorf("the failing command's last line is missing:\n%s", ev.Text[len(ev.Text)-200:])
	}
}

func TestParallelAndSerial(t *testing.T) {
	tests := []struct {
		line, output string
		parallel     bool
		serial       string
	}{
		{"make -j$(nproc)", "", true, "make -j1"},
		{"make -j 4 && make install", "", true, "make -j1 && make install"},
		{"make -j4 -C src V=1", "", true, "make -j1 -C src V=1"},
		{"make -j -k", "", true, "make -j1 -k"},
		{"make -j1", "", false, ""},
		{"make", "", false, ""},
		{"make", "make: *** Waiting for unfinished jobs....", true, ""},
		{"ninja -C build", "", true, "ninja -C build -j1"},
		{"meson compile -C builddir && meson test -C builddir", "", true, "meson compile -C builddir -j1 && meson test -C builddir"},
		{"cmake --build build", "", false, "cmake --build build -j1"},
		{"cmake --build build", "[3/10] Building C object a.o", true, "cmake --build build -j1"},
		{"cmake --build build --parallel 8 -- VERBOSE=1", "", true, "cmake --build build --parallel 1 -- VERBOSE=1"},
		{"cmake --build build --parallel", "", true, "cmake --build build --parallel 1"},
		{"cargo build --release --jobs=4", "", true, "cargo build --release --jobs=1"},
		{"go build ./...", "", false, ""},
	}
	for _, tt := range tests {
		if got := buildlog.Parallel(tt.line, tt.output); got != tt.parallel {
			t.Errorf("Parallel(%q, %q) = %v, want %v", tt.line, tt.output, got, tt.parallel)
		}
		got, ok := buildlog.Serial(tt.line)
		if ok != (tt.serial != "") || ok && got != tt.serial {
			t.Errorf("Serial(%q) = %q, %v; want %q", tt.line, got, ok, tt.serial)
		}
		if ok && buildlog.Parallel(got, "") {
			t.Errorf("Serial(%q) = %q still builds in parallel", tt.line, got)
		}
	}
}
