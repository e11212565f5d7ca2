package repair

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// buildFailure is the Failure of a build phase's command whose output is log: a
// testdata file when it ends in .log, else the output itself.
func buildFailure(t testing.TB, log, command string) Failure {
	t.Helper()
	out := log
	if strings.HasSuffix(out, ".log") {
		out = readLog(t, out)
	}
	ev := buildlog.Extract(out)
	return Failure{Category: ev.Category(), Message: ev.Text, Output: out, Phase: "build", Command: command}
}

func readLog(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func debian(t testing.TB) atesor.Platform {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func excerptIndex(t testing.TB) *Contents {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "Contents-riscv64.excerpt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ParseContents(f, "riscv64-linux-gnu")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readTreeFile reads a file of the sample source trees (testdata/trees of the module),
// trimmed layouts of real upstream trees whose build files are unchanged.
func readTreeFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "trees", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// memTree is a repository held in memory, for rules that read build files.
type memTree map[string]string

func (m memTree) files() []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (m memTree) read(_ context.Context, rel string) ([]byte, error) {
	if s, ok := m[rel]; ok {
		return []byte(s), nil
	}
	return nil, errors.New("no such file")
}

func defaultPlan(build string) *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential"}},
		{Name: "build", Commands: []string{build}},
	}}
}

