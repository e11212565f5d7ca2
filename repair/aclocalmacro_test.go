package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestAclocalMacroPackage runs the rule, through Propose, on gentle 1.9.5~alpha2's real
// configure failure in the riscv64 sandbox: its configure.ac calls
// AX_CXX_COMPILE_STDCXX_17, which autoconf-archive defines and the port had not
// installed, so autoreconf -fi left the call in configure as text.
func TestAclocalMacroPackage(t *testing.T) {
	ac := readLog(t, "autotools/gentle-1.9.5.configure.ac")
	const setup = "apt-get update && apt-get install -y build-essential autoconf automake libtool pkgconf make"
	plan := func(build, setup string) *atesor.BuildPlan { return setupBuildPlan(setup, build) }
	// dash reports only the line number; the rule reads the line from the configure.
	dashLog := "checking whether make sets $(MAKE)... (cached) yes\n./configure: 4: Syntax error: word unexpected (expecting \")\")\n"
	dashConfigure := "#!/bin/sh\n# generated\n\nAX_CXX_COMPILE_STDCXX_17(noext, mandatory)\n"
	netperfAC := readLog(t, "autotools/netperf-2.7.0.configure.ac")
	salen := readLog(t, "autotools/netperf-2.7.0.salen.m4")
	// m4/m4/salen.m4 is the tarball's older copy: AC_DEFUN without quotes.
	oldSalen := strings.Replace(salen, "AC_DEFUN([AC_CHECK_SA_LEN],", "AC_DEFUN(AC_CHECK_SA_LEN,", 1)
	const autogen = "#! /bin/sh\n\naclocal -I src/missing/m4 \\\n&& automake  --add-missing \\\n&& autoconf && autoheader\n"
	const netperfBuild = "autoreconf -fi && ./configure --enable-demo && make -j$(nproc)"
	tests := []struct {
		name      string
		log       string
		tree      memTree
		plan      *atesor.BuildPlan
		wantSetup string // "": no fix
		wantBuild string
		wantMacro string
	}{
		{name: "the port's autoreconf without autoconf-archive", log: "aclocal-macro-gentle.log",
			tree:      memTree{"configure.ac": ac, "Makefile.am": ""},
			plan:      plan("autoreconf -fi && ./configure && make -j$(nproc)", setup),
			wantSetup: setup + " autoconf-archive", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantMacro: "AX_CXX_COMPILE_STDCXX_17"},
		{name: "a shipped configure with the call: autoreconf goes before it", log: "aclocal-macro-gentle.log",
			tree:      memTree{"configure.ac": ac, "configure": "#!/bin/sh\n"},
			plan:      plan("./configure && make -j$(nproc)", setup),
			wantSetup: setup + " autopoint pkg-config autoconf-archive", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantMacro: "AX_CXX_COMPILE_STDCXX_17"},
		{name: "dash's report: the line is read from configure", log: dashLog,
			tree:      memTree{"configure.ac": ac, "configure": dashConfigure},
			plan:      plan("autoreconf -fi && ./configure && make -j$(nproc)", setup),
			wantSetup: setup + " autoconf-archive", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantMacro: "AX_CXX_COMPILE_STDCXX_17"},
		{name: "autoconf's possibly undefined macro", log: "configure.ac:40: error: possibly undefined macro: PKG_CHECK_MODULES\n      If this token and others are legitimate, please use m4_pattern_allow.\nautoreconf: error: /usr/bin/autoconf failed with exit status: 1\n",
			tree:      memTree{"configure.ac": ac},
			plan:      plan("autoreconf -fi && ./configure && make -j$(nproc)", "apt-get update && apt-get install -y build-essential autoconf automake libtool make"),
			wantSetup: "apt-get update && apt-get install -y build-essential autoconf automake libtool make pkgconf", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantMacro: "PKG_CHECK_MODULES"},
		{name: "guile-cairo: a macro another expands, reported at configure's line", log: "aclocal-macro-guile-cairo.log",
			tree:      memTree{"configure.ac": ac},
			plan:      plan("autoreconf -fi && ./configure && make -j$(nproc)", "apt-get update && apt-get install -y build-essential autoconf automake libtool make"),
			wantSetup: "apt-get update && apt-get install -y build-essential autoconf automake libtool make gettext", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantMacro: "AC_LIB_LINKFLAGS_FROM_LIBS"},
		{name: "netperf: the tree's own macro directory, the one autogen.sh names", log: "aclocal-tree-macro-netperf.log",
			tree: memTree{"configure.ac": netperfAC, "autogen.sh": autogen, "m4/m4/salen.m4": oldSalen, "m4/m4/sockaddrin6.m4": "",
				"src/missing/m4/salen.m4": salen, "src/missing/m4/herrno.m4": ""},
			plan:      plan(netperfBuild, setup),
			wantSetup: setup, wantBuild: "autoreconf -fi -I src/missing/m4 && ./configure --enable-demo && make -j$(nproc)",
			wantMacro: "AC_CHECK_SA_LEN"},
		{name: "no bootstrap script: the directory of more .m4 files", log: "aclocal-tree-macro-netperf.log",
			tree:      memTree{"configure.ac": netperfAC, "m4/m4/salen.m4": oldSalen, "src/missing/m4/salen.m4": salen, "src/missing/m4/herrno.m4": ""},
			plan:      plan(netperfBuild, setup),
			wantSetup: setup, wantBuild: "autoreconf -fi -I src/missing/m4 && ./configure --enable-demo && make -j$(nproc)",
			wantMacro: "AC_CHECK_SA_LEN"},
		{name: "the plan's autoreconf already searches it: another cause", log: "aclocal-tree-macro-netperf.log",
			tree: memTree{"configure.ac": netperfAC, "src/missing/m4/salen.m4": salen},
			plan: plan("autoreconf -fi -I src/missing/m4 && ./configure --enable-demo && make -j$(nproc)", setup)},
		{name: "the tree's copy is searched already: the package's", log: "aclocal-macro-gentle.log",
			tree:      memTree{"configure.ac": ac, "m4/ax_cxx_compile_stdcxx_17.m4": "AC_DEFUN([AX_CXX_COMPILE_STDCXX_17], [AX_CXX_COMPILE_STDCXX([17], [$1], [$2])])\n"},
			plan:      plan("autoreconf -fi -I m4 && ./configure && make -j$(nproc)", setup),
			wantSetup: setup + " autoconf-archive", wantBuild: "autoreconf -fi -I m4 && ./configure && make -j$(nproc)",
			wantMacro: "AX_CXX_COMPILE_STDCXX_17"},
		{name: "defined nowhere", log: "aclocal-tree-macro-netperf.log",
			tree: memTree{"configure.ac": netperfAC, "src/missing/m4/herrno.m4": ""},
			plan: plan(netperfBuild, setup)},
		{name: "autoconf-archive installed and configure regenerated: another cause", log: "aclocal-macro-gentle.log",
			tree: memTree{"configure.ac": ac},
			plan: plan("autoreconf -fi && ./configure && make -j$(nproc)", setup+" autoconf-archive")},
		{name: "a macro no package is known for", log: "./configure: line 812: syntax error near unexpected token `foo,'\n./configure: line 812: `GENTLE_CHECK_WX(foo, bar)'\n",
			tree: memTree{"configure.ac": ac},
			plan: plan("autoreconf -fi && ./configure && make -j$(nproc)", setup)},
		{name: "a syntax error at shell code", log: "./configure: line 812: syntax error near unexpected token `fi'\n./configure: line 812: `fi'\n",
			tree: memTree{"configure.ac": ac},
			plan: plan("autoreconf -fi && ./configure && make -j$(nproc)", setup)},
		{name: "no configure.ac", log: "aclocal-macro-gentle.log",
			tree: memTree{"configure": "#!/bin/sh\n"},
			plan: plan("./configure && make -j$(nproc)", setup)},
		{name: "no ./configure in the plan", log: "aclocal-macro-gentle.log",
			tree: memTree{"configure.ac": ac},
			plan: plan("sh autogen.sh && make -j$(nproc)", setup)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix, notes := proposeOnBuild(t, tt.log, tt.plan, tt.tree)
			if tt.wantSetup == "" {
				wantNoFix(t, "aclocal-macro-package", fix, notes, "")
				return
			}
			wantPlanFix(t, "aclocal-macro-package", fix, notes, "/workspace/gentle", tt.wantSetup, tt.wantBuild)
			if !strings.Contains(fix.Analysis, tt.wantMacro) {
				t.Errorf("analysis %q does not name %s", fix.Analysis, tt.wantMacro)
			}
		})
	}
}

