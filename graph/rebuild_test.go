package graph

import (
	"context"
	"slices"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestRebuildDropsStaleProducts: a rebuild whose plan a fix changed in how the tree
// compiles first drops what the failed build made (genders: make had compiled part of
// the tree before gcc14-permissive's CFLAGS), and only then runs the changed phase; a
// change that leaves the flags alone (make serialised) rebuilds incrementally, as
// before.
func TestRebuildDropsStaleProducts(t *testing.T) {
	const build = "./configure && make -j$(nproc)"
	const clean = "cd '.' && if [ -f GNUmakefile ] || [ -f makefile ] || [ -f Makefile ]; then make clean; fi"
	tests := []struct {
		name  string
		fixed string
		clean bool
	}{
		{"CFLAGS at configure time", "CFLAGS='-g -O2 -fpermissive' ./configure && make -j$(nproc)", true},
		{"make serialised", "./configure && make -j1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s, sb := testRunOver(t, atesor.BuildAutotools)
			s.Request.OutputDir = t.TempDir()
			r.state = s
			sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return c.Line == build }, Times: 1,
				Result: sandboxtest.Fail(2, "a.c:1:1: error: implicit declaration of function 'f'\n")})
			s.Plan = &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{build}}}}
			ctx := context.Background()
			if err := r.buildNode(ctx, s); err != nil || s.BuildSucceeded {
				t.Fatalf("first build: err %v, succeeded %t", err, s.BuildSucceeded)
			}
			if slices.Contains(sb.Lines(), clean) {
				t.Fatalf("the first build cleaned a tree nothing was built in: %q", sb.Lines())
			}
			// The fix's plan, as the fix node puts it in place.
			s.FixAttempts = append(s.FixAttempts, atesor.FixAttempt{Attempt: 1, Source: atesor.FixSourceScripted,
				Plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{tt.fixed}}}}})
			s.Plan = s.FixAttempts[0].Plan
			before := len(sb.Lines())
			if err := r.buildNode(ctx, s); err != nil || !s.BuildSucceeded {
				t.Fatalf("rebuild: err %v, succeeded %t", err, s.BuildSucceeded)
			}
			ran := sb.Lines()[before:]
			at, fixed := slices.Index(ran, clean), slices.Index(ran, tt.fixed)
			if fixed < 0 {
				t.Fatalf("the rebuild did not run %q: %q", tt.fixed, ran)
			}
			if got := at >= 0; got != tt.clean || tt.clean && at > fixed {
				t.Errorf("cleaned: %t at %d (the fixed build at %d), want %t before it: %q", got, at, fixed, tt.clean, ran)
			}
			if slices.Contains(s.ExecutedCommands, clean) {
				t.Errorf("the clean went into the recipe's commands: %q", s.ExecutedCommands)
			}
			if s.BuiltPlan == nil || !slices.Equal(s.BuiltPlan.Commands(), []string{tt.fixed}) {
				t.Errorf("built plan %+v, want the fixed one", s.BuiltPlan)
			}
			// Built with the plan it has: the next build cleans nothing.
			before = len(sb.Lines())
			if err := r.buildNode(ctx, s); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(sb.Lines()[before:], clean) {
				t.Errorf("a build with an unchanged plan cleaned: %q", sb.Lines()[before:])
			}
		})
	}
}