// TestRules runs each rule on real build-log excerpts, through Propose as the graph does,
// and checks the fix, and that the fix passes the validation a model's fix passes.
func TestRules(t *testing.T) {
	p := debian(t)
	idx := excerptIndex(t)
	tests := []struct {
		name     string
		log      string
		category atesor.ErrorCategory
		command  string
		plan     *atesor.BuildPlan
		tree     memTree
		det      *atesor.Detection
		rule     string
		actions  []string // command lines, or "patch FILE"
		planLine string   // the build phase's new command
	}{
		{name: "header", log: "missing-header.log", rule: "missing-package",
			actions: []string{"apt-get install -y libpopt-dev"}},
		{name: "library", log: "missing-lib.log", rule: "missing-package",
			actions: []string{"apt-get install -y libgdbm-dev"}},
		{name: "pkg-config", log: "missing-pc.log", rule: "missing-package",
			actions: []string{"apt-get install -y libcurl4-gnutls-dev"}},
		{name: "program via make", log: "missing-prog-make.log", rule: "missing-package",
			actions: []string{"apt-get install -y bison"}},
		{name: "program via sh", log: "missing-prog-sh.log", rule: "missing-package",
			actions: []string{"apt-get install -y gperf"}},
		{name: "GCC 14 in a tree that takes its compile command from conf-cc (bglibs)", log: "gcc14-djb-conf-cc-bglibs.log", command: "make -j$(nproc)",
			plan: defaultPlan("make -j$(nproc)"),
			tree: memTree{"Makefile": "ltcompile: conf-cc conf-ld\n\t( echo '#!/bin/sh'; echo exec libtool --mode=compile `head -n 1 conf-cc` ) > ltcompile\n",
				"conf-cc": "gcc -W -Wall -Wshadow -Wno-unused-result -Os -g\n\nThis will be used to compile .c files.\n"},
			rule: "gcc14-permissive", actions: []string{"patch conf-cc"}},
		{name: "the default goal's tests fail in the build (bglibs' selftests)", log: "make-test-goal-bglibs.log", command: "make -j$(nproc)",
			plan: defaultPlan("make -j$(nproc)"), tree: memTree{"Makefile": "# Don't edit Makefile! Use conf-* for configuration.\nSHELL=/bin/sh\nDEFAULT: all\n\nall: sysdeps.h libraries programs man selftests\n\nselftests: selftests.sh sysdeps.h libbg.la\n\tsh selftests.sh\n"},
			rule: "make-goal-without-tests", planLine: "make -j$(nproc) sysdeps.h libraries programs man"},
		{name: "a build script's require of a file beside it, which Perl 5.26 no longer finds (libradsec's convert.pl)", log: "perl-dot-inc-libradsec.log",
			command: "autoreconf -fi && ./configure && make -j1", plan: defaultPlan("autoreconf -fi && ./configure && make -j1"),
			tree: memTree{"radius/convert.pl": "require \"common.pl\";\n", "radius/common.pl": "1;\n", "radius/Makefile.am": "EXTRA_DIST = common.pl convert.pl\n"},
			rule: "perl-dot-inc", planLine: "export PERL_USE_UNSAFE_INC=1 && autoreconf -fi && ./configure && make -j1"},
		{name: "a program the go command runs (gowebp's .swig package)", log: "missing-prog-go-swig.log", rule: "missing-package",
			actions: []string{"apt-get install -y swig"}},
		{name: "program a Perl script could not exec (spellutils' autoreconf)", log: "missing-prog-perl.log", rule: "missing-package",
			actions: []string{"apt-get install -y autopoint"}},
		{name: "msgfmt, which gettext's po/Makefile ran as \":\" (minidlna)", log: "missing-prog-msgfmt-minidlna.log", rule: "missing-package",
			actions: []string{"apt-get install -y gettext"}},
		{name: "bison, which an old configure says it requires before it stops without a Makefile (lifelines)", log: "missing-prog-configure-lifelines.log",
			command: "./configure && make -j$(nproc)", plan: defaultPlan("./configure && make -j$(nproc)"), tree: memTree{"configure": "#!/bin/sh\n", "configure.ac": ""},
			rule: "missing-package", actions: []string{"apt-get install -y bison"}},
		{name: "automake helper files missing", log: "automake-missing.log", command: "./configure && make -j$(nproc)",
			plan: defaultPlan("./configure && make -j$(nproc)"), tree: memTree{"configure.in": "AC_INIT(x)\n", "configure": "#!/bin/sh\n"},
			rule: "autoreconf", actions: []string{"apt-get install -y autoconf automake libtool autopoint pkg-config", "autoreconf -fi"}},
		{name: "configure refuses the default prefix and names one (guile-cairo)", log: "configure-prefix-guile-cairo.log", command: "autoreconf -fi && ./configure && make -j$(nproc)",
			plan: defaultPlan("autoreconf -fi && ./configure && make -j$(nproc)"), tree: memTree{"configure.ac": ""},
			rule: "configure-explicit-prefix", planLine: "autoreconf -fi && ./configure --prefix=/usr && make -j$(nproc)"},
		{name: "glibc removed sys_errlist (rungetty)", log: "glibc-errlist-rungetty.log", command: "make -j$(nproc)",
			plan: defaultPlan("make -j$(nproc)"), tree: memTree{"Makefile": "CC=gcc\n", "rungetty.c": rungettyExcerpt},
			rule: "glibc-removed-errlist", actions: []string{"patch rungetty.c"}},
		{name: "glibc removed sys_errlist: the link of a program that declares it", log: "glibc-errlist-link.log", command: "make",
			plan: defaultPlan("make"), tree: memTree{"Makefile": "el: el.o\n", "el.c": elSource},
			rule: "glibc-removed-errlist", actions: []string{"patch el.c"}},
		{name: "GCC 14 breaks an old configure (config.log)", log: "configure-old-cc.log", command: "./configure && make -j$(nproc)",
			plan: defaultPlan("./configure && make -j$(nproc)"),
			tree: memTree{"configure": "#!/bin/sh\n", "config.log": "configure:904: gcc -o conftest conftest.c\nconfigure:900:1: error: return type defaults to 'int' [-Wimplicit-int]\n"},
			rule: "gcc14-permissive", planLine: "CFLAGS='-g -O2 -Wno-error=implicit-int' ./configure && make -j$(nproc)"},
		// boxshade's makefile.unx sets CFLAGS outright, so the flags ride on CC: the
		// makefile read is the one make -f names, not a Makefile the tree lacks.
		{name: "GCC 14 errors under a platform makefile that sets CFLAGS", log: "gcc14-platform-makefile-boxshade.log", command: "make -f makefile.unx -j$(nproc)",
			plan: defaultPlan("make -f makefile.unx -j$(nproc)"), tree: memTree{"makefile.unx": readTreeFile(t, "boxshade/makefile.unx"), "box.c": ""},
			rule: "gcc14-permissive", planLine: "make CC='cc -Wno-error=implicit-function-declaration -Wno-error=int-conversion' -f makefile.unx -j$(nproc)"},
		// pd-maxlib's Makefile includes pd-lib-builder's, which sets CFLAGS outright: the
		// included file counts, so the flags ride on CC, not on an environment CFLAGS
		// that the include overrides.
		{name: "GCC 14 errors under a makefile whose include sets CFLAGS", log: "gcc14-included-makefile-pd-maxlib.log", command: "make -j$(nproc)",
			plan: defaultPlan("make -j$(nproc)"), tree: memTree{"Makefile": readTreeFile(t, "pd-maxlib/Makefile"),
				"pd-lib-builder/Makefile.pdlibbuilder": readTreeFile(t, "pd-maxlib/pd-lib-builder/Makefile.pdlibbuilder"), "src/nroute.c": ""},
			rule: "gcc14-permissive", planLine: "make CC='cc -Wno-error=implicit-function-declaration' -j$(nproc)"},
		{name: "GCC 14 errors under a platform makefile in a subdirectory", log: "gcc14-platform-makefile-lutefisk.log", command: "make -C src -f Makefile.linux -j$(nproc)",
			plan: defaultPlan("make -C src -f Makefile.linux -j$(nproc)"), tree: memTree{"src/Makefile.linux": readTreeFile(t, "lutefisk/src/Makefile.linux"), "Makefile.linux": "all:\n"},
			rule: "gcc14-permissive", planLine: "make CC='cc -Wno-error=implicit-function-declaration' -C src -f Makefile.linux -j$(nproc)"},
		// meson takes C flags as its c_args option, on the setup line the rebuild
		// configures afresh with.
		{name: "GCC 14 errors in a meson build", log: "gcc14-meson.log", command: "meson setup builddir && ninja -C builddir",
			plan: defaultPlan("meson setup builddir && ninja -C builddir"), tree: memTree{"meson.build": readLog(t, "gcc14-meson/meson.build"), "src/meson.build": readLog(t, "gcc14-meson/src/meson.build")},
			rule: "gcc14-permissive", planLine: "meson setup -Dc_args='-Wno-error=implicit-function-declaration' builddir && ninja -C builddir"},
		{name: "parallel race (buildlog's serial-rerun verdict)", category: atesor.CategoryUnknown,
			log: "race-verdict.log", command: "make -j$(nproc)", plan: defaultPlan("make -j$(nproc)"),
			rule: "parallel-make-race", planLine: "make -j1"},
		{name: "parallel race", log: "race.log", command: "make -j$(nproc)", plan: defaultPlan("make -j$(nproc)"),
			rule: "parallel-make-race", planLine: "make -j1"},
		{name: "config.guess older than riscv64", log: "config-guess-old.log", command: "./configure && make -j$(nproc)",
			plan: defaultPlan("./configure && make -j$(nproc)"),
			tree: memTree{"configure": "#!/bin/sh\n", "config.guess": "#! /bin/sh\n", "config.sub": "#! /bin/sh\n", "configure.ac": "AC_INIT\n"},
			rule: "config-scripts", actions: []string{"apt-get install -y autotools-dev",
				"cp /usr/share/misc/config.guess config.guess", "cp /usr/share/misc/config.sub config.sub"}},
		{name: "make chosen for a CMake tree", log: "make-no-makefile.log", command: "make -j$(nproc)",
			plan: defaultPlan("make -j$(nproc)"), tree: memTree{"CMakeLists.txt": "project(libdeflate C)\n"},
			det: &atesor.Detection{BuildSystem: atesor.BuildMake, Confidence: 0.5, Evidence: "programs/test_util.c",
				Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildCMake, Evidence: "CMakeLists.txt", Confidence: 0.9}}},
			rule: "next-build-system", planLine: "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "make asks for the automake version that made the tree", log: "stale-automake.log", command: "./configure && make -j$(nproc)",
			plan: defaultPlan("./configure && make -j$(nproc)"), tree: memTree{"configure.ac": "AC_INIT([dfu-util],[0.11])\n", "configure": "#!/bin/sh\n", "Makefile.am": ""},
			rule: "autoreconf", actions: []string{"apt-get install -y autoconf automake libtool autopoint pkg-config", "autoreconf -fi"}},
		{name: "libtool.m4 and ltmain.sh of different versions (zthreads)", log: "libtool-mismatch-zthreads.log", command: "./configure && make -j$(nproc)",
			plan: defaultPlan("./configure && make -j$(nproc)"), tree: memTree{"configure.ac": "AC_INIT(ZThread, 2.3.2)\n", "configure": "#!/bin/sh\n", "Makefile.am": ""},
			rule: "autoreconf", planLine: "autoreconf -fi && ./configure && make -j$(nproc)"},
		{name: "no configure", log: "no-configure.log", command: "./configure && make -j$(nproc)",
			plan: defaultPlan("./configure && make -j$(nproc)"), tree: memTree{"configure.ac": "AC_INIT([x],[1])\n", "Makefile.am": ""},
			rule: "autoreconf", actions: []string{"apt-get install -y autoconf automake libtool autopoint pkg-config", "autoreconf -fi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := readLog(t, tt.log)
			cat := tt.category
			if cat == "" {
				cat = atesor.ClassifyError(out)
			}
			f := Failure{Category: cat, Message: out, Phase: "build", Command: tt.command}
			env := Env{Platform: p, Plan: tt.plan, Packages: idx, Detection: tt.det}
			if tt.tree != nil {
				env.Files, env.ReadFile = tt.tree.files(), tt.tree.read
			}
			claims := Claims(f, nil)
			if len(claims) == 0 || !slices.Contains(claims, tt.rule) {
				t.Fatalf("Claims = %v, want %s among them", claims, tt.rule)
			}
			fix, notes := Propose(context.Background(), f, env, nil)
			if fix == nil {
				t.Fatalf("no fix; notes %v", notes)
			}
			if fix.Rule != tt.rule {
				t.Fatalf("rule %s, want %s (notes %v)", fix.Rule, tt.rule, notes)
			}
			var got []string
			for _, a := range fix.Actions {
				if a.Type == atesor.ActionPatch {
					got = append(got, "patch "+a.File)
				} else {
					got = append(got, a.Command)
				}
				if a.Type == atesor.ActionCommand {
					if err := validate.FixCommand(a.Command); err != nil {
						t.Errorf("action %q fails the fix validation: %v", a.Command, err)
					}
				}
			}
			if d := cmp.Diff(tt.actions, got); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
			if tt.planLine != "" {
				if fix.Plan == nil {
					t.Fatal("no new plan")
				}
				if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
					t.Errorf("build phase = %q, want %q", got, tt.planLine)
				}
				if err := validate.BuildPlan(fix.Plan); err != nil {
					t.Errorf("the new plan fails the scout's rules: %v", err)
				}
				if tt.plan.Phases[1].Commands[0] == tt.planLine {
					t.Error("the rule changed the caller's plan in place")
				}
			}
			a := fix.Attempt(3, f)
			if a.Source != atesor.FixSourceScripted || a.Rule != tt.rule || a.Attempt != 3 || a.Error == "" {
				t.Errorf("attempt = %+v", a)
			}
			// A rule fires at most once per distinct error.
			tried := func(rule, key string) bool { return rule == fix.Rule && key == ErrorKey(f.Message) }
			if again, _ := Propose(context.Background(), f, env, tried); again != nil && again.Rule == fix.Rule {
				t.Errorf("%s fired twice on one error", fix.Rule)
			}
		})
	}
}

