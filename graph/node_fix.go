package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/fixapply"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// invalidFix starts the error recorded when the fixer gave nothing that could be applied.
const invalidFix = "FIXER proposed invalid fix"

// fixNode repairs the last failure: first with the scripted repair rules (package
// repair), which need no model; then, when none applies, by asking the fixer (fixer role)
// with one bounded investigation round and applying the recommended strategy. After a
// fix it measures what the fixes removed from the original tree (see trackRemovals).
func (r *run) fixNode(ctx context.Context, s *atesor.State) error {
	n := len(s.FixAttempts)
	err := r.fix(ctx, s)
	if len(s.FixAttempts) > n && ctx.Err() == nil {
		r.trackRemovals(ctx, s)
	}
	return err
}

// fix is fixNode without the removal tracking.
func (r *run) fix(ctx context.Context, s *atesor.State) error {
	s.FixInvalid = false
	last := s.LastError
	if last == nil {
		return r.rejectFix(s, "there is no failure to fix")
	}
	applied, notes := r.scriptedFix(ctx, s, last)
	if applied || ctx.Err() != nil {
		return ctx.Err()
	}
	if r.provider == nil {
		return r.recordNoRepair(s, offlineNoRepair(notes))
	}
	evidence := r.fixEvidence(ctx, s, last)
	if len(notes) > 0 {
		evidence["PreviousFixes"] = strings.TrimSpace(evidence["PreviousFixes"].(string) + "\n- scripted rules that could not help: " + strings.Join(notes, "; "))
	}
	proposal := r.askFixer(ctx, s, evidence, true, "")
	if proposal != nil && proposal.Investigate != nil && len(proposal.Strategies) == 0 {
		out := fixapply.Investigate(ctx, r.sb, s.RepoDir, proposal.Investigate.Commands, r.emitFix)
		s.InvestigationUsed = true
		proposal = r.askFixer(ctx, s, evidence, false, out)
	}
	if proposal == nil || proposal.Recommended() == nil {
		// The fixer's fallback: there is no deterministic fix to make, so the attempt
		// counts as invalid and the supervisor decides what comes next.
		r.emit(atesor.Event{Kind: atesor.EventFallback, Node: NodeFix, Role: string(atesor.RoleFixer), Label: "fixer",
			Line: "the fixer gave no valid answer: the attempt is recorded as an invalid fix"})
		return r.rejectFix(s, "no valid answer from the fixer")
	}
	strat := proposal.Recommended()
	attempt := atesor.FixAttempt{
		Attempt: len(s.FixAttempts) + 1, Error: excerpt.FirstLine(last.Message), ErrorCategory: last.Category,
		Source: atesor.FixSourceModel, Analysis: proposal.Analysis, Strategy: strat.Description, Actions: strat.Actions, Timestamp: r.p.opts.now().UTC(),
	}
	r.emit(atesor.Event{Kind: atesor.EventPhase, Node: NodeFix, Phase: "apply", Line: strat.Description})
	if err := r.applyActions(ctx, s, strat.Actions, &attempt); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.FixAttempts = append(s.FixAttempts, attempt)
		return r.rejectFix(s, err.Error())
	}
	s.FixAttempts = append(s.FixAttempts, attempt)
	return nil
}

// rejectFix records an invalid fix; it counts as an attempt.
func (r *run) rejectFix(s *atesor.State, why string) error {
	return r.recordFailedFix(s, invalidFix, why)
}

// noRepair starts the error recorded when nothing could be tried: no scripted rule
// repairs the failure and there is no model to ask. No fixer ran, so the record must
// not say that one proposed something.
const noRepair = "no repair"

// recordNoRepair records that offline, nothing could repair the failure; like an
// invalid fix it counts as an attempt, so the attempt bound ends the run.
func (r *run) recordNoRepair(s *atesor.State, why string) error {
	return r.recordFailedFix(s, noRepair, why)
}

func (r *run) recordFailedFix(s *atesor.State, headline, why string) error {
	s.FixInvalid = true
	s.Errors = append(s.Errors, atesor.ErrorRecord{Node: NodeFix, Message: headline + ": " + why,
		Category: atesor.CategoryUnknown, Timestamp: r.p.opts.now().UTC()})
	s.Status = atesor.StatusFailed
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFix, Line: headline, Err: why})
	return nil
}

// offlineNoRepair says why an offline run could not repair a failure: which scripted
// rules were tried and what each found, or that none applies to it.
func offlineNoRepair(notes []string) string {
	if len(notes) == 0 {
		return "no scripted rule applies to this failure and no model is configured (offline)"
	}
	return "no scripted rule repairs this (rules tried: " + strings.Join(notes, "; ") + ") and no model is configured (offline)"
}

