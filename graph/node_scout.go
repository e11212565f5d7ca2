package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// scoutNode asks the scout (scout role) for a build plan: validated, its test commands
// stripped and kept for finish. Without a valid answer it uses the fallback plan of the
// build system (or a discovery plan) and records "Scout failed".
func (r *run) scoutNode(ctx context.Context, s *atesor.State) error {
	s.ScoutRuns++
	s.CompletedPhases = nil // a new plan starts its phases again; the build tree stays
	if r.provider != nil {
		if plan, tests, ok := r.askScout(ctx, s); ok {
			s.Plan, s.PlanSource = &plan, "scout"
			if len(tests) > 0 {
				s.TestCommands = tests
			}
			return nil
		}
	}
	plan, tests, err := knowledge.DefaultPlan(s.Detection, s.Platform)
	if errors.Is(err, knowledge.ErrGoImportsWithoutModule) {
		if gp, gtests, why := r.goPathPlan(ctx, s); why == "" {
			plan, tests, err = gp, gtests, nil
		} else {
			err = fmt.Errorf("%w; no GOPATH build: %s", err, why)
		}
	}
	if errors.Is(err, knowledge.ErrNoGoModulePath) || errors.Is(err, knowledge.ErrGoImportsWithoutModule) {
		return noGoModulePath(s, err)
	}
	if err != nil {
		plan = knowledge.DiscoveryPlan(s.Platform)
		tests = nil
	}
	plan = knowledge.CorrectedPlan(s.Platform, plan)
	s.Plan, s.PlanSource = &plan, "fallback"
	if len(tests) > 0 {
		s.TestCommands = knowledge.CorrectedLines(s.Platform, tests)
	}
	msg := "Scout failed: no valid plan from a model; using the fallback plan"
	if r.provider == nil {
		msg = "Scout failed: no model configured (offline); using the fallback plan"
	}
	s.Errors = append(s.Errors, atesor.ErrorRecord{Node: NodeScout, Message: msg, Category: atesor.CategoryUnknown, Timestamp: r.p.opts.now().UTC()})
	s.OfflineFallbacks = append(s.OfflineFallbacks, NodeScout)
	r.emit(atesor.Event{Kind: atesor.EventFallback, Node: NodeScout, Role: string(atesor.RoleScout), Label: "scout", Line: msg})
	return nil
}

var errOnlyTests = errors.New("the plan has only test commands; give the commands that configure and build the package (the pipeline runs the tests itself after verification)")

func (r *run) askScout(ctx context.Context, s *atesor.State) (atesor.BuildPlan, []string, bool) {
	examples := r.examples(ctx, atesor.AgentScout, s, "")
	data := map[string]any{
		"Banner": knowledge.Banner(s.Platform), "Repo": s.RepoName, "RepoDir": s.RepoDir,
		"Analysis": compactAnalysis(s.Analysis), "Detection": knowledge.DetectionSummary(s.Detection),
		"Evidence": s.Evidence, "Knowledge": knowledge.Summary(s.Platform), "Examples": examples,
		"FailedCommand": "", "Error": "", "InstallCommand": s.Platform.InstallCommand,
		"UpdateCommand": s.Platform.UpdateCommand, "Shape": validate.SchemaText[atesor.BuildPlan](),
	}
	if s.ScoutRuns > 1 && s.LastError != nil {
		data["FailedCommand"] = s.LastError.Command
		data["Error"] = excerpt.Head(s.LastError.Message, maxErrorChars)
	}
	prompt, err := render("scout", data)
	if err != nil {
		r.log.Error("scout prompt", "err", err)
		return atesor.BuildPlan{}, nil, false
	}
	var tests []string
	plan := askJSON(ctx, r, s, atesor.RoleScout, "scout", prompt, func(p *atesor.BuildPlan) error {
		// The corrected plan is the one validated, stored and run.
		*p = knowledge.CorrectedPlan(s.Platform, *p)
		if err := validate.BuildPlan(p); err != nil {
			return err
		}
		stripped, removed := validate.StripTestCommands(*p)
		if len(stripped.Phases) == 0 {
			return errOnlyTests
		}
		tests = removed
		*p = stripped
		return nil
	})
	if plan == nil {
		return atesor.BuildPlan{}, nil, false
	}
	return *plan, tests, true
}

// examples renders up to 2 relevant few-shot examples in 2000 characters.
func (r *run) examples(ctx context.Context, agent atesor.Agent, s *atesor.State, errMsg string) string {
	if r.memory == nil {
		return ""
	}
	q := atesor.Query{Sandbox: s.Platform.SandboxKey(), ErrorMessage: errMsg}
	if s.Analysis != nil {
		q.BuildSystem = s.Analysis.BuildSystem
	}
	if d := s.Detection; d != nil {
		if q.BuildSystem == "" {
			q.BuildSystem = d.BuildSystem
		}
		if agent == atesor.AgentScout {
			hasMain := d.HasMain
			q.HasMain, q.MainPath, q.ModuleDir = &hasMain, d.MainPath, d.ModuleDir
		}
	}
	exs, err := r.memory.Relevant(ctx, agent, q, 2)
	if err != nil {
		r.log.Warn("few-shot examples", "agent", agent, "err", err)
		return ""
	}
	return memory.Format(exs, 2000)
}
