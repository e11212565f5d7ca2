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

// TestPermissiveRule runs the rule on assembly-stats 1.0.1's real build (its unit tests
// take the address of an rvalue, which GCC 14 rejects unless -fpermissive) and on the
// other ways a plan takes C++ flags.
func TestPermissiveRule(t *testing.T) {
	realLog := readLog(t, "gxx-permissive-assembly-stats.log")
	short := "x.cpp:3:9: error: taking address of rvalue [-fpermissive]\n"
	tests := []struct {
		name, log, build, want, none string
	}{
		{name: "assembly-stats: after the project's own CMAKE_CXX_FLAGS", log: realLog, build: cmakeBuild,
			want: "cmake -DCMAKE_CXX_FLAGS_RELEASE='-O3 -DNDEBUG -fpermissive' -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "no build type: CMAKE_CXX_FLAGS", log: short, build: "cmake -S . -B build && cmake --build build",
			want: "cmake -DCMAKE_CXX_FLAGS='-fpermissive' -S . -B build && cmake --build build"},
		{name: "the line's own value kept", log: short, build: "cmake -S . -B b -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 && cmake --build b",
			want: "cmake -S . -B b -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O0 -fpermissive' && cmake --build b"},
		{name: "configure", log: short, build: "./configure && make -j$(nproc)",
			want: "CXXFLAGS='-g -O2 -fpermissive' ./configure && make -j$(nproc)"},
		{name: "meson: cpp_args", log: short, build: "meson setup build && ninja -C build",
			want: "meson setup -Dcpp_args='-fpermissive' build && ninja -C build"},
		{name: "already passed", log: short, build: "CXXFLAGS='-fpermissive' ./configure && make", none: "already passes -fpermissive"},
		{name: "a plain make build: no fix", log: short, build: "make -j$(nproc)", none: "no cmake or configure command"},
		{name: "an error -fpermissive does not relax", log: "x.cpp:3:9: error: 'foo' was not declared in this scope\n", build: cmakeBuild,
			none: "no compiler error tagged"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.log)
			f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: tt.log, Phase: "build", Command: tt.build}
			plan := defaultPlan(tt.build)
			fix, why := makePermissive(context.Background(), f, Env{Platform: p, Plan: plan})
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
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "gxx-permissive") {
				t.Errorf("Claims = %v", claims)
			}
		})
	}
	ev := buildlog.Extract(realLog)
	f := Failure{Category: atesor.ClassifyError(ev.Text), Message: ev.Text, Output: realLog, Phase: "build", Command: cmakeBuild}
	fix, _ := Propose(context.Background(), f, Env{Platform: p, Plan: cmakePlan()}, nil)
	if fix == nil || fix.Rule != "gxx-permissive" || !strings.Contains(fix.Analysis, "fasta_unittest.cpp:97:78: taking address of rvalue") {
		t.Fatalf("Propose on the real log = %+v", fix)
	}
}

// wantBuildLine checks the first command of a fix's build phase, and that the fix's
// plan passes the scout's rules.
func wantBuildLine(t *testing.T, fix *Fix, want string) {
	t.Helper()
	if got := fix.Plan.Phases[1].Commands[0]; got != want {
		t.Errorf("build line\n got %s\nwant %s", got, want)
	}
	if err := validate.BuildPlan(fix.Plan); err != nil {
		t.Errorf("the fixed plan does not validate: %v", err)
	}
}

// wantFix checks a rule's answer against a table case: with none set, no fix and a
// reason that says none (false: the case is done); else a fix (true: check it further).
func wantFix(t *testing.T, fix *Fix, why, none string) bool {
	t.Helper()
	if none != "" {
		if fix != nil || !strings.Contains(why, none) {
			t.Fatalf("fix %+v, reason %q; want none because %q", fix, why, none)
		}
		return false
	}
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	return true
}
