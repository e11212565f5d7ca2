package knowledge

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
)

// Size budgets of the evidence bundle, in bytes.
const (
	evidenceListingBudget   = 2000
	evidenceBuildFileBudget = 4000  // per build file
	evidenceBuildBudget     = 12000 // all build files
	evidenceConfigureHead   = 1500  // a shipped configure script is shown by its head only
	evidenceReadmeBudget    = 3000
	evidenceTotalBudget     = 20000
)

// evidenceBuildFiles are the build files the bundle shows, in this order, when present at
// the top level.
var evidenceBuildFiles = []string{
	"go.mod", "Cargo.toml", "CMakeLists.txt", "meson.build", "meson_options.txt",
	"meson.options", "configure.ac", "configure.in", "Makefile.am", "GNUmakefile", "Makefile",
	"makefile", "configure", "build.rs", "setup.py", "pyproject.toml", "BUILD.bazel", "SConstruct",
}

// Evidence is the evidence bundle for the analyst prompt: the top-level listing, the build
// files (top level, then those of the detected build directory) and the first README, each
// cut to a size budget. A tree that cannot be read yields a bundle that says so.
func Evidence(ctx context.Context, root string) string {
	t, err := walkTree(ctx, root)
	if err != nil {
		return fmt.Sprintf("## Evidence\n(source tree unreadable: %v)\n", err)
	}
	defer t.close()
	var b strings.Builder

	b.WriteString("## Top-level files\n")
	var top []string
	for _, e := range t.files {
		if depth(e.rel) == 0 {
			name := e.rel
			if e.dir {
				name += "/"
			}
			top = append(top, name)
		}
	}
	slices.Sort(top)
	b.WriteString(cut(strings.Join(top, "  "), evidenceListingBudget))
	b.WriteString("\n")

	var files []string
	for _, name := range evidenceBuildFiles {
		if t.isFile(name) {
			files = append(files, name)
		}
	}
	// Build files of subdirectory builds (a Go module in go/, CMake in build/cmake).
	for _, c := range buildCandidates(t) {
		if c.dir != "" && !slices.Contains(files, c.evidence) && len(files) < 12 {
			files = append(files, c.evidence)
		}
	}
	used := 0
	for _, f := range files {
		if used >= evidenceBuildBudget || ctx.Err() != nil {
			break
		}
		limit := evidenceBuildFileBudget
		if path.Base(f) == "configure" {
			limit = evidenceConfigureHead
		}
		limit = min(limit, evidenceBuildBudget-used)
		text := cut(t.readString(f), limit)
		used += len(text)
		fmt.Fprintf(&b, "\n## %s\n%s\n", f, text)
	}

	if readme := firstReadme(t); readme != "" {
		fmt.Fprintf(&b, "\n## %s\n%s\n", readme, cut(t.readString(readme), evidenceReadmeBudget))
	}
	return cut(b.String(), evidenceTotalBudget)
}

// firstReadme returns the top-level README, preferring README.md, or "".
func firstReadme(t *tree) string {
	var names []string
	for _, e := range t.files {
		if !e.dir && depth(e.rel) == 0 && strings.HasPrefix(strings.ToLower(e.rel), "readme") {
			names = append(names, e.rel)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		rank := func(s string) int {
			switch strings.ToLower(s) {
			case "readme.md":
				return 0
			case "readme":
				return 1
			}
			return 2
		}
		if c := rank(a) - rank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// cut shortens s to at most n bytes on a line or rune boundary and says how much it
// dropped.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) <= n {
		return s
	}
	keep := s[:n]
	if i := strings.LastIndexByte(keep, '\n'); i > n/2 {
		keep = keep[:i]
	}
	keep = strings.ToValidUTF8(keep, "")
	return fmt.Sprintf("%s\n[... %d more bytes cut]", keep, len(s)-len(keep))
}

// DetectionSummary is the compact text form of a detection for prompts: the build
// system with its confidence and evidence, alternatives, language, dependencies, the Go
// facts and the high or critical architecture findings (at most 5).
func DetectionSummary(d *atesor.Detection) string {
	if d == nil {
		return "Scripted detection: none\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Build system: %s (confidence %.2f, evidence %s)", d.BuildSystem, d.Confidence, textlist.OrNone(d.Evidence))
	if d.ShippedConfigure {
		b.WriteString(", shipped configure script: run ./configure then make, no autoreconf")
	}
	if d.BuildDir != "" {
		fmt.Fprintf(&b, ", build directory %s", d.BuildDir)
	}
	b.WriteString("\n")
	if len(d.Alternatives) > 0 {
		alts := make([]string, 0, len(d.Alternatives))
		for _, a := range d.Alternatives {
			alts = append(alts, fmt.Sprintf("%s (%s, %.2f)", a.BuildSystem, a.Evidence, a.Confidence))
		}
		fmt.Fprintf(&b, "Other build files: %s\n", strings.Join(alts, ", "))
	}
	if d.Language != "" {
		fmt.Fprintf(&b, "Language: %s\n", d.Language)
	}
	if len(d.Dependencies) == 0 {
		b.WriteString("Dependencies: none found in build files\n")
	} else {
		deps := make([]string, 0, len(d.Dependencies))
		for i, dep := range d.Dependencies {
			if i == 20 {
				deps = append(deps, fmt.Sprintf("... %d more", len(d.Dependencies)-20))
				break
			}
			deps = append(deps, fmt.Sprintf("%s (%s)", dep.Name, dep.Evidence))
		}
		fmt.Fprintf(&b, "Dependencies: %s\n", strings.Join(deps, ", "))
	}
	if d.ModuleDir != "" || d.HasMain {
		fmt.Fprintf(&b, "Go: module_dir=%s has_main=%t main_path=%s cgo=%t\n", textlist.OrNone(d.ModuleDir), d.HasMain, textlist.OrNone(d.MainPath), d.HasCGO)
		if len(d.GoCommands) > 0 {
			fmt.Fprintf(&b, "Go commands (build each one): %s\n", strings.Join(d.GoCommands, ", "))
		}
	}
	counts := map[atesor.Severity]int{}
	var serious []atesor.ArchFinding
	for _, f := range d.ArchFindings {
		counts[f.Severity]++
		if (f.Severity == atesor.SeverityHigh || f.Severity == atesor.SeverityCritical) && len(serious) < 5 {
			serious = append(serious, f)
		}
	}
	if len(d.ArchFindings) == 0 {
		b.WriteString("Architecture-specific code: none found\n")
	} else {
		fmt.Fprintf(&b, "Architecture-specific code: %d findings (critical %d, high %d, medium %d, low %d)\n",
			len(d.ArchFindings), counts[atesor.SeverityCritical], counts[atesor.SeverityHigh],
			counts[atesor.SeverityMedium], counts[atesor.SeverityLow])
		for _, f := range serious {
			fmt.Fprintf(&b, "  - %s %s %s:%d: %s\n", f.Severity, f.Kind, f.File, f.Line, f.Snippet)
		}
	}
	return b.String()
}
