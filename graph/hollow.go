package graph

import (
	"context"

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