// FuzzUnexpandedMacro feeds configure output and scripts to the macro finder: it must
// not panic, and a macro it names is one of the table's or none.
func FuzzUnexpandedMacro(f *testing.F) {
	f.Add("./configure: line 3: syntax error near unexpected token `noext,'\n./configure: line 3: `AX_CXX_COMPILE_STDCXX_17(noext, mandatory)'\n", "a\nb\nAX_X(1)\n")
	f.Add("./configure: 3: Syntax error: word unexpected\n", "#!/bin/sh\n\nPKG_CHECK_MODULES(A, b)\n")
	f.Add("./configure: 99999999999999999999: Syntax error:\n", "")
	f.Fuzz(func(t *testing.T, log, script string) {
		tree := memTree{"configure.ac": "AC_INIT\n", "configure": script}
		f := Failure{Message: log, Output: log, Phase: "build"}
		env := Env{Platform: atesor.Platform{}, Files: tree.files(), ReadFile: tree.read}
		macro, where := unexpandedMacro(context.Background(), f, env)
		if (macro == "") != (where == "") {
			t.Fatalf("macro %q, where %q", macro, where)
		}
		if macro != "" && !macroCall.MatchString(macro+"(") {
			t.Fatalf("macro %q is not a macro name", macro)
		}
	})
}
