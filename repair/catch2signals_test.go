package repair

import (
	"context"
	"strconv"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// numberedLines rebuilds a file from testdata lines "N: text" (an excerpt that keeps
// each line at its number), the lines between left empty.
func numberedLines(t *testing.T, name string) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(readLog(t, name), "\n"), "\n") {
		num, text, ok := strings.Cut(l, ": ")
		if !ok {
			num, text = strings.TrimSuffix(l, ":"), ""
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < len(out) {
			t.Fatalf("%s: bad line %q", name, l)
		}
		for len(out) < n-1 {
			out = append(out, "")
		}
		out = append(out, text)
	}
	return strings.Join(out, "\n") + "\n"
}

const opentracingHeader = "3rd_party/include/opentracing/catch2/catch.hpp"

// opentracingTree is opentracing-cpp 1.6.0's vendored Catch v2.0.1 header (its version,
// switch and signal handler lines, at their numbers) with the build files of its tree.
func opentracingTree(t *testing.T) memTree {
	return memTree{"CMakeLists.txt": "project(opentracing-cpp)\n", "test/CMakeLists.txt": "", "test/string_view_test.cpp": "",
		opentracingHeader: numberedLines(t, "catch2/opentracing-1.6.0-catch.hpp.lines")}
}

// TestCatch2SignalsRule runs the rule on opentracing-cpp 1.6.0's real build log (GCC
// 14, Catch v2.0.1's altStackMem[SIGSTKSZ]) and on host GCC 12's output for the later
// constexpr form, with each build system's flags, and refuses what the switch does not
// fix.
func TestCatch2SignalsRule(t *testing.T) {
	realLog := readLog(t, "catch2-sigstksz-opentracing.log")
	constexprLog := readLog(t, "catch2-sigstksz-constexpr.log")
	constexprHeader := readLog(t, "catch2/constexpr-catch.hpp")
	constexprTree := func(header string) memTree {
		return memTree{"CMakeLists.txt": "", "test/main_test.cpp": "", "third_party/catch2/catch.hpp": header}
	}
	withMakefile := func(tree memTree, mk string) memTree {
		tree["Makefile"] = mk
		return tree
	}
	fixed := strings.Replace(constexprHeader, "CATCH_VERSION_PATCH 4", "CATCH_VERSION_PATCH 5", 1)
	noSwitch := strings.ReplaceAll(constexprHeader, "!defined(CATCH_CONFIG_NO_POSIX_SIGNALS) && ", "")
	catch1 := strings.NewReplacer("Catch v2.13.4", "Catch v1.12.2", "#define CATCH_VERSION_MAJOR 2\n#define CATCH_VERSION_MINOR 13\n#define CATCH_VERSION_PATCH 4\n", "").Replace(constexprHeader)
	// Another project's own handler, written the same way: its own code, not Catch2's.
	ownLog := "/workspace/p/src/stack.cpp:4:28: error: size of array ‘altStackMem’ is not an integral constant-expression\n"
	own := memTree{"CMakeLists.txt": "", "src/stack.cpp": "#include <signal.h>\n\n// CATCH_CONFIG_NO_POSIX_SIGNALS\nstatic char altStackMem[SIGSTKSZ];\n"}
	otherLine := strings.Replace(constexprLog, "catch.hpp:21:45", "catch.hpp:5:45", 1)
	tests := []struct {
		name  string
		log   string
		tree  memTree
		build string
		want  string   // the build phase's new command
		inWhy []string // in the analysis
		none  string   // the reason when no fix
	}{
		{name: "opentracing-cpp: CMake, the build type's CMAKE_CXX_FLAGS", log: realLog, tree: opentracingTree(t), build: cmakeBuild,
			want: "cmake -DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -DCATCH_CONFIG_NO_POSIX_SIGNALS' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			inWhy: []string{opentracingHeader + " is Catch2 2.0.1's single header", opentracingHeader + ":6631 `char FatalConditionHandler::altStackMem[SIGSTKSZ] = {};`",
				"glibc 2.34", "report of a test that dies by a signal"}},
		{name: "CMake with no build type: CMAKE_CXX_FLAGS", log: realLog, tree: opentracingTree(t), build: "cmake -S . -B build && cmake --build build",
			want: "cmake -DCMAKE_CXX_FLAGS='-DCATCH_CONFIG_NO_POSIX_SIGNALS' -S . -B build && cmake --build build"},
		{name: "configure: CXXFLAGS at configure time", log: realLog, tree: opentracingTree(t), build: "./configure --prefix=/usr && make -j$(nproc)",
			want: "CXXFLAGS='-g -O2 -DCATCH_CONFIG_NO_POSIX_SIGNALS' ./configure --prefix=/usr && make -j$(nproc)"},
		{name: "meson: cpp_args", log: realLog, tree: opentracingTree(t), build: "meson setup build && ninja -C build",
			want: "meson setup -Dcpp_args='-DCATCH_CONFIG_NO_POSIX_SIGNALS' build && ninja -C build"},
		{name: "plain make: CXXFLAGS in its environment", log: constexprLog, tree: withMakefile(constexprTree(constexprHeader), "CXXFLAGS += -std=c++11\n"),
			build: "make -j$(nproc)", want: "CXXFLAGS='-g -O2 -DCATCH_CONFIG_NO_POSIX_SIGNALS' make -j$(nproc)",
			inWhy: []string{"third_party/catch2/catch.hpp is Catch2 2.13.4's single header",
				"`static constexpr std::size_t sigStackSize = 32768 >= MINSIGSTKSZ ? 32768 : MINSIGSTKSZ;`", "`char FatalConditionHandler::altStackMem[sigStackSize] = {};`"}},
		{name: "plain make whose Makefile sets CXXFLAGS: the define with the compiler", log: constexprLog,
			tree: withMakefile(constexprTree(constexprHeader), "CXXFLAGS = -std=c++11 -Ithird_party\n"), build: "make -j$(nproc)",
			want: "make CXX='c++ -DCATCH_CONFIG_NO_POSIX_SIGNALS' -j$(nproc)"},
		{name: "the constexpr form under CMake", log: constexprLog, tree: constexprTree(constexprHeader), build: cmakeBuild,
			want: "cmake -DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -DCATCH_CONFIG_NO_POSIX_SIGNALS' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},

		{name: "Catch2 2.13.5 is fixed", log: constexprLog, tree: constexprTree(fixed), build: cmakeBuild,
			none: "is Catch2 2.13.5, whose signal handler sizes its stack at run time"},
		{name: "a file of the project's own with the same error", log: ownLog, tree: own, build: cmakeBuild,
			none: "src/stack.cpp (error at line 4: size of array ‘altStackMem’ is not an integral constant-expression) carries no Catch2 version"},
		{name: "Catch 1", log: constexprLog, tree: constexprTree(catch1), build: cmakeBuild, none: "is Catch 1.12.2: the rule knows Catch2 2's single header only"},
		{name: "a header that does not test the switch", log: constexprLog, tree: constexprTree(noSwitch), build: cmakeBuild,
			none: "does not test CATCH_CONFIG_NO_POSIX_SIGNALS"},
		{name: "an error elsewhere in the header", log: otherLine, tree: constexprTree(constexprHeader), build: cmakeBuild,
			none: "catch.hpp:5 (#define CATCH_VERSION_MAJOR 2) is not the signal handler's stack"},
		{name: "a header outside the tree", log: strings.ReplaceAll(realLog, "/workspace/opentracing-cpp/3rd_party/include/opentracing", "/usr/include"),
			tree: memTree{"CMakeLists.txt": ""}, build: cmakeBuild, none: "/usr/include/catch2/catch.hpp:6631, which is not in the tree"},
		{name: "the plan defines the switch already", log: realLog, tree: opentracingTree(t),
			build: "cmake -DCMAKE_CXX_FLAGS=-DCATCH_CONFIG_NO_POSIX_SIGNALS -S . -B build && cmake --build build", none: "already defines CATCH_CONFIG_NO_POSIX_SIGNALS"},
		{name: "no command takes C++ flags", log: realLog, tree: opentracingTree(t), build: "ninja -C out", none: "no cmake, configure, meson or make command"},
		{name: "no location", log: "error: size of array ‘altStackMem’ is not an integral constant-expression\n", tree: opentracingTree(t), build: cmakeBuild,
			none: "no compiler error at a SIGSTKSZ-sized declaration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.log)
			f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: tt.log, Phase: "build", Command: tt.build}
			if !catch2SignalsRule().claims(f) {
				t.Fatalf("the rule does not claim the failure (%s): %q", f.Category, ev.Text)
			}
			plan := defaultPlan(tt.build)
			env := Env{Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeCatch2Signals(context.Background(), f, env)
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
			if len(fix.Actions) != 0 {
				t.Errorf("actions %+v, want none: the plan carries the define", fix.Actions)
			}
			for _, s := range tt.inWhy {
				if !strings.Contains(fix.Analysis, s) {
					t.Errorf("the analysis does not say %q:\n%s", s, fix.Analysis)
				}
			}
			// The replayed plan is idempotent: the rule makes no second fix on it.
			env.Plan = fix.Plan
			if again, why := makeCatch2Signals(context.Background(), f, env); again != nil || !strings.Contains(why, "already defines") {
				t.Errorf("a second fix on the fixed plan: %+v (%s)", again, why)
			}
		})
	}
}