func TestFindMissing(t *testing.T) {
	tests := []struct {
		text string
		want []Missing
	}{
		{readLog(t, "missing-header.log"), []Missing{{KindHeader, "popt.h"}}},
		{readLog(t, "missing-lib.log"), []Missing{{KindLibrary, "gdbm"}}},
		{readLog(t, "missing-pc.log"), []Missing{{KindPkgConfig, "libcurl"}}},
		{readLog(t, "missing-prog-make.log"), []Missing{{KindProgram, "bison"}}},
		{readLog(t, "missing-prog-sh.log"), []Missing{{KindProgram, "gperf"}}},
		{readLog(t, "missing-prog-perl.log"), []Missing{{KindProgram, "autopoint"}}},
		{readLog(t, "missing-prog-msgfmt-minidlna.log"), []Missing{{KindProgram, "msgfmt"}}},
		{readLog(t, "missing-prog-configure-lifelines.log"), []Missing{{KindProgram, "bison"}}},
		{"checking for pcap.h... no\nconfigure: error: Header file pcap.h not found.\n", []Missing{{KindHeader, "pcap.h"}}}, // jnettop 0.13.0's configure
		{`Run-time dependency libpng found: NO (tried pkgconfig and cmake)`, []Missing{{KindPkgConfig, "libpng"}}},
		{`meson.build:5:0: ERROR: Program 'flex' not found or not executable`, []Missing{{KindProgram, "flex"}}},
		{"src/a.c:1:10: fatal error: openssl/ssl.h: No such file or directory\nsrc/b.c:1:10: fatal error: zlib.h: No such file or directory",
			[]Missing{{KindHeader, "openssl/ssl.h"}, {KindHeader, "zlib.h"}}},
		{readLog(t, "race.log"), nil}, // ./prog is the build's own program
		{"no error here", nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, FindMissing(tt.text)); d != "" {
			t.Errorf("FindMissing(%.60q) (-want +got):\n%s", tt.text, d)
		}
	}
}

