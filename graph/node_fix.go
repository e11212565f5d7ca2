package graph

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/validate"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// Investigation limits of the seed.
const (
	maxInvestigations    = 4
	investigationOutput  = 1500
	investigationTimeout = time.Minute
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
		out := r.investigate(ctx, s, proposal.Investigate.Commands)
		s.InvestigationUsed = true
		proposal = r.askFixer(ctx, s, evidence, false, out)
	}
	if proposal == nil || proposal.Recommended() == nil {
		// The seed's fixer fallback: no deterministic fix, the attempt counts as invalid.
		r.emit(atesor.Event{Kind: atesor.EventFallback, Node: NodeFix, Role: string(atesor.RoleFixer), Label: "fixer",
			Line: "the fixer gave no valid answer: the attempt is recorded as an invalid fix"})
		return r.rejectFix(s, "no valid answer from the fixer")
	}
	strat := proposal.Recommended()
	attempt := atesor.FixAttempt{
		Attempt: len(s.FixAttempts) + 1, Error: firstLine(last.Message), ErrorCategory: last.Category,
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
	root := r.hostTree
	if hp, ok := hostPather(r.sb); ok {
		if p, err := hp.HostPath(s.RepoDir); err == nil {
			root = p
		}
	}
	var prev []string
	for i := max(0, len(s.FixAttempts)-5); i < len(s.FixAttempts); i++ {
		f := s.FixAttempts[i]
		var cmds []string
		for _, a := range f.Actions {
			cmds = append(cmds, describeAction(a))
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
		"FailedCommand": last.Command, "Error": cut(last.Message, maxErrorChars),
		"Excerpts": knowledge.ErrorExcerpts(last.Message, root), "Analysis": compactAnalysis(s.Analysis),
		"BuildSystem": bs, "CompletedPhases": strings.Join(s.CompletedPhases, ", "),
		"Tree": cut(treeListing(r.hostTree), 500), "Findings": strings.Join(findings, "\n"),
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
			if n := len(p.Investigate.Commands); n == 0 || n > maxInvestigations {
				return fmt.Errorf("investigate.commands must hold 1 to %d commands, got %d", maxInvestigations, n)
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

// investigate runs the read-only commands without network and keeps the first 1500
// characters of each output.
func (r *run) investigate(ctx context.Context, s *atesor.State, cmds []string) string {
	var b strings.Builder
	for i, c := range cmds {
		if i == maxInvestigations {
			break
		}
		if err := validate.InvestigationCommand(c); err != nil {
			fmt.Fprintf(&b, "$ %s\nrefused: %v\n\n", c, err)
			continue
		}
		r.emit(atesor.Event{Kind: atesor.EventCommand, Node: NodeFix, Phase: "investigate", Line: c})
		res, err := r.sb.Exec(ctx, atesor.Command{Line: c, Dir: s.RepoDir, Timeout: investigationTimeout})
		if err != nil {
			fmt.Fprintf(&b, "$ %s\nfailed to run: %v\n\n", c, err)
			continue
		}
		fmt.Fprintf(&b, "$ %s\n%s\n[exit %d]\n\n", c, cut(res.Output, investigationOutput), res.ExitCode)
	}
	return b.String()
}

// applyActions applies a strategy's actions in order. attempt, when not nil, records the
// commands run and the files written. create_file goes through the sandbox's safe write;
// a patch is applied with patch(1) and kept for the recipe; a command passes FixCommand
// again.
func (r *run) applyActions(ctx context.Context, s *atesor.State, actions []atesor.Action, attempt *atesor.FixAttempt) error {
	for _, a := range actions {
		switch a.Type {
		case atesor.ActionCommand:
			if err := validate.FixCommand(a.Command); err != nil {
				return fmt.Errorf("command %q: %w", a.Command, err)
			}
			r.emit(atesor.Event{Kind: atesor.EventCommand, Node: NodeFix, Phase: "apply", Line: a.Command})
			log := r.startLog(a.Command)
			lw := (&lineWriter{r: r, node: NodeFix, phase: "apply"}).teeTo(log)
			res, err := r.sb.Exec(ctx, atesor.Command{Line: a.Command, Dir: s.RepoDir, Network: true, Stdout: lw, Stderr: lw, Env: buildEnv(s)})
			log.end(res)
			if err != nil {
				return fmt.Errorf("run %q: %w", a.Command, err)
			}
			if !res.OK() {
				return fmt.Errorf("fix command %q failed with exit %d: %s", a.Command, res.ExitCode, firstLine(extractError(res.Output)))
			}
			s.ExecutedCommands = append(s.ExecutedCommands, a.Command)
			if attempt != nil {
				attempt.Commands = append(attempt.Commands, a.Command)
			}
		case atesor.ActionCreateFile:
			p := path.Join(s.RepoDir, path.Clean("/"+a.Path))
			// Whether the file is new; one too large to read or not a regular file exists.
			_, statErr := sandbox.ReadBounded(ctx, r.sb, p, sandbox.BoundSource)
			isNew := statErr != nil && !errors.Is(statErr, sandbox.ErrTooLarge) && !errors.Is(statErr, sandbox.ErrNotRegular)
			if err := r.sb.WriteFile(ctx, p, []byte(a.Content), fs.FileMode(0o644)); err != nil {
				return fmt.Errorf("create %s: %w", a.Path, err)
			}
			if verify.IsStub(a.Path, a.Content, isNew) && !contains(s.StubFiles, a.Path) {
				s.StubFiles = append(s.StubFiles, a.Path)
			}
			if attempt != nil {
				attempt.Files = append(attempt.Files, a.Path)
				s.Patches = append(s.Patches, atesor.Patch{Name: patchName(len(s.Patches)+1, a.Path), File: a.Path, Diff: newFileDiff(a.Path, a.Content)})
			}
		case atesor.ActionPatch:
			if err := r.applyPatch(ctx, s, a); err != nil {
				return err
			}
			if attempt != nil {
				attempt.Files = append(attempt.Files, a.File)
				s.Patches = append(s.Patches, atesor.Patch{Name: patchName(len(s.Patches)+1, a.File), File: a.File, Diff: a.Diff})
			}
		default:
			return fmt.Errorf("unknown action type %q", a.Type)
		}
	}
	return nil
}

const patchFile = ".atesor-fix.patch"

// applyPatch writes the diff into the repository and applies it with patch(1), trying
// -p1 (a/ b/ prefixes) then -p0.
func (r *run) applyPatch(ctx context.Context, s *atesor.State, a atesor.Action) error {
	p := path.Join(s.RepoDir, patchFile)
	diff := a.Diff
	if !strings.HasSuffix(diff, "\n") {
		diff += "\n"
	}
	if err := r.sb.WriteFile(ctx, p, []byte(diff), 0o644); err != nil {
		return fmt.Errorf("patch %s: %w", a.File, err)
	}
	defer r.sb.Exec(ctx, atesor.Command{Line: "rm -f " + patchFile, Dir: s.RepoDir}) //nolint:errcheck // best effort
	var last atesor.CommandResult
	for _, level := range []string{"-p1", "-p0"} {
		res, err := r.sb.Exec(ctx, atesor.Command{Line: "patch --batch --forward " + level + " -i " + patchFile, Dir: s.RepoDir, Timeout: time.Minute})
		if err != nil {
			return fmt.Errorf("patch %s: %w", a.File, err)
		}
		if res.OK() {
			return nil
		}
		last = res
	}
	return fmt.Errorf("patch for %s does not apply: %s", a.File, firstLine(last.Output))
}

func newFileDiff(p, content string) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

func describeAction(a atesor.Action) string {
	switch a.Type {
	case atesor.ActionCommand:
		return a.Command
	case atesor.ActionCreateFile:
		return "create " + a.Path
	case atesor.ActionPatch:
		return "patch " + a.File
	}
	return string(a.Type)
}
