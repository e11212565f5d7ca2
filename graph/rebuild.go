package graph

import (
	"context"
	"slices"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/staleobj"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// staleStepTimeout bounds one step that drops stale build products: a make clean
// recurses through every directory of the tree under emulation.
const staleStepTimeout = 10 * time.Minute

// dropStaleProducts makes the rebuild end where a fresh build with the current plan
// would, when the plan changed since the last build run in this tree in how it
// compiles or links (a fix's new CFLAGS at configure time, a configure switch, flags in
// make's environment, a cmake or meson -D; see package staleobj for what each build
// system needs and why). It compares the recorded plans, not who changed them, so a
// model's or a rule's change is handled alike. The steps only remove what a build made
// (make clean, the CMake cache, meson's record of a configured directory); the sources
// and the fixes' own edits stay. They are not plan commands: a replay builds once in a
// fresh tree and needs none.
func (r *run) dropStaleProducts(ctx context.Context, s *atesor.State) {
	if s.BuiltPlan == nil || s.Plan == nil {
		return
	}
	for _, st := range staleobj.Steps(*s.BuiltPlan, *s.Plan, s.RepoDir) {
		line := st.Line()
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Line: "the plan changed how the earlier build compiled (" + st.Why + "): " + line})
		log := r.startLog(line)
		res, _, err := sandbox.ExecRetryingFaults(ctx, r.sb, atesor.Command{Line: line, Dir: s.RepoDir, Env: buildEnv(s), Stdout: log, Stderr: log, Timeout: staleStepTimeout})
		log.end(res)
		if err != nil || !res.OK() {
			// The rebuild still runs: it may then reproduce less than a replay does, which
			// the replay reports.
			r.log.Warn("drop the stale products of the earlier build", "line", line, "exit", res.ExitCode, "err", err,
				"output", excerpt.Tail(res.Output, 300))
		}
	}
}

// clonePlan is a copy of a plan whose phases and commands the caller may not change.
func clonePlan(p *atesor.BuildPlan) *atesor.BuildPlan {
	if p == nil {
		return nil
	}
	c := *p
	c.Phases = slices.Clone(p.Phases)
	for i := range c.Phases {
		c.Phases[i].Commands = slices.Clone(c.Phases[i].Commands)
	}
	return &c
}
