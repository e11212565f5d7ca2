package repair

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// polylibSymbols are the symbols cohomcalg 0.32+ds's link misses, first mention first.
var polylibSymbols = []string{"Matrix_Alloc", "Ehrhart_Quick_Apx", "print_evalue", "Matrix_Free", "free_evalue_refs", "Polyhedron_Free"}

func TestUndefinedSymbols(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"cohomcalg, GNU ld", readLog(t, "link-library-cohomcalg.log"), polylibSymbols},
		{"C++ names, demangled", "a.cpp:(.text+0x1c): undefined reference to `ns::Solver::run(int, char const*)'\n" +
			"/usr/bin/ld: a.cpp:(.text+0x2c): undefined reference to `vtable for ns::Solver'\n",
			[]string{"ns::Solver::run(int, char const*)", "vtable for ns::Solver"}},
		{"lld and mold", "ld.lld: error: undefined symbol: deflateEnd\n>>> referenced by z.c\nmold: error: undefined symbol: inflate\n",
			[]string{"deflateEnd", "inflate"}},
		{"versioned, typographic quotes", "undefined reference to ‘foo@LIBFOO_1.0’\nundefined reference to `foo'\n", []string{"foo"}},
		{"atomics are libatomic's", readLog(t, "libatomic-subword.log"), nil},
		{"a runtime lookup is no link's", "./prog: symbol lookup error: ./prog: undefined symbol: foo\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, UndefinedSymbols(tt.text)); d != "" {
				t.Errorf("symbols (-want +got):\n%s", d)
			}
		})
	}
}

// fakeLibraries answers as SandboxLibraries would for a sandbox holding libs: only
// installed packages asked for, only asked symbols. It records what it was asked.
type fakeLibraries struct {
	libs          []Library
	asked, symbol []string
}

func (fl *fakeLibraries) find(_ context.Context, packages, symbols []string) ([]Library, error) {
	fl.asked, fl.symbol = packages, symbols
	var out []Library
	for _, l := range fl.libs {
		if !slices.Contains(packages, l.Package) {
			continue
		}
		d := slices.DeleteFunc(slices.Clone(l.Defines), func(s string) bool { return !slices.Contains(symbols, s) })
		if len(d) > 0 {
			out = append(out, Library{Path: l.Path, Package: l.Package, Defines: d})
		}
	}
	return out, nil
}

var (
	libpolylib64 = Library{Path: "/usr/lib/riscv64-linux-gnu/libpolylib64.so", Package: "libpolylib64-dev",
		Defines: append(slices.Clone(polylibSymbols), "Polyhedron_Alloc")}
	polylibSetup = "apt-get update && apt-get install -y build-essential pkgconf libpolylib64-dev"
)

