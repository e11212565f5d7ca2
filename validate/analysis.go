package validate

import (
	"fmt"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Analysis checks the stored package analysis (the analyst's answer after
// atesor.AnalysisAnswer.Analysis, or the scripted fallback): purpose is not empty, the
// build system is named, every dependency has a name, the lists respect their limits
// (dependencies <= 15, riscv_risks <= 10, expected_artifacts <= 10), complexity is in
// 1..10 and the build system confidence in 0..1. The JSON-level rules of the analyst
// answer (build_system an object with a type, dependencies an array, needs_custom_plan a
// JSON boolean and not the string "true") are checked by [Decode], which also clamps the
// limits, so a decoded answer only fails here for empty content. [ClampAnalysis] brings a
// hand-made analysis within the limits.
func Analysis(a *atesor.PackageAnalysis) error {
	if a == nil {
		return reject(ruleAnalysis, "", "the analysis is empty", "answer with purpose, build_system, dependencies and needs_custom_plan")
	}
	if strings.TrimSpace(a.Purpose) == "" {
		return reject(ruleAnalysis, "purpose", "the purpose is empty", "say in one sentence what the package is")
	}
	if strings.TrimSpace(string(a.BuildSystem)) == "" {
		return reject(ruleAnalysis, "build_system.type", "the build system is not named", "name it: cmake, autotools, make, meson, cargo, go, perl or unknown")
	}
	for i, d := range a.Dependencies {
		if strings.TrimSpace(d.Name) == "" {
			return reject(ruleAnalysis, fmt.Sprintf("dependencies[%d]", i), "the dependency has no name", "give its canonical name, such as zlib")
		}
	}
	limits := []struct {
		name string
		n    int
		max  int
	}{
		{"dependencies", len(a.Dependencies), MaxDependencies},
		{"riscv_risks", len(a.RiscvRisks), MaxRiscvRisks},
		{"expected_artifacts", len(a.ExpectedArtifacts), MaxExpectedArtifacts},
	}
	for _, l := range limits {
		if l.n > l.max {
			return reject(ruleAnalysis, l.name, fmt.Sprintf("%d entries, more than %d", l.n, l.max), fmt.Sprintf("list at most %d, the most important first", l.max))
		}
	}
	if a.Complexity < MinComplexity || a.Complexity > MaxComplexity {
		return reject(ruleAnalysis, "complexity", fmt.Sprintf("%d is outside 1..10", a.Complexity), "rate the complexity from 1 (trivial) to 10 (hard)")
	}
	if a.BuildSystemConfidence < 0 || a.BuildSystemConfidence > 1 {
		return reject(ruleAnalysis, "build_system.confidence", fmt.Sprintf("%g is outside 0..1", a.BuildSystemConfidence), "give a confidence between 0 and 1")
	}
	return nil
}

// ClampAnalysis cuts the lists of a to their limits, moves complexity into 1..10 (0 means
// unknown and becomes 5) and the confidence into 0..1, and replaces nil lists with empty
// ones, so that the analysis passes [Analysis]'s limits and marshals lists as [].
func ClampAnalysis(a *atesor.PackageAnalysis) {
	if a == nil {
		return
	}
	a.Dependencies = clampList(a.Dependencies, MaxDependencies)
	a.RiscvRisks = clampList(a.RiscvRisks, MaxRiscvRisks)
	a.ExpectedArtifacts = clampList(a.ExpectedArtifacts, MaxExpectedArtifacts)
	switch {
	case a.Complexity == 0:
		a.Complexity = DefaultComplexity
	case a.Complexity < MinComplexity:
		a.Complexity = MinComplexity
	case a.Complexity > MaxComplexity:
		a.Complexity = MaxComplexity
	}
	a.BuildSystemConfidence = min(max(a.BuildSystemConfidence, 0), 1)
}
