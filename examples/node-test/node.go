package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// AnalystNode is an embedder's replacement for the pipeline's analyst node (install it
// with graph.WithNode(graph.NodeAnalyst, node)). It asks the planner model for a
// package analysis through the run's Ask, the same validated call the built-in nodes
// make (audit log, events, clock, usage and cost, fallbacks), insists that the answer
// agrees with a confident scripted detection, and falls back to the detection when no
// model gives a valid answer.
//
// It owns the state's analysis part: it writes s.Analysis and nothing else.
type AnalystNode struct{}

var _ atesor.Node = AnalystNode{}

// Name is the node's own name; the pipeline reports it under the name it replaces.
func (AnalystNode) Name() string { return "house-analyst" }

// Run writes s.Analysis. The model usage is added to the state by Ask.
func (AnalystNode) Run(ctx context.Context, run atesor.Run, s *atesor.State) error {
	det := s.Detection
	if det == nil {
		det = &atesor.Detection{BuildSystem: atesor.BuildUnknown}
	}
	ans, err := run.Ask(ctx, atesor.Question{
		Role:   atesor.RolePlanner,
		Label:  "analyst",
		Prompt: prompt(s, run.Platform(), det),
		Decode: func(raw []byte) (any, error) {
			a, err := validate.Decode[atesor.AnalysisAnswer](raw)
			return &a, err
		},
		Check: func(v any) error { return agrees(v.(*atesor.AnalysisAnswer), det) },
	})
	if err == nil {
		a := ans.Value.(*atesor.AnalysisAnswer).Analysis()
		s.Analysis = &a
		run.Logger().Info("house analyst", "build_system", a.BuildSystem, "attempts", ans.Attempts)
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	why := err.Error()
	if errors.Is(err, atesor.ErrOffline) {
		why = "offline"
	}
	run.Emit(atesor.Event{Kind: atesor.EventFallback, Line: "no model answer (" + why + "): using the scripted detection"})
	s.Analysis = &atesor.PackageAnalysis{
		Purpose:               "unknown (no model answer: " + why + ")",
		Language:              det.Language,
		BuildSystem:           det.BuildSystem,
		BuildSystemConfidence: det.Confidence,
		BuildSystemReasoning:  "scripted detection: " + det.Evidence,
		Dependencies:          det.Dependencies,
		RiscvRisks:            []string{},
		ExpectedArtifacts:     []string{},
		Complexity:            5,
	}
	return nil
}

func prompt(s *atesor.State, p atesor.Platform, det *atesor.Detection) string {
	d, _ := json.Marshal(det)
	return "You analyse source packages for a native riscv64 build on " + p.DisplayName +
		". Answer with one JSON object: purpose, language, build_system {type, confidence, reasoning}, " +
		"dependencies, riscv_risks, build_strategy, expected_artifacts, needs_custom_plan, complexity (1-10).\n\n" +
		fmt.Sprintf("Package %s.\nScripted detection: %s\n\n%s", s.RepoName, d, s.Evidence)
}

// agrees is the node's semantic rule: with a confident detection (>= 0.9), the answer's
// build system must match it. The error text goes back to the model as a critique.
func agrees(a *atesor.AnalysisAnswer, det *atesor.Detection) error {
	if strings.TrimSpace(a.Purpose) == "" {
		return fmt.Errorf("purpose is empty: say in one sentence what the package does")
	}
	if det.Confidence >= 0.9 && a.BuildSystem.Type != det.BuildSystem {
		return fmt.Errorf("build_system.type is %q, but %s proves %q: answer %q",
			a.BuildSystem.Type, det.Evidence, det.BuildSystem, det.BuildSystem)
	}
	return nil
}