// TestLinkLibrary runs the link-library rule on cohomcalg's real link failure, through
// Propose as the graph does, with cohomcalg's real Makefile (its link line reads only
// LDFLAGS) or the plan of another build system.
func TestLinkLibrary(t *testing.T) {
	p := debian(t)
	makefile := readLog(t, "link-library/cohomcalg.Makefile")
	const wrappedPolylib = "-Wl,--push-state,--no-as-needed,-lpolylib64,--pop-state"
	tests := []struct {
		name     string
		setup    string
		build    string
		tree     memTree
		libs     []Library
		dist     *Distribution
		fixes    []atesor.FixAttempt
		planLine string // the build phase after the fix; "" when no fix is wanted
		why      string // a part of the reason when no fix is made
		asked    []string
	}{
		{name: "cohomcalg's Makefile reads LDFLAGS", setup: polylibSetup, build: "make -j$(nproc)", tree: memTree{"Makefile": makefile},
			libs: []Library{libpolylib64}, planLine: "LDFLAGS=" + wrappedPolylib + " make -j$(nproc)",
			asked: []string{"build-essential", "pkgconf", "libpolylib64-dev"}},
		{name: "a Makefile reading LDLIBS", setup: polylibSetup, build: "make", tree: memTree{"Makefile": "cohomcalg: main.o\n\t$(CXX) -o $@ $^ $(LDLIBS)\n"},
			libs: []Library{libpolylib64}, planLine: "LDLIBS=-lpolylib64 make"},
		{name: "configure", setup: polylibSetup, build: "./configure && make", libs: []Library{libpolylib64},
			planLine: "LIBS=-lpolylib64 ./configure && make"},
		{name: "a configure autoconf did not write (netkit's confgen sets LIBS= itself): make's command line, over its MCONFIG's LIBS",
			setup: polylibSetup, build: "./configure && make -j$(nproc)", libs: []Library{libpolylib64}, tree: netkitTree(t),
			planLine: "./configure && make LIBS='-lpolylib64' -j$(nproc)"},
		{name: "cmake", setup: polylibSetup, build: "cmake -S . -B build && cmake --build build", libs: []Library{libpolylib64},
			planLine: "cmake -DCMAKE_EXE_LINKER_FLAGS=" + wrappedPolylib + " -DCMAKE_SHARED_LINKER_FLAGS=" + wrappedPolylib +
				" -DCMAKE_MODULE_LINKER_FLAGS=" + wrappedPolylib + " -S . -B build && cmake --build build"},
		{name: "a Build-Depends the plan does not name", setup: "apt-get update && apt-get install -y build-essential", build: "make -j$(nproc)",
			tree: memTree{"Makefile": makefile}, libs: []Library{libpolylib64},
			dist:     &Distribution{Package: "cohomcalg", BuildDepends: []string{"debhelper-compat", "libpolylib64-dev"}},
			planLine: "LDFLAGS=" + wrappedPolylib + " make -j$(nproc)", asked: []string{"build-essential", "debhelper-compat", "libpolylib64-dev"}},
		{name: "an earlier fix's install", setup: "apt-get update && apt-get install -y build-essential", build: "make -j$(nproc)",
			tree: memTree{"Makefile": makefile}, libs: []Library{libpolylib64},
			fixes:    []atesor.FixAttempt{{Attempt: 1, Rule: "missing-package", Actions: []atesor.Action{{Type: atesor.ActionCommand, Command: "apt-get install -y libpolylib64-dev"}}}},
			planLine: "LDFLAGS=" + wrappedPolylib + " make -j$(nproc)"},
		{name: "no library defines every symbol", setup: polylibSetup, build: "make", tree: memTree{"Makefile": makefile},
			libs: []Library{{Path: libpolylib64.Path, Package: libpolylib64.Package, Defines: polylibSymbols[:2]}},
			why:  "no installed library defines every undefined symbol (/usr/lib/riscv64-linux-gnu/libpolylib64.so of libpolylib64-dev defines 2 of 6)"},
		{name: "two libraries, nothing picks one", setup: polylibSetup + " libpolylib128-dev", build: "make", tree: memTree{"Makefile": makefile},
			libs: []Library{libpolylib64, {Path: "/usr/lib/riscv64-linux-gnu/libpolylib128.so", Package: "libpolylib128-dev", Defines: polylibSymbols}},
			why:  "several installed libraries define every undefined symbol"},
		{name: "two libraries, the Build-Depends' picks one", setup: polylibSetup + " libpolylib128-dev", build: "make", tree: memTree{"Makefile": makefile},
			libs:     []Library{{Path: "/usr/lib/riscv64-linux-gnu/libpolylib128.so", Package: "libpolylib128-dev", Defines: polylibSymbols}, libpolylib64},
			dist:     &Distribution{Package: "cohomcalg", BuildDepends: []string{"libpolylib64-dev"}},
			planLine: "LDFLAGS=" + wrappedPolylib + " make"},
		{name: "one library through /lib and /usr/lib counts once", setup: polylibSetup, build: "make", tree: memTree{"Makefile": makefile},
			libs:     []Library{libpolylib64, {Path: "/lib/riscv64-linux-gnu/libpolylib64.so", Package: "libpolylib64-dev", Defines: polylibSymbols}},
			planLine: "LDFLAGS=" + wrappedPolylib + " make"},
		{name: "a package not installed", setup: "apt-get update && apt-get install -y build-essential", build: "make",
			tree: memTree{"Makefile": makefile}, libs: []Library{libpolylib64}, why: "no installed library defines any"},
		{name: "already linked", setup: polylibSetup, build: "LDFLAGS=" + wrappedPolylib + " make", tree: memTree{"Makefile": makefile},
			libs: []Library{libpolylib64}, why: "the plan already links -lpolylib64"},
		{name: "no command takes linker flags", setup: polylibSetup, build: "./build.sh", libs: []Library{libpolylib64},
			why: "no configure, cmake, meson, go or make command"},
	}
	out := readLog(t, "link-library-cohomcalg.log")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{tt.setup}}, {Name: "build", Commands: []string{tt.build}}}}
			f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: tt.build, Packaged: true}
			fl := &fakeLibraries{libs: tt.libs}
			env := Env{Platform: p, Plan: plan, Libraries: fl.find, Fixes: tt.fixes}
			if tt.tree != nil {
				env.Files, env.ReadFile = tt.tree.files(), tt.tree.read
			}
			if tt.dist != nil {
				env.Distribution = func(context.Context) (*Distribution, error) { return tt.dist, nil }
			}
			if claims := Claims(f, nil); !slices.Contains(claims, "link-library") {
				t.Fatalf("Claims = %v, want link-library among them", claims)
			}
			fix, why := makeLinkLibrary(context.Background(), f, env)
			if tt.asked != nil {
				if d := cmp.Diff(tt.asked, fl.asked); d != "" {
					t.Errorf("packages searched (-want +got):\n%s", d)
				}
			}
			if tt.planLine == "" {
				if fix != nil || !strings.Contains(why, tt.why) {
					t.Fatalf("fix %+v, why %q; want none because %q", fix, why, tt.why)
				}
				return
			}
			if fix == nil || fix.Plan == nil {
				t.Fatalf("no fix with a plan: %q", why)
			}
			if d := cmp.Diff(polylibSymbols, fl.symbol); d != "" {
				t.Errorf("symbols searched (-want +got):\n%s", d)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build phase\n got %q\nwant %q", got, tt.planLine)
			}
			if plan.Phases[1].Commands[0] != tt.build {
				t.Error("the rule changed the caller's plan in place")
			}
			if !strings.Contains(fix.Analysis, "libpolylib64.so") || !strings.Contains(fix.Strategy, "-lpolylib64") {
				t.Errorf("analysis %q, strategy %q: want them to name the library", fix.Analysis, fix.Strategy)
			}
			fix.Rule = "link-library"
			if err := check(fix, "/workspace/cohomcalg"); err != nil {
				t.Errorf("the fix fails the validation of a model's fix: %v", err)
			}
			// With the fix in the plan, the same failure gets no second one.
			env.Plan = fix.Plan
			if again, why := makeLinkLibrary(context.Background(), f, env); again != nil || !strings.Contains(why, "already links") {
				t.Errorf("a second fix %+v (%q)", again, why)
			}
		})
	}
}

