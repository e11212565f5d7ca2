package graph

import (
	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// The platform's package-name corrections (zlib-dev is zlib1g-dev on Debian) are made
// here, when a plan, a fix or an investigation enters the run, and nowhere later: the
// line that is validated is the line recorded in the state and the recipe, and the
// line the sandbox runs. A sandbox that rewrote lines itself would run a command no
// rule had checked.

// correctedPlan returns a copy of p with the corrections made in every command and
// test command (the original may be shared with a cache entry or a rule's fix).
func correctedPlan(pl atesor.Platform, p atesor.BuildPlan) atesor.BuildPlan {
	out := p
	out.Phases = make([]atesor.Phase, len(p.Phases))
	for i, ph := range p.Phases {
		ph.Commands = correctedLines(pl, ph.Commands)
		out.Phases[i] = ph
	}
	return out
}

// correctedLines returns a copy of lines with the corrections made.
func correctedLines(pl atesor.Platform, lines []string) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = knowledge.CorrectInstallCommand(pl, l)
	}
	return out
}

// correctedActions returns a copy of actions whose command actions have the
// corrections made.
func correctedActions(pl atesor.Platform, actions []atesor.Action) []atesor.Action {
	if actions == nil {
		return nil
	}
	out := make([]atesor.Action, len(actions))
	for i, a := range actions {
		if a.Type == atesor.ActionCommand {
			a.Command = knowledge.CorrectInstallCommand(pl, a.Command)
		}
		out[i] = a
	}
	return out
}

// correctProposal makes the corrections in a fixer answer, in place: every strategy's
// commands and the investigation commands.
func correctProposal(pl atesor.Platform, p *atesor.FixProposal) {
	for i := range p.Strategies {
		p.Strategies[i].Actions = correctedActions(pl, p.Strategies[i].Actions)
	}
	if p.Investigate != nil {
		p.Investigate.Commands = correctedLines(pl, p.Investigate.Commands)
	}
}
