package graph

import (
	"context"
	"io/fs"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// NodeOptimize is performance mode's node: it runs after finish when the request asks
// for it (Request.Optimize) and the port verified.
const NodeOptimize = "optimize"

// optimizeNode measures the verified build and its candidates (package optimize), adds
// the Performance section to the recipe, performance to the report and the result to
// the recipe-cache entry. Performance mode never changes the port's status: a
// measurement that cannot be made is a note in the section.
func (r *run) optimizeNode(ctx context.Context, s *atesor.State) error {
	if !s.Request.Optimize || !s.Verified {
		return nil
	}
	r.emit(atesor.Event{Kind: atesor.EventPhase, Node: NodeOptimize, Phase: "optimize"})
	rebuild := func(ctx context.Context, line string) (atesor.CommandResult, bool, error) {
		return r.runPlanCommand(ctx, s, NodeOptimize, "rebuild", line)
	}
	if why := optimize.EnsureBuilt(ctx, r.sb, r.optimizeTarget(s), rebuild, r.optimizeProgress); why != "" {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		perf := &atesor.Performance{Notes: []string{"no measurement: " + why}}
		s.Performance = perf
		s.Recipe = s.Recipe + "\n" + recipe.Neutralize(optimize.Section(perf))
		if err := r.writeOutputs(ctx, s); err != nil {
			return r.failOutputs(ctx, s, err)
		}
		return nil
	}
	o := &optimize.Optimizer{
		Sandbox: r.sb, Logger: r.log, Now: r.now,
		Progress: r.optimizeProgress,
	}
	var hr sandbox.HostProgramRunner
	if sandbox.As(r.sb, &hr) && hr.RunsHostPrograms() {
		// The counting emulator is a host program: it runs only in a sandbox that can
		// run those inside.
		o.CounterTools = optimize.HostCounter(r.p.cfg.cacheDir("insncount"))
	}
	if r.provider != nil {
		o.Advisor = &optimize.Advisor{Client: r.client(), Node: NodeOptimize, Validators: validatorsFor[atesor.Harness](r)}
	}
	if r.p.opts.optimize != nil {
		r.p.opts.optimize(o)
	}
	res, err := o.Run(ctx, r.optimizeTarget(s))
	r.addUsage(s, res.Usage)
	if ctx.Err() != nil {
		// Interrupted: nothing is recorded, a resumed run measures again.
		return ctx.Err()
	}
	perf := res.Performance
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		r.log.Warn("performance mode gave no measurement", "err", err)
		perf.Notes = append(perf.Notes, "no measurement: "+err.Error())
	}
	s.Performance = perf
	s.Recipe = s.Recipe + "\n" + recipe.Neutralize(optimize.Section(perf))
	if err := r.writeOutputs(ctx, s); err != nil {
		// The measurement is not stored either: the cache keeps the port without it.
		return r.failOutputs(ctx, s, err)
	}
	if r.memory != nil {
		entry, err := r.memory.Recipe(ctx, s.RepoName, s.Platform.SandboxKey())
		if err == nil && entry != nil && entry.Verified {
			entry.Performance, entry.Recipe = perf, s.Recipe
			err = r.memory.SaveRecipe(ctx, *entry)
		}
		if err != nil {
			r.log.Warn("recipe cache: performance result", "err", err)
		}
	}
	return nil
}

// optimizeTarget describes the verified port to the optimizer, with the build's
// environment and the source's copy read the gate's way.
func (r *run) optimizeTarget(s *atesor.State) optimize.Target {
	var source fs.FS
	if r.hostTree != "" {
		source = sandbox.TreeFS(context.Background(), r.hostTree, sandbox.BoundSource)
	}
	return optimize.TargetOf(s, source, buildEnv(s))
}

// optimizeProgress is a line of performance mode's progress, as an event.
func (r *run) optimizeProgress(line string) {
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeOptimize, Line: line})
}

// planFromCache is the plan source of a run seeded from a recipe-cache entry.
const planFromCache = "cache"

// seedFromCache starts a performance-mode run from a verified recipe-cache entry: the
// cached analysis (not grounded in a model this run) instead of the analyst, and the
// cached plan, which the build node replays; the supervisor then goes from init
// straight to build.
func (r *run) seedFromCache(e *atesor.CachedRecipe) {
	s := r.state
	if e.Analysis != nil {
		a := *e.Analysis
		a.LLMGrounded = false
		s.Analysis = &a
	}
	plan := knowledge.CorrectedPlan(s.Platform, e.Plan)
	s.Plan, s.PlanSource = &plan, planFromCache
	s.TestCommands = knowledge.CorrectedLines(s.Platform, e.TestCommands)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Line: "performance mode: rebuilding the cached recipe of " + s.RepoName + " (built " + e.LastBuilt.Format("2006-01-02") + ")"})
}

// optimizePending reports whether a saved run stopped in (or right before) the optimize
// node: the port finished verified in performance mode and was not measured yet. Such a
// run resumes into optimize instead of counting as finished.
func optimizePending(st *atesor.State) bool {
	return st.Request.Optimize && st.Verified && st.LastNode == NodeFinish &&
		st.NextNode == NodeOptimize && st.Performance == nil
}
