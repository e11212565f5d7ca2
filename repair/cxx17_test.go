package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// eaUtilsMakefile is the head of ea-utils 1.1.2's Makefile as it matters here: C++
// compiled with CC=g++ and CFLAGS that carries -I.
const eaUtilsMakefile = "CC=g++\nPREFIX?=/usr\nCFLAGS?=-O3 -I. \nCPPFLAGS?=-O3 -I.\n\n" +
	"fastq-stats: fastq-stats.cpp fastq-lib.cpp gcModel.c\n\t$(CC) $(CFLAGS) fastq-lib.cpp gcModel.c -o $@ $<\n"

// TestCXX17Rule runs the rule on ea-utils 1.1.2's real build (fastq-stats.cpp does
// ++ on bools, which C++17 removed), on each message GCC and Clang print for the class,
// and on the other ways a plan takes C++ flags.
func TestCXX17Rule(t *testing.T) {
	realLog := readLog(t, "cxx17-removed-ea-utils.log")
	short := func(msg string) string { return "x.cpp:3:9: error: " + msg + "\n" }
	boolInc := short("use of an operand of type 'bool' in 'operator++' is forbidden in C++17")
	tests := []struct {
		name, log, build, want, none string
		tree                         memTree
	}{
		{name: "ea-utils: CC=g++ on make's command line, the makefile's CFLAGS kept", log: realLog, build: "make -j$(nproc)",
			tree: memTree{"Makefile": eaUtilsMakefile}, want: "make CC='g++ -std=gnu++14' -j$(nproc)"},
		{name: "a CC already on the line gets the flag", log: realLog, build: "make CC=g++-14 -j$(nproc)",
			tree: memTree{"Makefile": "CC = g++-14\n"}, want: "make CC='g++-14 -std=gnu++14' -j$(nproc)"},
		{name: "a C makefile: CXXFLAGS in make's environment", log: boolInc, build: "make -j$(nproc)",
			tree: memTree{"Makefile": "CC=gcc\nCXXFLAGS+=-Wall\n"}, want: "CXXFLAGS='-g -O2 -std=gnu++14' make -j$(nproc)"},
		{name: "a makefile that sets CXXFLAGS: CXX on the command line", log: boolInc, build: "make -j$(nproc)",
			tree: memTree{"Makefile": "CXXFLAGS=-O2 -Iinclude\n"}, want: "make CXX='c++ -std=gnu++14' -j$(nproc)"},
		{name: "Clang's bool increment, cmake", log: short("ISO C++17 does not allow incrementing expression of type bool"),
			build: "cmake -S . -B build && cmake --build build", want: "cmake -DCMAKE_CXX_FLAGS='-std=gnu++14' -S . -B build && cmake --build build"},
		{name: "dynamic exception specification, cmake build type", log: short("ISO C++17 does not allow dynamic exception specifications"),
			build: cmakeBuild, want: "cmake -DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -std=gnu++14' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "older GCC's C++1z, configure", log: short("ISO C++1z does not allow dynamic exception specifications"),
			build: "./configure && make -j$(nproc)", want: "CXXFLAGS='-g -O2 -std=gnu++14' ./configure && make -j$(nproc)"},
		{name: "Clang's register error, meson", log: short("ISO C++17 does not allow 'register' storage class specifier [-Wregister]"),
			build: "meson setup build && ninja -C build", want: "meson setup -Dcpp_args='-std=gnu++14' build && ninja -C build"},
		{name: "GCC's register warning alone stops nothing", build: "make -j$(nproc)",
			log:  "fastq-lib.cpp:284:20: warning: ISO C++17 does not allow ‘register’ storage class specifier [-Wregister]\nmake: *** [Makefile:98: x] Error 1\n",
			none: "no compiler error that names a construct C++17 removed"},
		{name: "already passed", log: realLog, build: "make CC='g++ -std=gnu++14' -j$(nproc)", tree: memTree{"Makefile": eaUtilsMakefile},
			none: "already passes -std=gnu++14"},
		{name: "operator-- on bool is not C++17's: no fix", log: short("use of an operand of type 'bool' in 'operator--' is forbidden"),
			build: cmakeBuild, none: "no compiler error that names"},
		{name: "no command takes flags", log: boolInc, build: "ninja -C build", none: "no cmake, configure, meson or make command"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.log)
			f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: tt.log, Phase: "build", Command: tt.build}
			plan := defaultPlan(tt.build)
			env := Env{Platform: p, Plan: plan}
			if tt.tree != nil {
				env.Files, env.ReadFile = tt.tree.files(), tt.tree.read
			}
			fix, why := makeCXX17(context.Background(), f, env)
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
			// The graph's claim, on the message alone, reaches the rule.
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "cxx17-removed") {
				t.Errorf("Claims = %v", claims)
			}
		})
	}
	// Through Propose, as the graph asks, on the real log and ea-utils' makefile.
	ev := buildlog.Extract(realLog)
	f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: realLog, Phase: "build", Command: "make -j$(nproc)"}
	tree := memTree{"Makefile": eaUtilsMakefile}
	fix, _ := Propose(context.Background(), f, Env{Platform: p, Plan: defaultPlan("make -j$(nproc)"), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "cxx17-removed" || !strings.Contains(fix.Analysis, "fastq-stats.cpp:183:37: use of an operand of type ‘bool’ in ‘operator++’") {
		t.Fatalf("Propose on the real log = %+v", fix)
	}
}
