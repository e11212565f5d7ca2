package optimize

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// Replay returns the replayable command block of the winning variant v: its
// environment as export lines, then the build commands (with its configure options).
// A baseline winner replays the verified build unchanged.
func Replay(t Target, v *atesor.Variant) []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, kv := range append(append([]string{}, v.Env...), v.RunEnv...) {
		k, val, _ := strings.Cut(kv, "=")
		out = append(out, "export "+k+"="+shQuote(val))
	}
	applied := len(v.ConfigureArgs) == 0
	for _, line := range t.Commands {
		if !applied {
			line, applied = withConfigureArgs(line, v.ConfigureArgs)
		}
		out = append(out, line)
	}
	return out
}

// Section renders the recipe's "Performance" section: the workload, the table of
// variants, the winner with its flags, the replayable block and the caveat.
func Section(p *atesor.Performance) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Performance\n\n")
	if p.Emulated {
		fmt.Fprintf(&b, "**%s.** The figures compare builds of this package under the emulator on one machine; they are not riscv64 hardware figures and not a speedup claim.\n\n", capitalize(p.Caveat))
	} else {
		fmt.Fprintf(&b, "Figures %s.\n\n", p.Caveat)
	}
	fmt.Fprintf(&b, "- Workload (%s): `%s`\n", p.Source, p.Workload)
	if p.Harness != nil {
		fmt.Fprintf(&b, "- Harness: `%s` (%s), calling %s\n", p.Harness.Filename, p.Harness.Language, strings.Join(p.Harness.Functions, ", "))
	}
	fmt.Fprintf(&b, "- Output check: %s\n", p.Check)
	fmt.Fprintf(&b, "- Runs per variant: %d; a candidate counts only if it builds, its output checks equal and the package tests pass as before\n", p.Runs)
	if p.InstructionCounts != "" {
		fmt.Fprintf(&b, "- Instructions executed: %s\n", p.InstructionCounts)
	}
	b.WriteString("\n")
	if len(p.Variants) == 0 {
		b.WriteString("No measurement was made.\n")
		for _, n := range p.Notes {
			b.WriteString("\n- " + n)
		}
		return b.String() + "\n"
	}
	unit := "s"
	if p.Emulated {
		unit = "s, emulated"
	}
	figures := false
	for _, v := range p.Variants {
		figures = figures || len(v.Figures) > 0
	}
	figHead, figRule := "", ""
	if figures {
		figHead, figRule = " benchmark's own figures (median) |", "---|"
	}
	counted := false
	for _, v := range p.Variants {
		counted = counted || v.Instructions > 0
	}
	if counted {
		figHead, figRule = figHead+" guest instructions (emulated) |", figRule+"---|"
	}
	fmt.Fprintf(&b, "| variant | flags | median (%s) | min | max |%s output | tests | verdict |\n|---|---|---|---|---|%s---|---|---|\n", unit, figHead, figRule)
	for _, v := range p.Variants {
		verdict := "accepted"
		if !v.Accepted {
			verdict = "rejected: " + v.Rejected
		}
		if v.Name == p.Winner {
			verdict += " **(winner)**"
		}
		flags := strings.Join(append(append([]string{}, v.Env...), v.ConfigureArgs...), " ")
		if v.NeedsVector {
			flags += " (needs the vector extension"
			if len(v.RunEnv) > 0 {
				flags += "; run with " + strings.Join(v.RunEnv, " ")
			}
			flags += ")"
		}
		if flags == "" {
			flags = "as verified"
		}
		med, mn, mx := "-", "-", "-"
		if len(v.Durations) > 0 {
			med, mn, mx = secs(v.Median.Seconds()), secs(v.Min.Seconds()), secs(v.Max.Seconds())
		}
		fig := ""
		if figures {
			fig = " " + cell(dash(strings.Join(v.Figures, ", "))) + " |"
		}
		if counted {
			n := "-"
			if v.Instructions > 0 {
				n = strconv.FormatUint(v.Instructions, 10)
			}
			fig += " " + n + " |"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |%s %s | %s | %s |\n", v.Name, cell(flags), med, mn, mx, fig, cell(short(v.Output)), dash(v.Tests), cell(verdict))
	}
	b.WriteString("\n")
	if w := p.WinningVariant(); w != nil && w.Name != "baseline" {
		base := p.Variants[0]
		fmt.Fprintf(&b, "Winner: **%s** (median %ss against the baseline's %ss, %s).\n\n", w.Name, secs(w.Median.Seconds()), secs(base.Median.Seconds()), p.Caveat)
	} else {
		b.WriteString("Winner: **baseline**: no candidate was both correct and faster.\n\n")
	}
	if figures {
		b.WriteString("The wall times include the benchmark's own run time: a benchmark that runs for a fixed time takes about as long whatever the build, and its own figures are the ones that show speed.\n\n")
	}
	if len(p.Replay) > 0 {
		b.WriteString("Replay the winning build:\n\n```sh\n" + strings.Join(p.Replay, "\n") + "\n```\n")
	}
	for _, n := range p.Notes {
		b.WriteString("\n- " + n)
	}
	if len(p.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func secs(s float64) string { return fmt.Sprintf("%.3f", s) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

func short(s string) string {
	s = strings.ReplaceAll(s, "\n", " / ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
