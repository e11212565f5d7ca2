package memory

import (
	"fmt"
	"strings"
	"unicode/utf8"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Format renders examples for a prompt in at most maxChars characters (maxChars <= 0
// means no limit). Examples are added whole, best first, while they fit; when not even
// the first fits, it is cut at maxChars. No examples give an empty string. The nodes use
// 2 examples and 2000 characters.
func Format(examples []atesor.Example, maxChars int) string {
	if len(examples) == 0 {
		return ""
	}
	const header = "Examples of similar cases that were solved before:\n"
	var b strings.Builder
	b.WriteString(header)
	added := 0
	for i, ex := range examples {
		block := formatOne(i+1, ex)
		if maxChars > 0 && utf8.RuneCountInString(b.String())+utf8.RuneCountInString(block) > maxChars {
			if added == 0 {
				return truncateRunes(b.String()+block, maxChars)
			}
			break
		}
		b.WriteString(block)
		added++
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	const mark = "\n[...]"
	keep := n - utf8.RuneCountInString(mark)
	if keep <= 0 {
		return string([]rune(s)[:n])
	}
	return string([]rune(s)[:keep]) + mark
}

func formatOne(n int, ex atesor.Example) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nExample %d: %s\n", n, ex.Name)
	fmt.Fprintf(&b, "Build system: %s; sandbox: %s\n", ex.BuildSystem, ex.SandboxOrDefault())
	if tr := ex.Trigger; tr != nil {
		var parts []string
		if tr.HasMain != nil {
			parts = append(parts, fmt.Sprintf("has_main=%t", *tr.HasMain))
		}
		if tr.MainPath != "" {
			parts = append(parts, "main_path="+tr.MainPath)
		}
		if tr.ModuleDir != "" {
			parts = append(parts, "module_dir="+tr.ModuleDir)
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "When: %s\n", strings.Join(parts, ", "))
		}
	}
	if ex.ErrorPattern != "" {
		fmt.Fprintf(&b, "Error pattern: %s\n", ex.ErrorPattern)
	}
	if f := ex.Fix; f != nil {
		if f.Analysis != "" {
			fmt.Fprintf(&b, "Analysis: %s\n", f.Analysis)
		}
		if f.Strategy != "" {
			fmt.Fprintf(&b, "Strategy: %s\n", f.Strategy)
		}
		if len(f.Actions) > 0 {
			b.WriteString("Actions:\n")
			for _, a := range f.Actions {
				b.WriteString("  - " + formatAction(a) + "\n")
			}
		}
	}
	writePhases(&b, "Plan", ex.Plan)
	writePhases(&b, "Phases", ex.Phases)
	if ex.TimeoutRecommendation != "" {
		fmt.Fprintf(&b, "Timeout: %s\n", ex.TimeoutRecommendation)
	}
	if ex.Reasoning != "" {
		fmt.Fprintf(&b, "Why: %s\n", ex.Reasoning)
	}
	return b.String()
}

func formatAction(a atesor.Action) string {
	switch a.Type {
	case atesor.ActionCreateFile:
		return fmt.Sprintf("create_file %s", a.Path)
	case atesor.ActionPatch:
		return fmt.Sprintf("patch %s", a.File)
	default:
		return fmt.Sprintf("%s: %s", a.Type, a.Command)
	}
}

func writePhases(b *strings.Builder, title string, phases []atesor.Phase) {
	if len(phases) == 0 {
		return
	}
	b.WriteString(title + ":\n")
	for _, p := range phases {
		fmt.Fprintf(b, "  %s:\n", p.Name)
		for _, c := range p.Commands {
			b.WriteString("    " + c + "\n")
		}
	}
}
