package repair

import (
	"context"
	"reflect"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Run applies a rule's fix as an attempt, keeps the completed phases before the first
// one the new plan changes, and does not answer the same error with the same rule twice.
func TestRunAppliesOnceAndKeepsPhases(t *testing.T) {
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "configure", Commands: []string{"./configure"}},
		{Name: "build", Commands: []string{"make -j4"}},
	}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var applied int
	var events []atesor.Event
	in := Input{
		Failure: Failure{Category: atesor.CategoryUnknown, Message: "foo.o: file truncated", Phase: "build", Command: "make -j4"},
		Plan:    plan, Completed: []string{"configure"}, RepoDir: "/workspace/pkg",
		Fixes: []atesor.FixAttempt{{Attempt: 1, Source: atesor.FixSourceModel}},
		Apply: func(context.Context, []atesor.Action, *atesor.FixAttempt) error { applied++; return nil },
		Emit:  func(e atesor.Event) { events = append(events, e) },
		Now:   func() time.Time { return at },
	}
	res := Run(context.Background(), in)
	if res.Applied == nil || res.Applied.Rule != "parallel-make-race" {
		t.Fatalf("applied %+v (notes %q)", res.Applied, res.Notes)
	}
	if len(res.Attempts) != 1 || res.Attempts[0].Attempt != 2 || res.Attempts[0].Source != atesor.FixSourceScripted || !res.Attempts[0].Timestamp.Equal(at) {
		t.Fatalf("attempts = %+v", res.Attempts)
	}
	if res.Plan == nil || res.Plan.Phases[1].Commands[0] != "make -j1" || !reflect.DeepEqual(res.Completed, []string{"configure"}) {
		t.Fatalf("plan %+v, completed %q", res.Plan, res.Completed)
	}
	if plan.Phases[1].Commands[0] != "make -j4" {
		t.Errorf("the run's plan was changed in place: %+v", plan)
	}
	if applied != 1 || len(events) != 1 || events[0].Kind != atesor.EventScriptedFix || events[0].Rule != "parallel-make-race" {
		t.Errorf("applied %d times, events %+v", applied, events)
	}

	in.Fixes = append(in.Fixes, res.Attempts...)
	if again := Run(context.Background(), in); again.Applied != nil || len(again.Attempts) != 0 {
		t.Errorf("the same rule answered the same error twice: %+v", again)
	}
}

func TestCountFixes(t *testing.T) {
	by, rules := CountFixes([]atesor.FixAttempt{{}, {Source: atesor.FixSourceModel}, {Source: atesor.FixSourceScripted, Rule: "autoreconf"}})
	if !reflect.DeepEqual(by, map[string]int{"model": 2, "scripted": 1}) || !reflect.DeepEqual(rules, map[string]int{"autoreconf": 1}) {
		t.Errorf("by source %v, by rule %v", by, rules)
	}
	if by, rules := CountFixes(nil); by != nil || rules != nil {
		t.Errorf("no fixes: %v %v", by, rules)
	}
}
