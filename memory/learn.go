package memory

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Lesson is one few-shot example a verified port teaches, with the agent it is for.
type Lesson struct {
	Agent   atesor.Agent
	Example atesor.Example
}

// ExamplesFrom are the few-shot examples a verified port teaches: its plan for the
// scout, each fix the next build proved (its commands, or its patch or new file) for
// the fixer, and its phases with a timeout recommendation for the builder.
func ExamplesFrom(s *atesor.State) []Lesson {
	bs := buildSystemOf(s)
	sandboxKey := s.Platform.SandboxKey()
	var phases []atesor.Phase
	if s.Plan != nil {
		phases = s.Plan.Phases
	}
	var trigger atesor.Trigger
	trigger.BuildSystem = bs
	if d := s.Detection; d != nil {
		hasMain := d.HasMain
		trigger.HasMain, trigger.MainPath, trigger.ModuleDir = &hasMain, d.MainPath, d.ModuleDir
	}
	out := []Lesson{{atesor.AgentScout, atesor.Example{
		Name: fmt.Sprintf("Auto: %s (%s)", s.RepoName, bs), Tags: []string{string(bs), s.RepoName},
		BuildSystem: bs, RepoName: s.RepoName, Sandbox: sandboxKey, Trigger: &trigger, Plan: phases,
		Reasoning: "Verified port of " + s.RepoName + " (" + s.PlanSource + " plan).",
	}}}
	for _, f := range s.FixAttempts {
		if !f.Success {
			continue
		}
		var actions []atesor.Action
		for _, c := range f.Commands {
			actions = append(actions, atesor.Action{Type: atesor.ActionCommand, Command: c})
		}
		if len(actions) == 0 {
			actions = f.Actions // a fix by patch or new file: keep what it did
		}
		pattern := f.Error
		if len([]rune(pattern)) > 80 {
			pattern = string([]rune(pattern)[:80])
		}
		out = append(out, Lesson{atesor.AgentFixer, atesor.Example{
			Name: fmt.Sprintf("Auto: %s fix %d", s.RepoName, f.Attempt), Tags: []string{string(bs), string(f.ErrorCategory)},
			BuildSystem: bs, RepoName: s.RepoName, Sandbox: sandboxKey,
			ErrorPattern: regexp.QuoteMeta(pattern),
			Fix:          &atesor.ExampleFix{Analysis: f.Analysis, Strategy: f.Strategy, Actions: actions},
			Reasoning:    "The next build succeeded and the port verified.",
		}})
	}
	timeout := "120s"
	if len(phases) > 2 {
		timeout = "600s"
	}
	out = append(out, Lesson{atesor.AgentBuilder, atesor.Example{
		Name: fmt.Sprintf("Auto: %s (%s)", s.RepoName, bs), Tags: []string{string(bs), s.RepoName},
		BuildSystem: bs, RepoName: s.RepoName, Sandbox: sandboxKey, Phases: phases, TimeoutRecommendation: timeout,
	}})
	return out
}

// RecipeFrom is the recipe-cache entry of a verified port: its plan, patches, recipe,
// analysis, primary artifacts and tests. source is how the cache records where the
// source came from (a directory, a redacted URL or a tarball path); built stamps it.
func RecipeFrom(s *atesor.State, source string, built time.Time) atesor.CachedRecipe {
	entry := atesor.CachedRecipe{
		Package: s.RepoName, Sandbox: s.Platform.SandboxKey(), Source: source, SourceSHA256: s.SourceSHA256,
		SourceCommit: s.SourceCommit, BuildSystem: buildSystemOf(s), Verified: true, Recipe: s.Recipe, Analysis: s.Analysis,
		Artifacts: atesor.PrimaryArtifacts(s.Artifacts), TestCommands: s.TestCommands, Tests: s.Tests,
		TestsFailing: s.Status == atesor.StatusTestsFailing, LastBuilt: built.UTC(),
	}
	if s.Plan != nil {
		entry.Plan = *s.Plan
	}
	for _, p := range s.Patches {
		entry.Patches = append(entry.Patches, p.Diff)
	}
	return entry
}

// Learn saves what a verified port teaches into store: the examples ([ExamplesFrom])
// and the recipe-cache entry ([RecipeFrom]). A port whose tests fail after source
// fixes (status tests_failing) teaches no example; its cache entry carries the mark.
// Failures are logged, not returned: learning never fails a port.
func Learn(ctx context.Context, store atesor.MemoryStore, s *atesor.State, source string, built time.Time, log *slog.Logger) {
	if store == nil || !s.Verified {
		return
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	testsFailing := s.Status == atesor.StatusTestsFailing
	for _, l := range ExamplesFrom(s) {
		if testsFailing {
			log.Info("learn: not learning the examples of a port whose tests fail after source fixes", "agent", l.Agent)
			continue
		}
		ok, err := store.Save(ctx, l.Agent, l.Example)
		if err != nil {
			log.Warn("learn", "agent", l.Agent, "err", err)
			continue
		}
		log.Info("learn", "agent", l.Agent, "saved", ok)
	}
	if err := store.SaveRecipe(ctx, RecipeFrom(s, source, built)); err != nil {
		log.Warn("recipe cache", "err", err)
	}
}

// buildSystemOf is the port's build system: the analysis's when it names one, else
// the detection's.
func buildSystemOf(s *atesor.State) atesor.BuildSystem {
	bs := atesor.BuildUnknown
	if s.Detection != nil {
		bs = s.Detection.BuildSystem
	}
	if s.Analysis != nil && s.Analysis.BuildSystem != "" {
		bs = s.Analysis.BuildSystem
	}
	return bs
}
