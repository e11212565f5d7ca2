package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/internal/fixfiles"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// verifyNode decides, strictly, whether the port is proven: the build succeeded, at least
// one primary artifact exists, every primary artifact is a riscv64 ELF for the profile's
// ABI and loader produced by this build, no fix wrote a stub, and each primary program
// starts and each primary library's needed libraries resolve (see verify.Port). This
// node finds the artifacts the build produced, chooses their roles and records the
// verdict in the state.
func (r *run) verifyNode(ctx context.Context, s *atesor.State) error {
	s.Verified = false
	arts, err := verify.ScanArtifacts(ctx, r.sb, s.RepoDir, r.log)
	if err != nil {
		return fmt.Errorf("scan artifacts: %w", err)
	}
	// Shipped with the source, not produced by this build; or staged by the install
	// step, whose files chooseArtifacts judges apart.
	built, shippedSHA := verify.Produced(arts, s.SourceELFs, func(p string) bool { return install.InStage(s.RepoDir, p) })
	built = r.chooseArtifacts(ctx, s, verify.CurateByRules(built, s.RepoName, s.RepoDir), shippedSHA)
	res := verify.Port(ctx, r.sb, r.verifyInput(s), built, r.emitFrom(NodeVerify))
	s.Artifacts = res.Artifacts
	if res.ExportsChecked {
		s.Exports = res.Exports
	}
	s.MissingArtifacts = res.MissingArtifacts
	problems := res.Problems
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
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeVerify, Line: fmt.Sprintf("verified: %d primary artifacts", res.Primaries)})
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

// verifyInput is what verification reads of the state.
func (r *run) verifyInput(s *atesor.State) verify.Input {
	return verify.Input{
		RepoDir: s.RepoDir, RepoName: s.RepoName, Platform: s.Platform, Source: s.Request.Source, Origin: s.Request.Origin,
		Mirror: r.p.cfg.DebianMirror, DistCache: r.p.cfg.cacheDir("debian-binaries"), Install: s.Install, Removals: s.Removals, Changed: fixfiles.ByFix(s),
		StubFiles: s.StubFiles, Analysis: s.Analysis,
	}
}