func TestContentsProviders(t *testing.T) {
	c := excerptIndex(t)
	tests := []struct {
		kind FileKind
		name string
		want []string
	}{
		{KindHeader, "popt.h", []string{"libpopt-dev"}},
		{KindHeader, "glib.h", []string{"libgio-2.0-dev"}}, // under usr/include/glib-2.0/
		{KindHeader, "nlohmann/json.hpp", []string{"nlohmann-json3-dev"}},
		{KindLibrary, "z", []string{"zlib1g-dev"}},
		{KindLibrary, "gdbm", []string{"libgdbm-dev"}},
		{KindPkgConfig, "libcurl", []string{"libcurl4-gnutls-dev", "libcurl4-openssl-dev"}},
		{KindProgram, "bison", []string{"bison", "bison++"}},
		{KindProgram, "autoreconf", []string{"autoconf"}},
		{KindProgram, "copyright", nil}, // usr/share/doc is not indexed
		{KindHeader, "nothere.h", nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, c.Providers(tt.kind, tt.name)); d != "" {
			t.Errorf("Providers(%s, %s) (-want +got):\n%s", tt.kind, tt.name, d)
		}
	}
}

func TestSerialLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"make -j$(nproc)", "make -j1"},
		{"./configure && make -j$(nproc)", "./configure && make -j1"},
		{"make -j4 all", "make -j1 all"},
		{"cmake -S . -B build && cmake --build build -j$(nproc)", "cmake -S . -B build && cmake --build build -j1"},
		{"cmake --build build --parallel 8", "cmake --build build --parallel 1"},
		{"meson setup builddir && ninja -C builddir", "meson setup builddir && ninja -C builddir -j1"},
		{"make --jobs=3", "make --jobs=1"},
	}
	for _, tt := range tests {
		got, ok := serialLine(tt.in)
		if !ok || got != tt.want {
			t.Errorf("serialLine(%q) = %q, %t; want %q", tt.in, got, ok, tt.want)
		}
	}
	if got, ok := serialLine("make"); ok {
		t.Errorf("serialLine(make) = %q, want no change", got)
	}
}

