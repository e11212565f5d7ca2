package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestMakeGoalDares runs the rule on dares 0.6.5's real second build in the riscv64
// sandbox (after link-as-needed-order): its top-level Makefile's "all : qt ncurses"
// fails in qt, whose recipe runs qmake, while ncurses links.
func TestMakeGoalDares(t *testing.T) {
	out := readLog(t, "make-goal-dares.log")
	daresMakefile := readLog(t, "link-library/dares/Makefile")
	const build = "make LDFLAGS='-Wl,--push-state,--no-as-needed -Wall -lncurses -lmagic -Wl,--pop-state' -j$(nproc)"
	tests := []struct {
		name, makefile, build, msg string
		planLine, why              string
	}{
		{name: "dares", makefile: daresMakefile, build: build,
			planLine: "make LDFLAGS='-Wl,--push-state,--no-as-needed -Wall -lncurses -lmagic -Wl,--pop-state' -j$(nproc) ncurses"},
		{name: "the failing target is the only goal", makefile: "all: qt\n\nqt:\n\tcd qt && qmake && make\n", build: "make",
			why: "has no prerequisite but qt"},
		{name: "not the default goal's", makefile: "all: ncurses\n\nqt:\n\tqmake\nncurses:\n\tcd n && make\n", build: "make",
			why: "qt is not a prerequisite of Makefile's default goal all"},
		{name: "the plan names its goals", makefile: daresMakefile, build: "make -j2 qt ncurses", why: "no make without a goal"},
		{name: "a sub-make's failure is not top-level", makefile: daresMakefile, build: "make",
			msg: "make[1]: *** [Makefile:4: qt] Error 127", why: "no top-level make target failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := memTree{"Makefile": tt.makefile}
			text := out
			if tt.msg != "" {
				text = tt.msg
			}
			f := Failure{Category: atesor.ClassifyError(text), Message: "/bin/sh: 1: qmake: not found", Output: text, Phase: "build", Command: tt.build}
			fix, why := makeGoalWithoutTool(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan(tt.build), Files: tree.files(), ReadFile: tree.read})
			if tt.planLine == "" {
				if fix != nil || !strings.Contains(why, tt.why) {
					t.Fatalf("fix %+v, why %q; want no fix, %q", fix, why, tt.why)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[len(fix.Plan.Phases)-1].Commands[0]; got != tt.planLine {
				t.Errorf("build %q, want %q", got, tt.planLine)
			}
			if !strings.Contains(fix.Analysis, "qmake") || !strings.Contains(fix.Analysis, "the qt goal is left out") {
				t.Errorf("analysis %q", fix.Analysis)
			}
		})
	}
}