// TestCatch2SignalsProposed runs the rule table on the real log, as the graph does: no
// rule before catch2-sigstksz answers it, and the fix is the define.
func TestCatch2SignalsProposed(t *testing.T) {
	log := readLog(t, "catch2-sigstksz-opentracing.log")
	ev := buildlog.Extract(log)
	f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: log, Phase: "build", Command: cmakeBuild}
	tree := opentracingTree(t)
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: cmakePlan(), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != catch2SignalsRuleName {
		t.Fatalf("fix %+v, notes %v; want %s's", fix, notes, catch2SignalsRuleName)
	}
	if !strings.Contains(fix.Strategy, "CATCH_CONFIG_NO_POSIX_SIGNALS through CMAKE_CXX_FLAGS of the build type") {
		t.Errorf("strategy %q", fix.Strategy)
	}
}

// TestCatch2Version reads each form a Catch header states its version in.
func TestCatch2Version(t *testing.T) {
	tests := []struct {
		src  string
		want string // "" for none
	}{
		{"#define CATCH_VERSION_MAJOR 2\n#define CATCH_VERSION_MINOR 13\n#define CATCH_VERSION_PATCH 4\n", "2.13.4"},
		{"  #  define CATCH_VERSION_MINOR 9\n#define CATCH_VERSION_MAJOR 2\n#define CATCH_VERSION_PATCH 10\n#define CATCH_VERSION_MAJOR 3\n", "2.9.10"},
		{"static Version version( 2, 0, 1, \"\", 0 );\n", "2.0.1"},
		{"/*\n *  Catch v2.0.1\n */\n", "2.0.1"},
		{"/*\n *  Catch v1.12.2\n */\n#define CATCH_VERSION_MAJOR 2\n", "1.12.2"},
		{"#define CATCH_VERSION_MAJOR 2\n", ""},
		{"int altStackMem[SIGSTKSZ];\n", ""},
	}
	for _, tt := range tests {
		v, ok := catch2Version(tt.src)
		got := ""
		if ok {
			got = versionString(v)
		}
		if got != tt.want {
			t.Errorf("%q: %q, want %q", tt.src, got, tt.want)
		}
	}
}

func FuzzParseStackErrors(f *testing.F) {
	f.Add(readLog(f, "catch2-sigstksz-opentracing.log"))
	f.Add(readLog(f, "catch2-sigstksz-constexpr.log"))
	f.Fuzz(func(t *testing.T, s string) {
		errs := parseStackErrors(s)
		if len(errs) > 16 {
			t.Fatalf("%d errors, want at most 16", len(errs))
		}
		for _, e := range errs {
			if e.Line <= 0 || e.File == "" || strings.Contains(e.File, "\n") {
				t.Fatalf("bad error %+v", e)
			}
		}
	})
}

func FuzzCatch2Version(f *testing.F) {
	f.Add(readLog(f, "catch2/constexpr-catch.hpp"))
	f.Add(" *  Catch v2.0.1\n")
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := catch2Version(s); ok && (v[0] < 0 || v[1] < 0 || v[2] < 0) {
			t.Fatalf("negative version %v", v)
		}
	})
}
