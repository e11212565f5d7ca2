package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
)

// AnalystNode is an embedder's replacement for the pipeline's analyst node (install it
// with graph.WithNode("analyst", node)). It asks the planner model for a package
// analysis, insists that the answer agrees with a confident scripted detection, and
// falls back to the detection when no model gives a valid answer.
type AnalystNode struct {
	Client *llm.Client
}

var _ atesor.Node = (*AnalystNode)(nil)

// Name is the node this one replaces.
func (n *AnalystNode) Name() string { return "analyst" }

// Run writes s.Analysis and adds the model usage to s.Usage.
func (n *AnalystNode) Run(ctx context.Context, _ atesor.Run, s *atesor.State) error {
	det := s.Detection
	if det == nil {
		det = &atesor.Detection{BuildSystem: atesor.BuildUnknown}
	}
	out := llm.Call(ctx, n.Client, llm.Request[atesor.AnalysisAnswer]{
		Role:     atesor.RolePlanner,
		Messages: prompt(s, det),
		Validate: func(a *atesor.AnalysisAnswer) error { return agrees(a, det) },
	})
	s.Usage = s.Usage.Add(out.Usage)
	if out.OK() {
		a := out.Data.Analysis()
		s.Analysis = &a
		return nil
	}
	s.Analysis = &atesor.PackageAnalysis{
		Purpose:               "unknown (no model answer: " + errText(out.LastErr) + ")",
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

func prompt(s *atesor.State, det *atesor.Detection) []*schema.Message {
	d, _ := json.Marshal(det)
	return []*schema.Message{
		schema.SystemMessage("You analyse source packages for a native riscv64 build on " + s.Platform.DisplayName +
			". Answer with one JSON object: purpose, language, build_system {type, confidence, reasoning}, " +
			"dependencies, riscv_risks, build_strategy, expected_artifacts, needs_custom_plan, complexity (1-10)."),
		schema.UserMessage(fmt.Sprintf("Package %s.\nScripted detection: %s\n\n%s", s.RepoName, d, s.Evidence)),
	}
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

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}