func TestRemoveForeignFlags(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CFLAGS = -O2 -m64 -Wall", "CFLAGS = -O2 -Wall"},
		{"CFLAGS=-m64 -O2", "CFLAGS=-O2"},
		{`set(CMAKE_C_FLAGS "${CMAKE_C_FLAGS} -msse4.2 -mavx2")`, `set(CMAKE_C_FLAGS "${CMAKE_C_FLAGS}")`},
		{"OPT = -O3 -march=native -mtune=native", "OPT = -O3"},
		{"add_compile_options(-march=x86-64-v3)", "add_compile_options()"},
		{"CFLAGS += -mfpmath=sse -msse2", "CFLAGS +="},
	}
	for _, tt := range tests {
		got, ok := RemoveForeignFlags(tt.in)
		if !ok || got != tt.want {
			t.Errorf("RemoveForeignFlags(%q) = %q, %t; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, keep := range []string{"CFLAGS = -O2 -mabi=lp64d", "LDFLAGS = -lm64x", "-march=rv64gc", "# -mmacosx-version-min"} {
		if got, ok := RemoveForeignFlags(keep); ok {
			t.Errorf("RemoveForeignFlags(%q) = %q, want no change", keep, got)
		}
	}
}

// TestX86FlagPatchApplies checks that the recorded edit is a diff patch(1) applies, on
// the repository's vecsum sample whose Makefile forces -m64.
func TestX86FlagPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) is not installed")
	}
	dir := t.TempDir()
	orig, err := os.ReadFile("../testdata/packages/vecsum/Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), orig, 0o644); err != nil {
		t.Fatal(err)
	}
	tree := memTree{"Makefile": string(orig), "vecsum.c": "int main(void){return 0;}\n"}
	f := Failure{Category: atesor.CategoryArchitecture, Message: "cc: error: unrecognized command-line option '-m64'", Phase: "build", Command: "make -j$(nproc)"}
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan("make -j$(nproc)"), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "foreign-arch-flags" || len(fix.Actions) != 1 {
		t.Fatalf("fix = %+v, notes %v", fix, notes)
	}
	p := atesor.FixProposal{RecommendedStrategyID: "1", Strategies: []atesor.Strategy{{ID: "1", Actions: fix.Actions}}}
	if err := validate.FixProposal(&p, "/workspace/vecsum"); err != nil {
		t.Fatalf("the patch fails the fix validation: %v", err)
	}
	cmd := exec.Command("patch", "--batch", "--forward", "-p1")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(fix.Actions[0].Diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, fix.Actions[0].Diff)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "Makefile"))
	if strings.Contains(string(got), "CFLAGS = -O2 -m64") || !strings.Contains(string(got), "CFLAGS = -O2 -Wall") {
		t.Errorf("patched Makefile:\n%s", got)
	}
	if !strings.Contains(string(got), "# -m64, which") {
		t.Error("the edit changed a comment")
	}
}

