package recipe

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
)

// CommandsFence is the info string of the machine-readable command block of a recipe.
const CommandsFence = "atesor-commands"

// commandsHeading is the heading of the recipe section that holds the command block.
const commandsHeading = "## Commands"

// unreplayableMark starts the comment line that stands in the command block for a
// command the block cannot hold as one plain line (a line break or a control character
// in it): a replay refuses the recipe rather than run something else.
const unreplayableMark = "# atesor: not replayable: "

// AppendCommands appends to md the Commands section with the fenced block of the exact
// commands that ran (s.ExecutedCommands), in order, and comments naming the patches to
// apply (s.Patches) and the SOURCE_DATE_EPOCH. md is first made unable to hold a block
// of its own ([Neutralize]).
func AppendCommands(md string, s *atesor.State) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(Neutralize(md), "\n"))
	fence := "```"
	for _, c := range s.ExecutedCommands {
		fence = longerFence(fence, c)
	}
	b.WriteString("\n\n" + commandsHeading + "\n\nThe exact commands of this port, in order, run in `" + escape.Code(s.RepoDir) + "` inside a fresh `" +
		escape.Code(s.Platform.SandboxKey()) + "` sandbox:\n\n" + fence + CommandsFence + "\n")
	if s.SourceDateEpoch > 0 {
		fmt.Fprintf(&b, "# every command runs with SOURCE_DATE_EPOCH=%d (the source's date)\n", s.SourceDateEpoch)
	}
	for _, p := range s.Patches {
		fmt.Fprintf(&b, "# patch -p1 < %s_patches/%s\n", escape.Line(s.RepoName), escape.Line(p.Name))
	}
	for _, c := range s.ExecutedCommands {
		if strings.TrimSpace(c) == "" {
			continue // ran nothing
		}
		if escape.Line(c) != c || strings.HasPrefix(strings.TrimSpace(c), "#") {
			b.WriteString(unreplayableMark + escape.Line(c) + "\n")
			continue
		}
		b.WriteString(c + "\n")
	}
	b.WriteString(fence + "\n")
	return b.String()
}

// longerFence returns a backtick fence longer than any run of backticks in s, and at
// least as long as fence.
func longerFence(fence, s string) string {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			run = 0
			continue
		}
		if run++; run >= len(fence) {
			fence = strings.Repeat("`", run+1)
		}
	}
	return fence
}

// fenceLine matches a line that opens or closes a Markdown code block: up to three
// spaces, a run of three or more backticks or tildes, and the info string.
var fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// Neutralize makes recipe text written by a model or assembled from names a build
// chose (file names, test names, messages) safe to put before the command block:
// control characters are escaped, and a code block that claims to be a command block
// is relabelled as plain text, so the recipe holds exactly one block that a replay
// runs.
func Neutralize(md string) string {
	lines := strings.Split(escape.Text(md), "\n")
	for i, l := range lines {
		m := fenceLine.FindStringSubmatch(l)
		if m != nil && strings.Contains(strings.ToLower(m[2]), CommandsFence) {
			lines[i] = l[:len(l)-len(m[2])] + "text (not run: only the Commands section's block is)"
		}
	}
	return strings.Join(lines, "\n")
}

// Commands returns the commands of a recipe's machine-readable block, so a recipe
// can be replayed. The block is read from its own place only: the last "## Commands"
// section, whose one atesor-commands fence atesor writes; comment lines are skipped. A
// recipe with any other atesor-commands block (text someone added, or a name that was
// not escaped), with a block that is not closed, or with a command the block could not
// hold, is refused.
func Commands(md string) ([]string, error) {
	lines := strings.Split(md, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	heading := -1
	for i, l := range lines {
		if strings.TrimRight(l, " \t") == commandsHeading {
			heading = i
		}
	}
	if heading < 0 {
		return nil, fmt.Errorf("the recipe has no %q section with its %s block; only a recipe written by atesor port can be replayed", commandsHeading, CommandsFence)
	}
	open, closeAt, fence := -1, -1, ""
	for i := heading + 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "## ") {
			break
		}
		if open < 0 {
			if m := fenceLine.FindStringSubmatch(l); m != nil && strings.TrimSpace(m[2]) == CommandsFence && strings.HasPrefix(l, "`") {
				open, fence = i, m[1]
			}
			continue
		}
		if strings.TrimRight(l, " \t") == fence {
			closeAt = i
			break
		}
	}
	switch {
	case open < 0:
		return nil, fmt.Errorf("the recipe's %q section has no %s block", commandsHeading, CommandsFence)
	case closeAt < 0:
		return nil, fmt.Errorf("the %s block is not closed", CommandsFence)
	}
	for i, l := range lines {
		if i >= open && i <= closeAt {
			continue
		}
		if m := fenceLine.FindStringSubmatch(l); m != nil && strings.Contains(strings.ToLower(m[2]), CommandsFence) {
			return nil, fmt.Errorf("the recipe holds a second %s block (line %d) besides the one of its %q section; it was changed after atesor wrote it, so it is refused: port the package again, or remove the other block if you wrote it", CommandsFence, i+1, commandsHeading)
		}
	}
	var cmds []string
	for _, l := range lines[open+1 : closeAt] {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, strings.TrimSpace(unreplayableMark)) {
			return nil, fmt.Errorf("the port ran a command the recipe cannot hold as one plain line (%s): it cannot be replayed from the recipe", strings.TrimSpace(strings.TrimPrefix(l, strings.TrimSpace(unreplayableMark))))
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			cmds = append(cmds, l)
		}
	}
	return cmds, nil
}