// netkitTree is netkit-rwall 0.17's build files: a confgen configure that writes
// MCONFIG (LIBS= empty, as configure left it), a top-level Makefile that only recurses,
// and rwall/Makefile, whose link line reads $(LIBS) from the MCONFIG it includes.
func netkitTree(t *testing.T) memTree {
	return memTree{"configure": readLog(t, "link-library/netkit-rwall/configure.head"), "Makefile": readLog(t, "link-library/netkit-rwall/Makefile"),
		"rwall/Makefile": readLog(t, "link-library/netkit-rwall/rwall.Makefile"), "MCONFIG": readLog(t, "link-library/netkit-rwall/MCONFIG")}
}

// TestLinkLibraryOrder: a failure that misses both libatomic's libcalls and a
// library's symbols goes to libatomic first, and link-library answers only the rest.
func TestLinkLibraryOrder(t *testing.T) {
	text := readLog(t, "libatomic-subword.log") + readLog(t, "link-library-cohomcalg.log")
	claims := Claims(Failure{Category: atesor.ClassifyError(text), Message: text, Phase: "build"}, nil)
	if a, l := slices.Index(claims, "libatomic"), slices.Index(claims, "link-library"); a < 0 || l < a {
		t.Errorf("Claims = %v, want libatomic before link-library", claims)
	}
	if d := cmp.Diff(polylibSymbols, UndefinedSymbols(text)); d != "" {
		t.Errorf("symbols (-want +got):\n%s", d)
	}
	if fix, why := makeLinkLibrary(context.Background(), Failure{Message: readLog(t, "libatomic-cmake.log")}, Env{}); fix != nil || !strings.Contains(why, "__atomic_") {
		t.Errorf("atomics only: fix %+v, why %q", fix, why)
	}
}