func TestGCC14Flags(t *testing.T) {
	plan := func(lines ...string) atesor.BuildPlan {
		return atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: lines}}}
	}
	flags := []string{"-Wno-error=implicit-function-declaration"}
	tests := []struct {
		in, want   string
		setsCFlags bool
	}{
		{"./configure && make -j$(nproc)", "CFLAGS='-g -O2 -Wno-error=implicit-function-declaration' ./configure && make -j$(nproc)", false},
		{"./configure CFLAGS=-O1 && make", "./configure CFLAGS='-O1 -Wno-error=implicit-function-declaration' && make", false},
		{"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			"cmake -DCMAKE_C_FLAGS='-Wno-error=implicit-function-declaration' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)", false},
		{"make -j$(nproc)", "CFLAGS='-g -O2 -Wno-error=implicit-function-declaration' make -j$(nproc)", false},
		{"make -j$(nproc)", "make CC='cc -Wno-error=implicit-function-declaration' -j$(nproc)", true},
		{"meson setup builddir && ninja -C builddir", "meson setup -Dc_args='-Wno-error=implicit-function-declaration' builddir && ninja -C builddir", false},
		// meson keeps the last -D of an option: the flag joins the value the line sets.
		{"meson setup builddir -Dc_args=-DOLD && ninja -C builddir",
			"meson setup builddir -Dc_args='-DOLD -Wno-error=implicit-function-declaration' && ninja -C builddir", false},
		{"meson setup -Dc_args='-DA -DB' builddir && meson compile -C builddir",
			"meson setup -Dc_args='-DA -DB -Wno-error=implicit-function-declaration' builddir && meson compile -C builddir", false},
		// c_link_args is another option: its value is not the one that takes the flag.
		{"meson setup -Dc_link_args=-latomic builddir && ninja -C builddir",
			"meson setup -Dc_args='-Wno-error=implicit-function-declaration' -Dc_link_args=-latomic builddir && ninja -C builddir", false},
	}
	for _, tt := range tests {
		got, _, ok := withCFlags(plan(tt.in), "build", flags, tt.setsCFlags)
		if !ok || got.Phases[0].Commands[0] != tt.want {
			t.Errorf("withCFlags(%q) = %q, %t; want %q", tt.in, got.Phases[0].Commands[0], ok, tt.want)
		}
		if err := validate.BuildPlan(&got); err != nil {
			t.Errorf("%q fails the scout's rules: %v", got.Phases[0].Commands[0], err)
		}
	}
	text := "a.c:3:5: error: implicit declaration of function 'f' [-Wimplicit-function-declaration]\nb.c:1:1: error: return type defaults to 'int' [-Wimplicit-int]\na.c:9: error: x [-Wimplicit-function-declaration]"
	if d := cmp.Diff([]string{"-Wno-error=implicit-function-declaration", "-Wno-error=implicit-int"}, gcc14Flags(text)); d != "" {
		t.Errorf("gcc14Flags (-want +got):\n%s", d)
	}
}