// fixEvidence is the part of the fixer prompt that stays the same across its rounds.
func (r *run) fixEvidence(ctx context.Context, s *atesor.State, last *atesor.ErrorRecord) map[string]any {
	root := r.liveTree(s)
	var prev []string
	for i := max(0, len(s.FixAttempts)-5); i < len(s.FixAttempts); i++ {
		f := s.FixAttempts[i]
		var cmds []string
		for _, a := range f.Actions {
			cmds = append(cmds, fixapply.Describe(a))
		}
		by := ""
		if f.Source == atesor.FixSourceScripted {
			by = " (scripted rule " + f.Rule + ")"
		}
		prev = append(prev, fmt.Sprintf("- attempt %d%s for %q: %s [%s] (build after it succeeded: %t)", f.Attempt, by, f.Error, f.Strategy, strings.Join(cmds, "; "), f.Success))
	}
	var findings []string
	if s.Detection != nil {
		for _, f := range s.Detection.ArchFindings {
			if len(findings) == 5 {
				break
			}
			if f.Severity == atesor.SeverityHigh || f.Severity == atesor.SeverityCritical {
				findings = append(findings, fmt.Sprintf("- %s:%d %s: %s", f.File, f.Line, f.Kind, f.Snippet))
			}
		}
	}
	bs := atesor.BuildUnknown
	if s.Detection != nil {
		bs = s.Detection.BuildSystem
	}
	return map[string]any{
		"Banner": knowledge.Banner(s.Platform), "Repo": s.RepoName, "RepoDir": s.RepoDir,
		"FailedCommand": last.Command, "Error": excerpt.Head(last.Message, maxErrorChars),
		"Excerpts": knowledge.ErrorExcerpts(last.Message, root), "Analysis": compactAnalysis(s.Analysis),
		"BuildSystem": bs, "CompletedPhases": strings.Join(s.CompletedPhases, ", "),
		"Tree": excerpt.Head(treeListing(r.hostTree), 500), "Findings": strings.Join(findings, "\n"),
		"PreviousFixes": strings.Join(prev, "\n"), "Knowledge": knowledge.Summary(s.Platform),
		"Examples": r.examples(ctx, atesor.AgentFixer, s, last.Message), "InstallCommand": s.Platform.InstallCommand,
		"Shape": validate.SchemaText[atesor.FixProposal](), "Removals": verify.RemovalList(s.Removals, 5),
	}
}

// askFixer asks for a fix, or in the first round (mayInvestigate) for an investigation.
func (r *run) askFixer(ctx context.Context, s *atesor.State, evidence map[string]any, mayInvestigate bool, investigation string) *atesor.FixProposal {
	data := make(map[string]any, len(evidence)+2)
	for k, v := range evidence {
		data[k] = v
	}
	data["MayInvestigate"] = mayInvestigate
	data["Investigation"] = investigation
	prompt, err := render("fixer", data)
	if err != nil {
		r.log.Error("fixer prompt", "err", err)
		return nil
	}
	p := askJSON(ctx, r, s, atesor.RoleFixer, "fixer", prompt, func(p *atesor.FixProposal) error {
		// The corrected commands are the ones validated, recorded and run.
		knowledge.CorrectProposal(s.Platform, p)
		if p.Investigate != nil && len(p.Strategies) == 0 {
			if !mayInvestigate {
				return errors.New("the investigation round is used up: answer with strategies and a recommended_strategy_id")
			}
			if n := len(p.Investigate.Commands); n == 0 || n > fixapply.MaxInvestigations {
				return fmt.Errorf("investigate.commands must hold 1 to %d commands, got %d", fixapply.MaxInvestigations, n)
			}
			for _, c := range p.Investigate.Commands {
				if err := validate.InvestigationCommand(c); err != nil {
					return fmt.Errorf("investigation command %q: %w", c, err)
				}
			}
			return nil
		}
		return validate.FixProposal(p, s.RepoDir)
	})
	return p
}

// emitFix emits an event of the fix node.
func (r *run) emitFix(e atesor.Event) {
	e.Node = NodeFix
	r.emit(e)
}

// applyActions applies a strategy's actions in order (fixapply) and records what they
// did: the commands run for the recipe's replay block, the stub files created and, with
// an attempt, the attempt's commands and files and the recipe's patches.
func (r *run) applyActions(ctx context.Context, s *atesor.State, actions []atesor.Action, attempt *atesor.FixAttempt) error {
	done, err := r.fixApplier(s).Apply(ctx, actions)
	s.ExecutedCommands = append(s.ExecutedCommands, done.Commands...)
	for _, f := range done.Stubs {
		if !slices.Contains(s.StubFiles, f) {
			s.StubFiles = append(s.StubFiles, f)
		}
	}
	if attempt != nil {
		attempt.Commands = append(attempt.Commands, done.Commands...)
		attempt.Files = append(attempt.Files, done.Files...)
		for _, p := range done.Patches {
			p.Name = patchName(len(s.Patches)+1, p.File)
			s.Patches = append(s.Patches, p)
		}
	}
	return err
}

// fixApplier applies fixes in the run's package tree, with the build's environment;
// a command's output streams to the events and the build log.
func (r *run) fixApplier(s *atesor.State) fixapply.Applier {
	return fixapply.Applier{Sandbox: r.sb, RepoDir: s.RepoDir, Env: buildEnv(s), Emit: r.emitFix,
		Output: func(line string) (io.Writer, func(atesor.CommandResult)) {
			log := r.startLog(line)
			return (&lineWriter{r: r, node: NodeFix, phase: "apply"}).teeTo(log), log.end
		}}
}
