package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestEarlyLibraries(t *testing.T) {
	const undef = "\n/usr/bin/ld: x.o: in function `f':\nx.c:(.text+0x4): undefined reference to `g'\n"
	tests := []struct {
		name, text string
		want       []string
		line       bool
	}{
		{"dares", "cc -c x.c\ngcc -Wall -lncurses -lmagic -o dares ../../backend/dares.o display.o" + undef, []string{"ncurses", "magic"}, true},
		{"libraries after the objects", "gcc -o prog main.o util.o -lm -lz" + undef, nil, true},
		{"a separate -l argument and libtool's echo", "libtool: link: gcc -g -l z -o libx.la x.lo" + undef, []string{"z"}, true},
		{"a target-prefixed driver, a source linked in one step", "riscv64-linux-gnu-gcc-14 -lpopt main.c -o m" + undef, []string{"popt"}, true},
		{"a compile line is not the link", "gcc -lfoo -c x.c" + undef, nil, false},
		{"the output named like an object", "gcc -lm -o out.o a.o" + undef, []string{"m"}, true},
		{"no undefined reference", "gcc -lm -o x a.o\n", nil, false},
	}
	for _, tt := range tests {
		got, line := earlyLibraries(tt.text)
		if !slices.Equal(got, tt.want) || (line != "") != tt.line {
			t.Errorf("%s: %q, line %q; want %q (a line: %t)", tt.name, got, line, tt.want, tt.line)
		}
	}
}

// daresLibraries are what the library search finds in the sandbox for dares'
// undefined symbols: libncurses.so (an ld script over libncurses.so.6 and -ltinfo)
// defines them all, libtinfo.so its data, libmagic.so the magic_* functions.
func daresLibraries(syms []string) []Library {
	var curses, tinfo, magic []string
	for _, s := range syms {
		switch {
		case strings.HasPrefix(s, "magic_"):
			magic = append(magic, s)
		case s == "LINES" || s == "COLS" || s == "stdscr":
			tinfo = append(tinfo, s)
			curses = append(curses, s)
		default:
			curses = append(curses, s)
		}
	}
	const dir = "/usr/lib/riscv64-linux-gnu/"
	return []Library{
		{Path: dir + "libncurses.so", Package: "libncurses-dev", Defines: curses},
		{Path: dir + "libtinfo.so", Package: "libncurses-dev", Defines: tinfo},
		{Path: dir + "libmagic.so", Package: "libmagic-dev", Defines: magic},
	}
}

// TestLinkOrderDares runs the rule on dares 0.6.5's real link failure in the riscv64
// sandbox (make -j$(nproc) of its heuristic plan), with its two real Makefiles: the
// top level only recurses into frontend/ncurses, whose LDFLAGS holds -lncurses -lmagic.
func TestLinkOrderDares(t *testing.T) {
	out := readLog(t, "link-library-dares.log")
	syms := UndefinedSymbols(out)
	if !slices.Contains(syms, "LINES") || !slices.Contains(syms, "magic_open") || !slices.Contains(syms, "wmove") {
		t.Fatalf("symbols %q", syms)
	}
	tree := memTree{
		"Makefile":                  readLog(t, "link-library/dares/Makefile"),
		"frontend/ncurses/Makefile": readLog(t, "link-library/dares/frontend/ncurses/Makefile"),
		"frontend/qt/dares.pro":     "\n",
	}
	const setup = "apt-get update && apt-get install -y build-essential pkgconf libncurses-dev libmagic-dev libx11-dev"
	all := daresLibraries(syms)
	tests := []struct {
		name, build string
		libs        []Library
		tree        memTree
		planLine    string
		why         string
	}{
		{name: "the Makefile's LDFLAGS with --as-needed off around it", build: "make -j$(nproc)", libs: all, tree: tree,
			planLine: "make LDFLAGS='-Wl,--push-state,--no-as-needed -Wall -lncurses -lmagic -Wl,--pop-state' -j$(nproc)"},
		{name: "libmagic not installed: the named libraries define only some", build: "make -j$(nproc)", libs: all[:2], tree: tree,
			why: "(-lncurses -lmagic) define 16 of the 20 undefined symbols"},
		{name: "the data symbols alone would not do: a library the line does not name", build: "make -j$(nproc)", tree: tree,
			libs: append([]Library{{Path: all[1].Path, Package: all[1].Package, Defines: syms}}, all[2]),
			why:  "define 4 of the 20"},
		{name: "already --no-as-needed", build: "make LDFLAGS=-Wl,--no-as-needed -j$(nproc)", libs: all, tree: tree, why: "already links with --no-as-needed"},
		{name: "no Makefile variable holds the flags", build: "make", libs: all,
			tree: memTree{"Makefile": "dares: x.o\n\tgcc -Wall -lncurses -lmagic -o dares x.o\n"}, why: "no Makefile variable holds -lncurses -lmagic"},
		{name: "the plan sets the variable itself", build: "make LDFLAGS=-lncurses", libs: all, tree: tree, why: "no make command in the plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{setup}}, {Name: "build", Commands: []string{tt.build}}}}
			f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: tt.build}
			fl := &fakeLibraries{libs: tt.libs}
			env := Env{Platform: debian(t), Plan: plan, Libraries: fl.find, Files: tt.tree.files(), ReadFile: tt.tree.read, RepoDir: "/workspace/dares"}
			fix, why := makeLinkOrder(context.Background(), f, env)
			if tt.planLine == "" {
				if fix != nil || !strings.Contains(why, tt.why) {
					t.Fatalf("fix %+v, why %q; want no fix, %q", fix, why, tt.why)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build %q, want %q", got, tt.planLine)
			}
			if !strings.Contains(fix.Analysis, "frontend/ncurses/Makefile") || !strings.Contains(fix.Analysis, "LINES") {
				t.Errorf("analysis %q", fix.Analysis)
			}
			if !slices.Contains(fl.asked, "libncurses-dev") || !slices.Contains(fl.symbol, "LINES") {
				t.Errorf("asked %q for %q", fl.asked, fl.symbol)
			}
		})
	}
	// Through Propose, as the graph asks: link-as-needed-order answers before
	// link-library, which finds no one library defining them all.
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{setup}}, {Name: "build", Commands: []string{"make -j$(nproc)"}}}}
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: "make -j$(nproc)"}
	fl := &fakeLibraries{libs: all}
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: plan, Libraries: fl.find, Files: tree.files(), ReadFile: tree.read, RepoDir: "/workspace/dares"}, nil)
	if fix == nil || fix.Rule != "link-as-needed-order" {
		t.Fatalf("fix %+v, notes %q", fix, notes)
	}
}