func TestErrorKey(t *testing.T) {
	a := ErrorKey("a.c:12:3: error: implicit declaration\nmore")
	b := ErrorKey("a.c:99:1: error: implicit declaration")
	if a != b || a != "a.c::: error: implicit declaration" {
		t.Errorf("ErrorKey: %q vs %q", a, b)
	}
}

// FuzzFindMissing checks that any build output parses without a panic and that every
// name found is one the output mentions.
func FuzzFindMissing(f *testing.F) {
	for _, n := range []string{"missing-header.log", "missing-lib.log", "missing-pc.log", "missing-prog-make.log", "race.log"} {
		f.Add(readLog(f, n))
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range FindMissing(text) {
			if m.Name == "" || (!strings.Contains(text, m.Name) && programAliases[m.Name] == "" && !aliasTarget(m.Name)) {
				t.Errorf("found %+v, not in the text", m)
			}
		}
		_ = gcc14Flags(text)
		_, _ = RemoveForeignFlags(text)
		_, _ = serialLine(text)
	})
}

func aliasTarget(name string) bool {
	for _, v := range programAliases {
		if v == name {
			return true
		}
	}
	return false
}

// FuzzParseContents checks that any index text parses without a panic.
func FuzzParseContents(f *testing.F) {
	f.Add("usr/include/zlib.h   libdevel/zlib1g-dev\n")
	f.Add("FILE LOCATION\nusr/bin/x a/b,c/d\n")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseContents(strings.NewReader(text), "riscv64-linux-gnu")
		if err == nil {
			_ = c.Providers(KindHeader, "zlib.h")
		}
	})
}

func BenchmarkProviders(b *testing.B) {
	c := excerptIndex(b)
	for b.Loop() {
		_ = c.Providers(KindHeader, "glib.h")
		_ = c.Providers(KindLibrary, "gdbm")
	}
}

