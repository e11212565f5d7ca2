package repair

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// setupBuildPlan is a plan of a setup phase and a build phase of one command each, the
// shape most rule tests start from.
func setupBuildPlan(setup, build string) *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{setup}},
		{Name: "build", Commands: []string{build}},
	}}
}

// proposeOnBuild runs Propose on the failure of plan's last phase, whose output is log
// (a testdata file when it ends in .log), for a Debian tree.
func proposeOnBuild(t *testing.T, log string, plan *atesor.BuildPlan, tree memTree) (*Fix, []string) {
	t.Helper()
	last := plan.Phases[len(plan.Phases)-1]
	f := buildFailure(t, log, last.Commands[0])
	f.Phase = last.Name
	env := Env{Platform: debian(t), Plan: plan, Files: tree.files(), ReadFile: tree.read}
	return Propose(context.Background(), f, env, nil)
}

// wantNoFix fails the test when rule made fix, or when the notes do not say why it made
// none with why in the reason.
func wantNoFix(t *testing.T, rule string, fix *Fix, notes []string, why string) {
	t.Helper()
	if fix != nil && fix.Rule == rule {
		t.Fatalf("fix %+v, want none", fix)
	}
	n := strings.Join(notes, "\n")
	if !strings.Contains(n, rule+": ") || !strings.Contains(n, why) {
		t.Errorf("notes %v do not say why %s made no fix (%q)", notes, rule, why)
	}
}

// wantPlanFix fails the test unless rule made fix with a new plan whose phases' first
// commands are want, and the fix passes the validation Run applies.
func wantPlanFix(t *testing.T, rule string, fix *Fix, notes []string, repo string, want ...string) {
	t.Helper()
	if fix == nil || fix.Rule != rule || fix.Plan == nil {
		t.Fatalf("fix %+v (want %s's, with a plan), notes %v", fix, rule, notes)
	}
	var got []string
	for _, ph := range fix.Plan.Phases {
		got = append(got, ph.Commands[0])
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if err := check(fix, repo); err != nil {
		t.Errorf("the fix fails validation: %v", err)
	}
}
