package graph

import (
	"context"
	"fmt"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// The pipeline's side of hollow-port detection: init remembers the original tree, fix
// measures what each fix took from it, finish judges a verified port with removals, and
// the supervisor and the recipe say why a port is hollow. The rules are package
// verify's; these adapters read and write the state's parts they concern.

// snapshotOriginal remembers the original tree (the source on the host) at init.
func (r *run) snapshotOriginal(ctx context.Context, s *atesor.State) {
	if r.hostTree == "" {
		return
	}
	files, err := verify.OriginalSources(ctx, r.hostTree)
	if err != nil {
		r.log.Warn("removal tracking: could not measure the original tree", "err", err)
		return
	}
	s.OriginalSources = files
}

// trackRemovals measures the tree after the last fix and records what the fixes took
// from the original tree: new removals are charged to the last fix (FixAttempt.Removed);
// State.Removals is the current set (a file put back is no longer a removal).
func (r *run) trackRemovals(ctx context.Context, s *atesor.State) {
	if len(s.OriginalSources) == 0 || len(s.FixAttempts) == 0 {
		return
	}
	last := &s.FixAttempts[len(s.FixAttempts)-1]
	current, err := verify.TrackRemovals(ctx, r.sb, s.RepoDir, s.OriginalSources, s.Removals, last, r.emitFrom(NodeFix))
	if err != nil {
		r.log.Warn("removal tracking: could not measure the tree after the fix", "err", err)
		return
	}
	s.Removals = current
}

// judgeRemovals is finish's rule for a verified port whose fixes removed code: it stays
// verified only when its exports are complete and its package tests ran and passed;
// otherwise it is not verified (class verify), with a reason naming what was removed.
func (r *run) judgeRemovals(s *atesor.State) {
	if !s.Verified || len(s.Removals) == 0 {
		return
	}
	reason := verify.JudgeRemovals(s.Removals, s.Exports, s.Tests)
	if reason == "" {
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: "removals proven: exports complete and package tests passed (" + verify.RemovalList(s.Removals, 5) + ")"})
		return
	}
	s.Verified = false
	s.Status = atesor.StatusNotVerified
	s.FailureClass = atesor.FailureVerify
	s.EscalationReason = reason
	s.VerifyProblems = append(s.VerifyProblems, reason)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: "not verified", Err: reason})
}

// hollowReason says why a built port is not proven when its exports are incomplete
// ("missing functions: a, b; removed: ..."), or "".
func hollowReason(s *atesor.State) string {
	if !s.BuildSucceeded || s.Verified {
		return ""
	}
	return verify.HollowReason(s.Exports, s.Removals)
}

// hollowEvidence is the recipe's paragraph on removals and exports (see verify.Evidence).
func hollowEvidence(s *atesor.State) string {
	return verify.Evidence(s.Exports, s.FixAttempts, s.Removals)
}

// changedByFixes maps each repository file a fix took away or changed to what was done
// to it: removals measured against the original tree, patches, files a fix wrote, and
// source files a fix's command edited.
func changedByFixes(s *atesor.State) map[string]string {
	out := map[string]string{}
	for _, rm := range s.Removals {
		out[rm.File] = rm.String()
	}
	for _, p := range s.Patches {
		if _, ok := out[p.File]; !ok {
			out[p.File] = "patched by " + p.Name
		}
	}
	for _, f := range s.FixAttempts {
		for _, p := range f.Files {
			if _, ok := out[p]; !ok {
				out[p] = fmt.Sprintf("written by fix %d", f.Attempt)
			}
		}
	}
	for _, p := range sourceFilesChanged(s) {
		if _, ok := out[p]; !ok {
			out[p] = "edited by a fix's command"
		}
	}
	return out
}
