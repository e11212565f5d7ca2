package repair

import (
	"context"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestMakeAllRule runs the rule on cvector 1.0.4's real Makefile, whose first target
// (default:) prints how to build, and on the cases where make all is not the answer.
func TestMakeAllRule(t *testing.T) {
	cvector := readLog(t, "make/cvector-1.0.4.Makefile")
	const noArtifact = "verification failed: no primary artifact: the build produced no riscv64 program or library outside tests and build scratch directories"
	tests := []struct {
		name, makefile, build, message, want, none string
	}{
		{name: "cvector: make all", makefile: cvector, build: "make -j$(nproc)", message: noArtifact, want: "make -j$(nproc) all"},
		{name: "in a subdirectory", makefile: cvector, build: "cd src && make", message: noArtifact, want: "cd src && make all"},
		{name: "all is already the first target", makefile: "all: lib\nlib:\n\tcc -c x.c\n", build: "make -j$(nproc)", message: noArtifact, none: "has no other all target"},
		{name: "no all target", makefile: "default:\n\t@echo read the README\n", build: "make", message: noArtifact, none: "has no other all target"},
		{name: "the plan names a goal", makefile: cvector, build: "make -j$(nproc) lib", message: noArtifact, none: "no make without a goal"},
		{name: "another verification problem", makefile: cvector, build: "make", message: "verification failed: bin/x: smoke run failed", none: "more than a build with no artifact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := memTree{"Makefile": tt.makefile}
			plan := defaultPlan(tt.build)
			fix, why := makeMakeAll(context.Background(), Failure{Phase: PhaseVerify, Message: tt.message},
				Env{Platform: debian(t), Plan: plan, Files: tree.files(), ReadFile: tree.read})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.want {
				t.Errorf("build\n got %q\nwant %q", got, tt.want)
			}
			if !strings.Contains(fix.Analysis, "first target, default, builds nothing") {
				t.Errorf("analysis %q", fix.Analysis)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
		})
	}
}
