package repair

import (
	"slices"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// withEachCommand returns a copy of plan with edit applied to every command of every
// phase (the caller's plan is not changed), and whether any command changed.
func withEachCommand(plan atesor.BuildPlan, edit func(string) string) (atesor.BuildPlan, bool) {
	plan.Phases = slices.Clone(plan.Phases)
	changed := false
	for i, ph := range plan.Phases {
		cmds := slices.Clone(ph.Commands)
		for j, c := range cmds {
			if n := edit(c); n != c {
				cmds[j], changed = n, true
			}
		}
		plan.Phases[i].Commands = cmds
	}
	return plan, changed
}
