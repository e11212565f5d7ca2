package mcpserver

import (
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
)

// outcomeOf is a port's outcome from its report and the run's last error (which is
// given only when the port did not succeed).
func outcomeOf(rep *graph.Report, last *atesor.ErrorRecord) Outcome {
	o := Outcome{Package: rep.Package, Sandbox: rep.Sandbox, Status: string(rep.Status), Verified: rep.Verified,
		Verdict: atesor.VerdictLine(rep.Status, rep.Tests), FailureClass: string(rep.FailureClass), Reason: rep.Reason,
		Artifacts: artifactsOf(rep.Artifacts), VerifyProblems: rep.VerifyProblems, Tests: testsOf(rep.Tests),
		Attempts: rep.Attempts, ModelCalls: rep.LLM.Calls, CostUSD: rep.LLM.CostUSD, Seconds: time.Duration(rep.Duration).Seconds(),
		Recipe: rep.Files[atesor.FileRecipe], Report: rep.Files[atesor.FileReport], Files: rep.Files}
	if last != nil && !rep.Status.Succeeded() {
		o.Error = &BuildError{Node: last.Node, Phase: last.Phase, Command: last.Command, ExitCode: last.ExitCode,
			Category: string(last.Category), Message: last.Message}
	}
	return o
}

func artifactsOf(as []atesor.Artifact) []Artifact {
	out := []Artifact{}
	for _, a := range as {
		out = append(out, Artifact{Path: a.Path, Kind: string(a.Kind), Role: string(a.Role), Class: a.Class, Machine: a.Machine,
			RISCV64: a.RISCV64, FloatABI: a.FloatABI, ISA: a.ISA, Interpreter: a.Interpreter, Static: a.Static,
			Stripped: a.Stripped, Needed: a.Needed, SHA256: a.SHA256, Size: a.Size, Problem: a.Problem})
	}
	return out
}

func testsOf(t *atesor.TestResult) *Tests {
	if t == nil {
		return nil
	}
	out := &Tests{Commands: nonNil(t.Commands), Passed: t.Passed, TimedOut: t.TimedOut, NoTests: t.NoTests, Summary: t.Summary()}
	if c := t.Counts; c != nil {
		out.Framework, out.Ran, out.PassedCount, out.Failed, out.Skipped, out.FailedTests =
			c.Framework, c.Ran, c.Passed, c.Failed, c.Skipped, c.FailedTests
	}
	return out
}

func recipeOf(r *atesor.CachedRecipe) RecipeOutput {
	return RecipeOutput{Package: r.Package, Sandbox: r.Sandbox, Verified: r.Verified, TestsFailing: r.TestsFailing,
		BuildSystem: string(r.BuildSystem), Source: r.Source, SourceSHA256: r.SourceSHA256, SourceCommit: r.SourceCommit,
		LastBuilt: r.LastBuilt.UTC().Format(time.RFC3339), Commands: nonNil(r.Plan.Commands()), TestCommands: r.TestCommands,
		Artifacts: artifactsOf(r.Artifacts), Markdown: r.Recipe}
}