func BenchmarkClaims(b *testing.B) {
	out := readLog(b, "race.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Command: "make -j2"}
	for b.Loop() {
		_ = Claims(f, nil)
	}
}

// The supervisor decides whether an offline run has a fixer left from the extracted
// error alone (no full output): the stale-automake failure must be claimed from it too.
func TestStaleAutomakeClaimedFromExtractedError(t *testing.T) {
	ev := buildlog.Extract(readLog(t, "stale-automake.log"))
	f := Failure{Category: ev.Category(), Message: ev.Text}
	if claims := Claims(f, nil); !slices.Contains(claims, "autoreconf") {
		t.Errorf("Claims(%q) = %v, want autoreconf", ev.Text, claims)
	}
}

// The first GCC 14 error class gets its own flag; a second class after it (mpack and
// lrzsz showed three, one per build) relaxes every class the plan does not relax yet.
func TestGCC14SecondClassRelaxesTheRest(t *testing.T) {
	msg := "unixos.c:51:12: error: implicit declaration of function 'getpid' [-Wimplicit-function-declaration]"
	tests := []struct {
		name, build string
		want        []string
	}{
		{"first class", "./configure && make -j$(nproc)", []string{"-Wno-error=implicit-function-declaration"}},
		{"second class", "CFLAGS='-g -O2 -Wno-error=implicit-int' ./configure && make -j$(nproc)", []string{
			"-Wno-error=implicit-function-declaration", "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types",
			"-Wno-error=return-mismatch", "-Wno-error=declaration-missing-parameter-type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := defaultPlan(tt.build)
			f := Failure{Category: atesor.ClassifyError(msg), Message: msg, Phase: "build", Command: tt.build}
			fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: plan}, nil)
			if fix == nil || fix.Rule != "gcc14-permissive" {
				t.Fatalf("fix %+v, notes %v", fix, notes)
			}
			line := fix.Plan.Phases[1].Commands[0]
			for _, d := range gcc14Diagnostics {
				fl := "-Wno-error=" + d
				want := strings.Contains(tt.build, fl) || slices.Contains(tt.want, fl)
				if n := strings.Count(line, fl); (n == 1) != want || n > 1 {
					t.Errorf("%s appears %d times in %q", fl, n, line)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("%q fails the scout's rules: %v", line, err)
			}
		})
	}
}

// TestForeignFlagsThroughVariable checks the -march= whose value a cache variable holds
// (CRoaring 0.2.66's tools/cmake/FindOptions.cmake, where ROARING_ARCH defaults to
// native): removed when the compiler refused -march=native, kept when it refused
// another flag, since the variable may then hold a riscv64 value.
func TestForeignFlagsThroughVariable(t *testing.T) {
	tree := memTree{
		"CMakeLists.txt": "project(roaring C)\nset(ROARING_ARCH \"native\" CACHE STRING \"the architecture to optimize for (-march)\")\ninclude(tools/cmake/FindOptions.cmake)\n",
		"tools/cmake/FindOptions.cmake": "## -march=native is not supported on some platforms\nif(NOT ROARING_DISABLE_NATIVE)\nset(OPT_FLAGS \"-march=${ROARING_ARCH}\")\nendif()\n" +
			"if(FORCE_AVX)\n   set (OPT_FLAGS \"${OPT_FLAGS} -mavx2 -mbmi2\")\nendif()\n",
	}
	tests := []struct {
		name, message string
		want          []string // lines the patch of FindOptions.cmake writes
		keep          string   // a line it must not touch
	}{
		{name: "native refused: the variable's -march goes too",
			message: "cc: error: ‘-march=native’: ISA string must begin with rv32 or rv64",
			want:    []string{"+set(OPT_FLAGS \"\")", "+   set (OPT_FLAGS \"${OPT_FLAGS}\")"}},
		{name: "another flag refused: the variable's -march stays",
			message: "cc: error: unrecognized command-line option '-mavx2'",
			want:    []string{"+   set (OPT_FLAGS \"${OPT_FLAGS}\")"}, keep: "-march=${ROARING_ARCH}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.CategoryArchitecture, Message: tt.message, Phase: "build", Command: "cmake --build build"}
			fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan("cmake -S . -B build && cmake --build build"), Files: tree.files(), ReadFile: tree.read}, nil)
			if fix == nil || fix.Rule != "foreign-arch-flags" {
				t.Fatalf("fix = %+v, notes %v", fix, notes)
			}
			var diff string
			for _, a := range fix.Actions {
				if a.File == "tools/cmake/FindOptions.cmake" {
					diff = a.Diff
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(diff, w+"\n") {
					t.Errorf("the patch lacks %q:\n%s", w, diff)
				}
			}
			if tt.keep != "" && strings.Contains(diff, tt.keep) {
				t.Errorf("the patch touches %q:\n%s", tt.keep, diff)
			}
			if strings.Contains(diff, "## -march=native") {
				t.Errorf("the patch edits a comment:\n%s", diff)
			}
		})
	}
}
