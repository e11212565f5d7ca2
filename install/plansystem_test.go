package install

import (
	"context"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

func TestPlanBuildSystem(t *testing.T) {
	tests := []struct {
		cmds []string
		want atesor.BuildSystem
	}{
		{[]string{"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"}, atesor.BuildCMake},
		{[]string{"cmake -S . -B b", "make -C b"}, atesor.BuildCMake},
		{[]string{"meson setup builddir && ninja -C builddir"}, atesor.BuildMeson},
		{[]string{"autoreconf -fi && ./configure && make -j$(nproc)"}, atesor.BuildAutotools},
		{[]string{"CFLAGS='-g -O2' ../configure --prefix=/usr"}, atesor.BuildAutotools},
		{[]string{"make -j$(nproc)"}, atesor.BuildMake},
		{[]string{"GO111MODULE=off GOPATH=\"$PWD/.gopath:/usr/share/gocode\" go build ./..."}, atesor.BuildGo},
		{[]string{"cargo build --release"}, atesor.BuildCargo},
		{[]string{"PERL_MM_USE_DEFAULT=1 perl -I. Makefile.PL && make -j$(nproc)"}, atesor.BuildPerl},
		{[]string{"perl Makefile.PL", "make"}, atesor.BuildPerl},
		{[]string{"mkdir -p .atesor-rlib && R CMD INSTALL --no-docs --library=.atesor-rlib ."}, atesor.BuildR},
		{[]string{"perl -e 'print 1' && make"}, atesor.BuildMake},
		{[]string{"echo configured", "./build.sh"}, atesor.BuildUnknown},
	}
	for _, tt := range tests {
		plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{"apt-get install -y cmake meson make"}}, {Name: "build", Commands: tt.cmds}}}
		if got := PlanBuildSystem(plan); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.cmds, got, tt.want)
		}
	}
	if got := PlanBuildSystem(nil); got != atesor.BuildUnknown {
		t.Errorf("nil plan: %s", got)
	}
}

// TestStageFollowsPlan: after a fix switched cvector from its CMakeLists.txt to its
// Makefile, the install step runs make install, not cmake --install of a build
// directory that was never configured; a Go build run by make stays a Go install.
func TestStageFollowsPlan(t *testing.T) {
	st, sb, _, _ := stagerOver(t)
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{"apt-get install -y build-essential"}}, {Name: "build", Commands: []string{"make -j$(nproc) all"}}}}
	inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Plan: plan,
		Detection: &atesor.Detection{BuildSystem: atesor.BuildCMake, Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildMake, Evidence: "Makefile"}}}})
	if inst.Method != "make" || len(inst.Commands) == 0 || !strings.Contains(inst.Commands[0], "make install DESTDIR=") {
		t.Errorf("switched to make: %+v", inst)
	}
	for _, c := range sb.Commands() {
		if strings.Contains(c.Line, "CMakeCache.txt") {
			t.Errorf("looked for a CMake build directory: %s", c.Line)
		}
	}
	goInst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Plan: plan, Detection: &atesor.Detection{BuildSystem: atesor.BuildGo}})
	if goInst.Method != "go" {
		t.Errorf("a Go build run by make: method %s", goInst.Method)
	}
}
