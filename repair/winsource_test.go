package repair

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestWindowsSourceRule runs the rule, through Propose as the graph does, on the real
// output of iperf 2.2.1+dfsg (its repack strips src/service.c and service.h, which
// src/Makefile.am still lists) with its real src/Makefile.am, and on smaller trees for
// the cases it must leave.
func TestWindowsSourceRule(t *testing.T) {
	iperfAM := readLog(t, "makemissing/iperf-2.2.1.src.Makefile.am")
	mainCpp := "#include \"headers.h\"\n#include \"Settings.hpp\"\n\n#ifdef WIN32\n#include \"service.h\"\n#endif\n\nint main() {}\n"
	iperf := func(main string) memTree {
		return memTree{"configure.ac": "AC_INIT([iperf], [2.2.1])\n", "configure": "", "Makefile.am": "SUBDIRS = compat src\n",
			"src/Makefile.am": iperfAM, "src/main.cpp": main, "src/Launch.cpp": "", "include/headers.h": "#ifdef WIN32\n#include <windows.h>\n#endif\n"}
	}
	const failure = "make[2]: Entering directory '/workspace/p/src'\nmake[2]: *** No rule to make target 'w32.c', needed by 'w32.o'.  Stop.\n"
	tests := []struct {
		name  string
		log   string
		tree  memTree
		build string
		want  map[string]string // the patched files' new content; nil: no fix
		words []string
		none  string
	}{
		{name: "iperf: service.c stripped, service.h included under #ifdef WIN32",
			log: "windows-source-iperf.log", tree: iperf(mainCpp), build: shippedConfigure,
			want:  map[string]string{"src/Makefile.am": strings.Replace(iperfAM, "\t\tservice.c \\\n", "\t\t\\\n", 1)},
			words: []string{"no rule for service.c", "src/Makefile.am:26 iperf_SOURCES still lists it", "src/main.cpp:5, under #ifdef WIN32"}},
		{name: "the #else of #ifndef _WIN32, a header in a directory",
			log: failure, build: autoreconfBuild,
			tree: memTree{"configure.ac": "", "src/Makefile.am": "p_SOURCES = main.c w32.c\n",
				"src/main.c": "#ifndef _WIN32\n#include <unistd.h>\n#else\n#include \"win/w32.h\"\n#endif\n"},
			want:  map[string]string{"src/Makefile.am": "p_SOURCES = main.c\n"},
			words: []string{"src/main.c:4, under #else of #ifndef _WIN32"}},
		{name: "an include outside any Windows conditional: no fix",
			log: "windows-source-iperf.log", tree: iperf("#include \"service.h\"\nint main() {}\n"), build: shippedConfigure,
			none: "src/main.cpp:1 includes service's header outside a Windows conditional"},
		{name: "the #else of #ifdef WIN32 is every other system: no fix",
			log: failure, build: autoreconfBuild,
			tree: memTree{"configure.ac": "", "src/Makefile.am": "p_SOURCES = main.c w32.c\n",
				"src/main.c": "#ifdef WIN32\n#include <windows.h>\n#else\n#include \"w32.h\"\n#endif\n"},
			none: "outside a Windows conditional"},
		{name: "WIN32 or another system: no fix",
			log: failure, build: autoreconfBuild,
			tree: memTree{"configure.ac": "", "src/Makefile.am": "p_SOURCES = main.c w32.c\n",
				"src/main.c": "#if defined(WIN32) || defined(__linux__)\n#include \"w32.h\"\n#endif\n"},
			none: "outside a Windows conditional"},
		{name: "nothing includes its header: no fix",
			log: failure, build: autoreconfBuild,
			tree: memTree{"configure.ac": "", "src/Makefile.am": "p_SOURCES = main.c w32.c\n", "src/main.c": "int main() {}\n"},
			none: "nothing in the tree includes w32's header"},
		{name: "the source is in the tree: no fix",
			log: failure, build: autoreconfBuild,
			tree: memTree{"configure.ac": "", "src/Makefile.am": "p_SOURCES = main.c w32.c\n", "src/w32.c": "", "src/main.c": "#ifdef WIN32\n#include \"w32.h\"\n#endif\n"},
			none: "no Makefile.am lists w32.c"},
		{name: "the target's only source: no fix",
			log: failure, build: autoreconfBuild,
			tree: memTree{"configure.ac": "", "src/Makefile.am": "w_SOURCES = w32.c\n", "src/main.c": "#ifdef WIN32\n#include \"w32.h\"\n#endif\n"},
			none: "lists w32.c alone"},
		{name: "not an autotools plan: no fix",
			log: failure, build: "make -j$(nproc)",
			tree: memTree{"src/Makefile.am": "p_SOURCES = main.c w32.c\n"},
			none: "does not build with the autotools"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.build)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, windowsSourceRuleName) {
				t.Fatalf("Claims(%q) = %v, want %s", f.Message, claims, windowsSourceRuleName)
			}
			env := Env{Platform: p, Plan: autotoolsPlan(tt.build), Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeWindowsSource(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			patched := wantPatched(t, fix, tt.tree, tt.want)
			wantSays(t, fix.Analysis, tt.words)
			if tt.build == shippedConfigure {
				if fix.Plan == nil || fix.Plan.Phases[1].Commands[0] != autoreconfBuild {
					t.Errorf("plan %+v, want the build to run %q", fix.Plan, autoreconfBuild)
				}
			} else if fix.Plan != nil {
				t.Errorf("plan changed to %+v, want it unchanged (autoreconf already runs)", fix.Plan.Phases)
			}
			fx, notes := Propose(context.Background(), f, env, nil)
			if fx == nil || fx.Rule != windowsSourceRuleName {
				t.Fatalf("Propose = %+v, notes %v", fx, notes)
			}
			if err := check(fx, "/workspace/p"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
			env.Files, env.ReadFile = patched.files(), patched.read
			if again, _ := makeWindowsSource(context.Background(), f, env); again != nil {
				t.Errorf("the patched tree gets another fix: %s", again.Strategy)
			}
		})
	}
}

// FuzzWindowsBranch reads arbitrary C text as a tree file's conditionals: no line may
// panic the reader, and wrapping the whole file in #ifdef _WIN32 makes every line that
// no directive of the file closes early Windows-only.
func FuzzWindowsBranch(f *testing.F) {
	f.Add("#ifdef WIN32\n#include \"service.h\"\n#endif\n")
	f.Add("#ifndef _WIN32\n#include <unistd.h>\n#else\n#include \"w32.h\"\n#endif\n#elif\n#else\n#endif\n")
	f.Add("#if !defined(_WIN32) // c\n#else /* x */\n#endif\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Split(text, "\n")
		for i := range lines {
			windowsBranch(lines, i)
		}
		if strings.Contains(text, "#") {
			return
		}
		wrapped := append(append([]string{"#ifdef _WIN32"}, lines...), "#endif")
		for i := 1; i <= len(lines); i++ {
			if _, ok := windowsBranch(wrapped, i); !ok {
				t.Fatalf("line %d of a file with no directives, wrapped in #ifdef _WIN32, is not Windows-only", i)
			}
		}
	})
}
