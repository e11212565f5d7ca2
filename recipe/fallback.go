package recipe

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/pkgtree"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
)

// HasSections reports whether md has the six H2 sections ([atesor.RecipeSections]) in
// order: a model's recipe without them is replaced by [Fallback].
func HasSections(md string) bool {
	at := 0
	for _, sec := range atesor.RecipeSections() {
		re := regexp.MustCompile(`(?m)^##\s+` + regexp.QuoteMeta(sec) + `\s*$`)
		loc := re.FindStringIndex(md[at:])
		if loc == nil {
			return false
		}
		at += loc[1]
	}
	return true
}

// Evidence is what the other concerns of a port say about it, as recipe text: the
// prerequisites a Go toolchain adds, the install step, the package's tests, what fixes
// removed. Empty strings say nothing.
type Evidence struct {
	Prerequisites, Install, Tests, Removals string
}

// Fallback is the recipe written by code when no model writes one, or the model's lacks
// a section: the six sections, from the run state and the evidence, every name the
// build chose escaped for Markdown.
func Fallback(s *atesor.State, ev Evidence) string {
	var b strings.Builder
	verdict := Verdict(s)
	bs := atesor.BuildUnknown
	if s.Detection != nil {
		bs = s.Detection.BuildSystem
	}
	if s.Analysis != nil && s.Analysis.BuildSystem != "" {
		bs = s.Analysis.BuildSystem
	}
	fmt.Fprintf(&b, "# %s on %s — %s\n\n", s.RepoName, s.Platform.SandboxKey(), verdict)
	b.WriteString("## " + atesor.RecipeSummary + "\n\n")
	if s.Verified {
		fmt.Fprintf(&b, "%s builds natively on riscv64 (%s, %s) with its %s build. Every primary artifact is a riscv64 ELF for the %s ABI and starts in the sandbox.\n\n",
			s.RepoName, s.Platform.DisplayName, s.Platform.Libc, bs, s.Platform.FloatABI)
	} else {
		fmt.Fprintf(&b, "**NOT VERIFIED.** The port of %s did not end verified (failure class: %s). %s\n\n", s.RepoName, textlist.OrNone(string(s.FailureClass)), escape.Markdown(s.EscalationReason))
	}
	if s.Analysis != nil && s.Analysis.Purpose != "" {
		fmt.Fprintf(&b, "Package: %s\n\n", escape.Markdown(s.Analysis.Purpose))
	}
	b.WriteString("## " + atesor.RecipePrerequisites + "\n\n")
	fmt.Fprintf(&b, "- A %s riscv64 system or sandbox (%s, target %s).\n", s.Platform.DisplayName, s.Platform.Libc, s.Platform.Triplet)
	if s.Detection != nil && len(s.Detection.Dependencies) > 0 {
		var deps []string
		for _, d := range s.Detection.Dependencies {
			deps = append(deps, escape.Markdown(d.Name))
		}
		fmt.Fprintf(&b, "- Dependencies found in the build files: %s.\n", strings.Join(deps, ", "))
	}
	b.WriteString(ev.Prerequisites)
	b.WriteString("\n## " + atesor.RecipeBuild + "\n\n")
	if s.Plan != nil {
		for _, ph := range s.Plan.Phases {
			fmt.Fprintf(&b, "%s:\n\n%s\n", escape.Markdown(ph.Name), escape.Fence("sh", strings.Join(ph.Commands, "\n")))
		}
	}
	for _, f := range s.FixAttempts {
		if f.Success {
			fmt.Fprintf(&b, "Fix applied (attempt %d): %s\n\n", f.Attempt, escape.Markdown(f.Strategy))
		}
	}
	b.WriteString("## " + atesor.RecipeArchitecture + "\n\n")
	notes := 0
	if s.Detection != nil {
		for _, f := range s.Detection.ArchFindings {
			if notes == 10 {
				break
			}
			fmt.Fprintf(&b, "- %s:%d %s (%s)\n", escape.Markdown(f.File), f.Line, escape.Markdown(f.Kind), escape.Markdown(string(f.Severity)))
			notes++
		}
	}
	if notes == 0 {
		b.WriteString("- No architecture-specific code was found by the scripted scan.\n")
	}
	b.WriteString("\n## " + atesor.RecipeVerification + "\n\n")
	fmt.Fprintf(&b, "Verdict: **%s**.\n\n", verdict)
	for _, a := range s.Artifacts {
		if a.Role == atesor.ArtifactPrimary {
			fmt.Fprintf(&b, "- `%s`: %s, %s, %s, %s\n", escape.Code(pkgtree.Rel(s.RepoDir, a.Path)), escape.Markdown(string(a.Kind)), escape.Markdown(a.Machine),
				escape.Markdown(textlist.OrNone(a.FloatABI)), escape.Markdown(textlist.OrNone(a.Interpreter)))
		}
	}
	for _, p := range s.VerifyProblems {
		fmt.Fprintf(&b, "- problem: %s\n", escape.Markdown(p))
	}
	b.WriteString(ev.Install)
	for _, text := range []string{ev.Tests, ev.Removals} {
		if text != "" {
			b.WriteString("\n" + text)
		}
	}
	b.WriteString("\n## " + atesor.RecipeKnownIssues + "\n\n")
	if len(s.MissingArtifacts) > 0 {
		fmt.Fprintf(&b, "- Expected artifacts not found: %s.\n", escape.Markdown(strings.Join(s.MissingArtifacts, ", ")))
	}
	if s.LastError != nil && !s.Verified {
		fmt.Fprintf(&b, "- Last error (%s): %s\n", s.LastError.Category, escape.Markdown(excerpt.FirstLine(s.LastError.Message)))
	}
	switch t := s.Tests; {
	case t != nil && t.NoTests:
		b.WriteString("- No package test ran: the port is verified by its artifacts alone; add the package's tests to prove it works.\n")
	case t != nil && !t.Passed:
		b.WriteString("- The package tests did not pass under emulation; check them on riscv64 hardware.\n")
	}
	b.WriteString("- Numbers and timings measured under qemu emulation are not hardware numbers.\n")
	return b.String()
}
