package graph

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/eclipse-atesor/atesor-go"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = template.Must(template.New("prompts").Option("missingkey=error").ParseFS(promptFS, "prompts/*.tmpl"))

// render fills a prompt template.
func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name+".tmpl", data); err != nil {
		return "", fmt.Errorf("prompt %s: %w", name, err)
	}
	return b.String(), nil
}

// compactAnalysis is the short text form of the analysis that the scout and fixer see.
func compactAnalysis(a *atesor.PackageAnalysis) string {
	if a == nil {
		return "(no analysis)"
	}
	var deps []string
	for _, d := range a.Dependencies {
		deps = append(deps, d.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "purpose: %s\nlanguage: %s\nbuild system: %s (confidence %.2f; %s)\n", a.Purpose, a.Language, a.BuildSystem, a.BuildSystemConfidence, a.BuildSystemReasoning)
	fmt.Fprintf(&b, "dependencies: %s\n", strings.Join(deps, ", "))
	if len(a.RiscvRisks) > 0 {
		fmt.Fprintf(&b, "riscv risks: %s\n", strings.Join(a.RiscvRisks, "; "))
	}
	if a.BuildStrategy != "" {
		fmt.Fprintf(&b, "strategy: %s\n", a.BuildStrategy)
	}
	if len(a.ExpectedArtifacts) > 0 {
		fmt.Fprintf(&b, "expected artifacts: %s\n", strings.Join(a.ExpectedArtifacts, ", "))
	}
	fmt.Fprintf(&b, "needs custom plan: %t; complexity %d; llm grounded: %t", a.NeedsCustomPlan, a.Complexity, a.LLMGrounded)
	return b.String()
}