// TestSandboxLibrariesRefuses: a package or symbol that could break out of the script
// never reaches a command line.
func TestSandboxLibrariesRefuses(t *testing.T) {
	p := debian(t)
	sb := sandboxtest.New(t, p)
	find := SandboxLibraries(sb, nil)
	for _, c := range []struct{ pkgs, syms []string }{
		{[]string{"libz-dev;reboot"}, []string{"deflate"}},
		{[]string{"$(id)"}, []string{"deflate"}},
		{[]string{"zlib1g-dev"}, []string{"a\nb"}},
		{[]string{"zlib1g-dev"}, []string{""}},
	} {
		if _, err := find(context.Background(), c.pkgs, c.syms); err == nil {
			t.Errorf("%q %q: no error", c.pkgs, c.syms)
		}
	}
	if lines := sb.Lines(); len(lines) != 0 {
		t.Errorf("commands ran: %q", lines)
	}
}

// TestSandboxLibrariesCommand: the symbols reach the script in its environment, the
// search runs without network, and its output is read back.
func TestSandboxLibrariesCommand(t *testing.T) {
	p := debian(t)
	sb := sandboxtest.New(t, p)
	sb.OnPrefix("for p in ", sandboxtest.OK(libpolylib64.Path+"\tlibpolylib64-dev\tMatrix_Alloc\n"+
		libpolylib64.Path+"\tlibpolylib64-dev\tnot_asked\n/x/libother.so\tother-dev\tMatrix_Alloc\n"))
	got, err := SandboxLibraries(sb, []string{"SOURCE_DATE_EPOCH=1"})(context.Background(), []string{"libpolylib64-dev"}, []string{"Matrix_Alloc", "ns::f(int)"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Library{{Path: libpolylib64.Path, Package: "libpolylib64-dev", Defines: []string{"Matrix_Alloc"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("libraries (-want +got):\n%s", d)
	}
	cmds := sb.Commands()
	if len(cmds) != 1 || cmds[0].Network || !slices.Contains(cmds[0].Env, "ATESOR_LINK_SYMBOLS=Matrix_Alloc\nns::f(int)") ||
		!slices.Contains(cmds[0].Env, "SOURCE_DATE_EPOCH=1") || strings.Contains(cmds[0].Line, "Matrix_Alloc") {
		t.Errorf("commands %+v", cmds)
	}
	bad := sandboxtest.New(t, p)
	bad.OnPrefix("for p in ", sandboxtest.Fail(2, "nm: broken"))
	if _, err := SandboxLibraries(bad, nil)(context.Background(), []string{"x-dev"}, []string{"f"}); err == nil {
		t.Error("a failed search: no error")
	}
}

// TestLibrariesScriptOnHost runs the search on this machine's own packages: dpkg's
// lists, nm's demangled and versioned names and awk's matching work, for a C library
// and for C++ names.
func TestLibrariesScriptOnHost(t *testing.T) {
	for _, tool := range []string{"dpkg", "nm", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on this machine", tool)
		}
	}
	if exec.Command("dpkg", "-s", "zlib1g-dev").Run() != nil {
		t.Skip("zlib1g-dev is not installed on this machine")
	}
	h, err := sandbox.NewHost(atesor.Platform{}, sandbox.WithWorkdir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := SandboxLibraries(h, nil)(context.Background(), []string{"zlib1g-dev", "not-installed-dev"}, []string{"deflate", "inflateEnd", "no_such_symbol"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.HasSuffix(got[0].Path, "/libz.so") || got[0].name() != "z" || got[0].Package != "zlib1g-dev" ||
		!slices.Equal(got[0].Defines, []string{"deflate", "inflateEnd"}) {
		t.Errorf("libraries %+v", got)
	}
}

// TestLibrariesScriptLdScript runs the search on this machine's ncurses: Debian's
// libncurses.so is an ld script, INPUT(libncurses.so.6 -ltinfo), which defines its
// members' symbols, data (LINES, stdscr: libtinfo's) and functions (wmove) alike.
func TestLibrariesScriptLdScript(t *testing.T) {
	for _, tool := range []string{"dpkg", "nm", "awk", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on this machine", tool)
		}
	}
	if exec.Command("dpkg", "-s", "libncurses-dev").Run() != nil {
		t.Skip("libncurses-dev is not installed on this machine")
	}
	h, err := sandbox.NewHost(atesor.Platform{}, sandbox.WithWorkdir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	syms := []string{"LINES", "COLS", "stdscr", "wmove", "waddnstr"}
	got, err := SandboxLibraries(h, nil)(context.Background(), []string{"libncurses-dev"}, syms)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(got, func(l Library) bool { return l.name() == "ncurses" })
	if i < 0 || len(got[i].Defines) != len(syms) {
		t.Fatalf("libncurses.so (an ld script) does not define %q: %+v", syms, got)
	}
	if j := slices.IndexFunc(got, func(l Library) bool { return l.name() == "tinfo" }); j < 0 || slices.Contains(got[j].Defines, "wmove") || !slices.Contains(got[j].Defines, "LINES") {
		t.Errorf("libtinfo.so: %+v", got)
	}
}

// TestLinkLibraryDSOMissing runs link-library on libmpc 0.1~r495's real link failure in
// the riscv64 sandbox: mpc2sv8_LDADD puts -lm before libmpcenc.a, whose quant.o needs
// pow, and ld says libm.so is missing from the command line. LIBS at configure time
// puts -lm after every input.
func TestLinkLibraryDSOMissing(t *testing.T) {
	out := readLog(t, "link-dso-missing-libmpc.log")
	const configure = "autoreconf -fi && CFLAGS='-g -O2 -Wno-error=incompatible-pointer-types' ./configure --enable-mpcchap && make -j$(nproc)"
	tests := []struct{ name, build, planLine, why string }{
		{"configure's LIBS", configure, "autoreconf -fi && CFLAGS='-g -O2 -Wno-error=incompatible-pointer-types' LIBS=-lm ./configure --enable-mpcchap && make -j$(nproc)", ""},
		{"a plain make: LDLIBS", "make -j2", "LDLIBS=-lm make -j2", ""},
		{"already after the inputs", "LIBS=-lm ./configure && make", "", "the plan already links -lm after the objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.ClassifyError(out), Message: "/lib/riscv64-linux-gnu/libm.so: error adding symbols: DSO missing from command line",
				Output: out, Phase: "build", Command: tt.build}
			fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan(tt.build)}, nil)
			if tt.planLine == "" {
				if fix != nil && fix.Rule == "link-library" || !strings.Contains(strings.Join(notes, "\n"), tt.why) {
					t.Fatalf("fix %+v, notes %q; want no fix, %q", fix, notes, tt.why)
				}
				return
			}
			if fix == nil || fix.Rule != "link-library" {
				t.Fatalf("fix %+v, notes %q", fix, notes)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build %q, want %q", got, tt.planLine)
			}
			if !strings.Contains(fix.Analysis, "pow only in /lib/riscv64-linux-gnu/libm.so") {
				t.Errorf("analysis %q", fix.Analysis)
			}
		})
	}
}
