package knowledge

import (
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// CorrectInstallCommand rewrites the package names of every install command in a shell
// command line (apt-get/apt install, apk add) with the profile's name corrections, so
// `apt-get install -y zlib-dev` becomes `apt-get install -y zlib1g-dev` on Debian. Version
// and architecture suffixes (`pkg=1.2`, `pkg:riscv64`) are kept. Everything else in the
// line, spacing and quoted words included, is left as it is, and a line that does not
// parse is returned unchanged. The line is read with the same shell parser as the
// command rules (internal/shellwords), so the words corrected are the words validated.
// The pipeline applies it to plan, fix and investigation lines before it validates,
// records and runs them: the line that runs is the line that was checked.
func CorrectInstallCommand(p atesor.Platform, line string) string {
	if len(p.Corrections) == 0 || line == "" {
		return line
	}
	f, err := shellwords.Parse(line)
	if err != nil {
		return line
	}
	var reps []shellwords.Replacement
	for _, cmd := range shellwords.Commands(f) {
		for _, w := range installArgs(cmd) {
			if !w.Plain {
				continue
			}
			name, rest := splitPackageSpec(w.Value)
			if to, ok := p.Corrections[name]; ok {
				reps = append(reps, shellwords.Replacement{Start: w.Start, End: w.End, Text: to + rest})
			}
		}
	}
	return shellwords.Apply(line, reps)
}

// installValueOptions are the options of apt-get, apt and apk that take a separate value.
var installValueOptions = map[string]bool{"-o": true, "-t": true, "--target-release": true, "--repository": true, "-X": true, "--root": true, "-p": true, "-c": true, "--config-file": true}

// installArgs returns the package words of an install command, or nil when cmd is not
// one: the words after apt-get/apt/aptitude install or apk add that are not options or
// option values.
func installArgs(cmd shellwords.Command) []shellwords.Word {
	i := cmd.Program()
	if i < 0 {
		return nil
	}
	var sub string
	switch cmd.Name() {
	case "apt-get", "apt", "aptitude":
		sub = "install"
	case "apk":
		sub = "add"
	default:
		return nil
	}
	words := cmd.Words[i+1:]
	j := 0
	for j < len(words) && strings.HasPrefix(words[j].Value, "-") {
		if installValueOptions[words[j].Value] {
			j++
		}
		j++
	}
	if j >= len(words) || !words[j].Static || words[j].Value != sub {
		return nil
	}
	var pkgs []shellwords.Word
	for k := j + 1; k < len(words); k++ {
		t := words[k].Value
		if strings.HasPrefix(t, "-") {
			if installValueOptions[t] {
				k++
			}
			continue
		}
		pkgs = append(pkgs, words[k])
	}
	return pkgs
}

// splitPackageSpec separates a package name from a version, architecture or release
// suffix: zlib1g-dev=1:1.3, zlib1g-dev:riscv64, zlib-dev>1.2, pkg/trixie.
func splitPackageSpec(w string) (name, rest string) {
	if i := strings.IndexAny(w, "=<>:/~"); i > 0 {
		return w[:i], w[i:]
	}
	return w, ""
}

// The corrections are made when a plan, a fix or an investigation enters a run, and
// nowhere later: the line that is validated is the line recorded in the state and the
// recipe, and the line the sandbox runs. A sandbox that rewrote lines itself would run
// a command no rule had checked.

// CorrectedPlan returns a copy of plan with [CorrectInstallCommand] applied to every
// command (the original may be shared with a cache entry or a rule's fix).
func CorrectedPlan(p atesor.Platform, plan atesor.BuildPlan) atesor.BuildPlan {
	out := plan
	out.Phases = make([]atesor.Phase, len(plan.Phases))
	for i, ph := range plan.Phases {
		ph.Commands = CorrectedLines(p, ph.Commands)
		out.Phases[i] = ph
	}
	return out
}

// CorrectedLines returns a copy of lines with [CorrectInstallCommand] applied to each.
func CorrectedLines(p atesor.Platform, lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = CorrectInstallCommand(p, l)
	}
	return out
}

// CorrectedActions returns a copy of actions whose command actions have
// [CorrectInstallCommand] applied; files and patches are left as they are.
func CorrectedActions(p atesor.Platform, actions []atesor.Action) []atesor.Action {
	if actions == nil {
		return nil
	}
	out := make([]atesor.Action, len(actions))
	for i, a := range actions {
		if a.Type == atesor.ActionCommand {
			a.Command = CorrectInstallCommand(p, a.Command)
		}
		out[i] = a
	}
	return out
}

// CorrectProposal makes the corrections in a fixer answer, in place: every strategy's
// commands and the investigation commands.
func CorrectProposal(p atesor.Platform, fp *atesor.FixProposal) {
	for i := range fp.Strategies {
		fp.Strategies[i].Actions = CorrectedActions(p, fp.Strategies[i].Actions)
	}
	if fp.Investigate != nil {
		fp.Investigate.Commands = CorrectedLines(p, fp.Investigate.Commands)
	}
}
