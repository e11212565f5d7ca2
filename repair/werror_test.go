package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestWerrorRule runs the rule on modest's real build (its CMakeLists.txt compiles with
// -Wall -Werror, and GCC 14 warns -Wstringop-truncation in serialization.c) and on the
// other languages and build systems a plan takes flags through.
func TestWerrorRule(t *testing.T) {
	realLog := readLog(t, "werror-modest.log")
	cxx := "/workspace/p/src/a.cpp:3:9: error: array subscript 2 is outside array bounds [-Werror=array-bounds=]\n"
	both := "src/x.c:1:2: error: unused [-Werror=unused-result]\nsrc/y.cc:4:5: error: deprecated [-Werror=deprecated-declarations]\n"
	tests := []struct {
		name, log, build, want, none string
	}{
		{name: "modest: C through the build type's CMAKE_C_FLAGS", log: realLog, build: cmakeBuild,
			want: "cmake -DCMAKE_C_FLAGS_RELEASE='-O3 -DNDEBUG -Wno-error=stringop-truncation' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "C++: the build type's flags, the level cut off", log: cxx, build: cmakeBuild,
			want: "cmake -DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -Wno-error=array-bounds' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "both languages through configure", log: both, build: "./configure && make -j$(nproc)",
			want: "CFLAGS='-g -O2 -Wno-error=unused-result' CXXFLAGS='-g -O2 -Wno-error=deprecated-declarations' ./configure && make -j$(nproc)"},
		{name: "C through make's environment", log: both[:strings.IndexByte(both, '\n')+1], build: "make -j$(nproc)",
			want: "CFLAGS='-g -O2 -Wno-error=unused-result' make -j$(nproc)"},
		{name: "already relaxed", log: realLog, build: "cmake -S . -B build -DCMAKE_C_FLAGS_RELEASE='-O3 -Wno-error=stringop-truncation' -DCMAKE_BUILD_TYPE=Release && cmake --build build",
			none: "does not already relax"},
		{name: "GCC 14's C errors are gcc14-permissive's", log: "a.c:1:1: error: implicit declaration of function 'f' [-Werror=implicit-function-declaration]\n",
			build: cmakeBuild, none: "does not already relax"},
		{name: "an error no warning makes", log: "a.c:1:1: error: 'x' undeclared\n", build: cmakeBuild, none: "does not already relax"},
		{name: "C++ in a plain make build: no fix", log: cxx, build: "make -j$(nproc)", none: "no cmake or configure command"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.log)
			f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: tt.log, Phase: "build", Command: tt.build}
			plan := defaultPlan(tt.build)
			fix, why := makeWerror(context.Background(), f, Env{Platform: p, Plan: plan})
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
		})
	}
}

// TestWerrorRuleBound refuses a build whose -Werror meets many warnings at once: code
// that never passed its own -Werror, not a newer compiler's few.
func TestWerrorRuleBound(t *testing.T) {
	var b strings.Builder
	for _, w := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString("x.c:1:1: error: w [-Werror=w" + w + "]\n")
	}
	f := Failure{Message: b.String(), Phase: "build", Command: cmakeBuild}
	if fix, why := makeWerror(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan(cmakeBuild)}); fix != nil || !strings.Contains(why, "more than") {
		t.Fatalf("fix %+v, reason %q", fix, why)
	}
}

// TestWerrorAgain: libradsec's -Werror met GCC 14's use-after-free, and once that was
// relaxed, OpenSSL 3's deprecations in another file; the second fix relaxes the family.
func TestWerrorAgain(t *testing.T) {
	build := "export PERL_USE_UNSAFE_INC=1 && autoreconf -fi && CFLAGS='-g -O2 -Wno-error=use-after-free' ./configure && make -j$(nproc)"
	fix, notes := proposeOnBuild(t, "werror-again-libradsec.log", defaultPlan(build), memTree{"configure.ac": "", "radsecproxy/tlscommon.c": ""})
	if fix == nil || fix.Rule != "werror-new-warning" || fix.Plan == nil {
		t.Fatalf("fix %+v, notes %v", fix, notes)
	}
	line := fix.Plan.Phases[1].Commands[0]
	for _, want := range []string{"CFLAGS='-g -O2 -Wno-error=use-after-free -Wno-error=deprecated-declarations -Wno-error=dangling-pointer", "-Wno-error=stringop-truncation"} {
		if !strings.Contains(line, want) {
			t.Errorf("build line %s\nlacks %s", line, want)
		}
	}
	if !strings.Contains(line, " -Wno-error'") {
		t.Errorf("build line %s does not end its CFLAGS with -Wno-error", line)
	}
	if strings.Count(line, "-Wno-error=use-after-free") != 1 {
		t.Errorf("build line %s relaxes use-after-free twice", line)
	}
	if !strings.Contains(fix.Analysis, "An earlier fix relaxed other such warnings") {
		t.Errorf("analysis %q", fix.Analysis)
	}
	if err := validate.BuildPlan(fix.Plan); err != nil {
		t.Errorf("the plan does not validate: %v", err)
	}
}
