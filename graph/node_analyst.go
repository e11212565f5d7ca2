package graph

import (
	"context"
	"fmt"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// analystNode makes one validated call (planner role) over the evidence bundle and the
// detection summary; without an answer it falls back to the scripted detection.
func (r *run) analystNode(ctx context.Context, s *atesor.State) error {
	if s.Detection == nil {
		return fmt.Errorf("no detection: the init node did not run")
	}
	if r.provider != nil {
		prompt, err := render("analyst", map[string]any{
			"Banner": knowledge.Banner(s.Platform), "Repo": s.RepoName,
			"Detection": knowledge.DetectionSummary(s.Detection), "Evidence": s.Evidence,
			"Shape": validate.SchemaText[atesor.AnalysisAnswer](),
		})
		if err != nil {
			return err
		}
		ans := askJSON(ctx, r, s, atesor.RolePlanner, "analyst", prompt, func(a *atesor.AnalysisAnswer) error {
			stored := a.Analysis()
			return validate.Analysis(&stored)
		})
		if ans != nil {
			a := ans.Analysis()
			a.ExpectedArtifacts = gotool.WithArtifacts(a.ExpectedArtifacts, s.Detection)
			s.Analysis = &a
			return nil
		}
		r.emit(atesor.Event{Kind: atesor.EventFallback, Node: NodeAnalyst, Role: string(atesor.RolePlanner), Label: "analyst", Line: "the analyst gave no valid answer: using the scripted analysis"})
	}
	a := fallbackAnalysis(s.Detection)
	s.Analysis = &a
	s.OfflineFallbacks = append(s.OfflineFallbacks, NodeAnalyst)
	return nil
}

// fallbackAnalysis builds the analysis from the scripted detection, not grounded in a
// model; a detection confidence under 0.5 asks for a custom plan.
func fallbackAnalysis(d *atesor.Detection) atesor.PackageAnalysis {
	a := atesor.PackageAnalysis{
		Purpose:               "not analysed by a model (scripted detection only)",
		Language:              d.Language,
		BuildSystem:           d.BuildSystem,
		BuildSystemConfidence: d.Confidence,
		BuildSystemReasoning:  "scripted detection: " + d.Evidence,
		Dependencies:          append([]atesor.Dependency{}, d.Dependencies...),
		RiscvRisks:            []string{},
		ExpectedArtifacts:     gotool.WithArtifacts([]string{}, d),
		NeedsCustomPlan:       d.Confidence < 0.5,
		Complexity:            2,
		LLMGrounded:           false,
	}
	for _, f := range d.ArchFindings {
		if f.Severity == atesor.SeverityHigh || f.Severity == atesor.SeverityCritical {
			a.RiscvRisks = append(a.RiscvRisks, fmt.Sprintf("%s at %s:%d", f.Kind, f.File, f.Line))
			a.Complexity = 5
		}
		if len(a.RiscvRisks) == 10 {
			break
		}
	}
	if len(a.Dependencies) > 15 {
		a.Dependencies = a.Dependencies[:15]
	}
	a.BuildStrategy = fmt.Sprintf("Build with the standard %s steps natively in the riscv64 sandbox.", d.BuildSystem)
	return a
}
