package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/pkgtree"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// verifyNode decides, strictly, whether the port is proven: the build succeeded, at least
// one primary artifact exists, every primary artifact is a riscv64 ELF for the profile's
// ABI and loader produced by this build, no fix wrote a stub, and each primary program
// starts and each primary library's needed libraries resolve. The checks are package
// verify's; this node chooses the artifacts and records the outcome in the state.
func (r *run) verifyNode(ctx context.Context, s *atesor.State) error {
	s.Verified = false
	arts, err := verify.ScanArtifacts(ctx, r.sb, s.RepoDir, r.log)
	if err != nil {
		return fmt.Errorf("scan artifacts: %w", err)
	}
	var problems []string
	shipped, shippedSHA := map[string]bool{}, map[string]bool{}
	for _, e := range s.SourceELFs {
		shipped[e] = true
		shippedSHA[e[strings.LastIndexByte(e, '@')+1:]] = true
	}
	var built []atesor.Artifact
	for _, a := range arts {
		if shipped[a.Path+"@"+a.SHA256] || inStage(s.RepoDir, a.Path) {
			continue // shipped with the source, not produced by this build; or staged
		}
		built = append(built, a)
	}
	built = r.chooseArtifacts(ctx, s, verify.CurateByRules(built, s.RepoName, s.RepoDir), shippedSHA)
	s.Artifacts = built
	primaries := 0
	for i := range built {
		a := &built[i]
		if a.Role != atesor.ArtifactPrimary {
			continue
		}
		primaries++
		if err := verify.CheckArtifact(*a, s.Platform); err != nil {
			a.Problem = err.Error()
			problems = append(problems, fmt.Sprintf("%s: %v", rel(s.RepoDir, a.Path), err))
		}
	}
	if primaries == 0 {
		problems = append(problems, "no primary artifact: the build produced no riscv64 program or library outside tests and build scratch directories")
	}
	for _, f := range s.StubFiles {
		problems = append(problems, fmt.Sprintf("%s: a fix wrote a stub (a new source file defining an entry point, or a build file that compiles nothing); fix the real sources instead", f))
	}
	if len(problems) == 0 {
		problems = append(problems, verify.Smoke(ctx, r.sb, s.RepoDir, built)...)
	}
	if len(problems) == 0 {
		var exportProblems []string
		s.Exports, exportProblems = verify.Exports(ctx, r.sb, r.exportInput(s), built, r.emitFrom(NodeVerify))
		problems = append(problems, exportProblems...)
	}
	s.MissingArtifacts = verify.MissingExpected(s.Analysis, built)
	if len(problems) > 0 {
		s.VerifyProblems = problems
		s.Status = atesor.StatusNotVerified
		s.Record(atesor.ErrorRecord{Node: NodeVerify, Message: "verification failed: " + strings.Join(problems, "; "),
			Category: atesor.CategoryArchitecture})
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeVerify, Line: "not verified", Err: problems[0]})
		return nil
	}
	s.VerifyProblems = nil
	s.Verified = true
	s.Status = atesor.StatusVerified
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeVerify, Line: fmt.Sprintf("verified: %d primary artifacts", primaries)})
	return nil
}

// emitFrom returns an emit function for a package working for node: its events are the
// node's.
func (r *run) emitFrom(node string) func(atesor.Event) {
	return func(e atesor.Event) {
		if e.Node == "" {
			e.Node = node
		}
		r.emit(e)
	}
}

// exportInput is what the export check reads of the state.
func (r *run) exportInput(s *atesor.State) verify.ExportInput {
	return verify.ExportInput{
		RepoDir: s.RepoDir, RepoName: s.RepoName, Source: s.Request.Source, Origin: s.Request.Origin,
		Platform: s.Platform, Mirror: r.p.cfg.DebianMirror, Install: s.Install, Removals: s.Removals, Changed: changedByFixes(s),
	}
}

func rel(root, p string) string { return pkgtree.Rel(root, p) }
