package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
	"github.com/eclipse-atesor/atesor-go/internal/pkgtree"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/source"
)

// finishNode ends a verified port: the package tests, the artifact curator, the recipe,
// the primary artifacts copied out, and, for a verified port only, learning and the
// recipe-cache entry. Learning comes last, after every output is on disk: a port whose
// outputs could not be written fails (see [run.failOutputs]) and teaches nothing.
func (r *run) finishNode(ctx context.Context, s *atesor.State) error {
	if s.Verified {
		s.Status = atesor.StatusVerified
		s.Tests = r.runTests(ctx, s)
		r.judgeTests(s)
		r.judgeRemovals(s)
	}
	r.curate(ctx, s)
	var outErrs []error
	refused := false
	if err := r.copyArtifacts(ctx, s); err != nil {
		r.log.Error("copy artifacts", "err", err)
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: "copying artifacts out failed", Err: err.Error()})
		switch {
		case hostileCopy(err) && s.Verified:
			// What comes out is not what was verified (or cannot come out safely): the
			// port is not verified, learns nothing and enters no cache.
			refused = true
			s.Verified, s.Status, s.FailureClass = false, atesor.StatusNotVerified, atesor.FailureVerify
			s.EscalationReason = "copy out: " + excerpt.FirstLine(err.Error())
			s.VerifyProblems = append(s.VerifyProblems, "copy out: "+err.Error())
		case !hostileCopy(err):
			outErrs = append(outErrs, fmt.Errorf("copy the artifacts out: %w", err))
		}
	}
	if refused {
		s.Recipe = recipe.AppendCommands(fallbackRecipe(s), s)
	} else {
		s.Recipe = recipe.AppendCommands(withTestEvidence(r.writeRecipe(ctx, s), s), s)
	}
	if s.Verified && s.Install != nil && len(s.Install.Files) > 0 { // nothing staged: no tarball
		if err := r.writeInstallTarball(ctx, s); err != nil {
			outErrs = append(outErrs, fmt.Errorf("write the install tarball: %w", err))
		}
	}
	if len(outErrs) == 0 {
		if err := r.writeOutputs(ctx, s); err != nil {
			outErrs = append(outErrs, err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err() // interrupted: resume runs finish again
	}
	if len(outErrs) > 0 {
		return r.failOutputs(ctx, s, errors.Join(outErrs...))
	}
	if s.Verified {
		r.learn(ctx, s)
	}
	return nil
}

// failOutputs ends a run whose outputs could not all be written: class infra, nothing
// learned or cached, the copied products (artifacts, install tarball) removed so that
// nothing half-written looks like a port's result, and the recipe and report rewritten
// to say so. The error is returned when even that cannot be written.
func (r *run) failOutputs(ctx context.Context, s *atesor.State, err error) error {
	r.log.Error("outputs not written: the run fails", "err", err)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: r.current, Line: "writing the outputs failed", Err: err.Error()})
	files := r.files()
	for _, k := range []string{atesor.FileArtifacts, atesor.FileInstall} {
		if rerr := os.RemoveAll(files[k]); rerr != nil {
			r.log.Warn("remove a partial output", "path", files[k], "err", rerr)
		}
	}
	s.Verified = false
	s.Status = atesor.StatusEscalated
	s.FailureClass = atesor.FailureInfra
	s.EscalationReason = "the outputs could not be written, so nothing was learned or cached (free space or fix the permissions of the output directory, then run again): " + err.Error()
	s.Recipe = recipe.AppendCommands(fallbackRecipe(s), s)
	if werr := r.writeOutputs(ctx, s); werr != nil {
		return fmt.Errorf("%w; the failed run's report could not be written either: %w", err, werr)
	}
	return nil
}

// escalateNode ends a run that did not verify: a report of why, with the last error,
// the last fixes and the failure class, and a recipe marked NOT VERIFIED.
func (r *run) escalateNode(ctx context.Context, s *atesor.State) error {
	s.Verified = false
	if s.FailureClass == atesor.FailureNone {
		s.FailureClass = atesor.FailureEscalated
	}
	switch {
	case s.FailureClass == atesor.FailureVerify || (s.BuildSucceeded && s.FailureClass == atesor.FailureBudget):
		s.Status = atesor.StatusNotVerified
	default:
		s.Status = atesor.StatusEscalated
	}
	if s.EscalationReason == "" && s.LastError != nil {
		s.EscalationReason = excerpt.FirstLine(s.LastError.Message)
	}
	s.EscalationReason += notBuiltHere(s.Request.Origin)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeEscalate, Line: fmt.Sprintf("%s (%s): %s", s.Status, s.FailureClass, s.EscalationReason)})
	s.Recipe = recipe.AppendCommands(fallbackRecipe(s), s)
	return r.writeOutputs(ctx, s)
}

// copyArtifacts copies the primary artifacts out to <repo>_artifacts/ within the run's
// copy-out bounds (see [sandbox.CopyOutFile]) and checks each copy's SHA-256 against
// the hash the artifact was verified with: a file the package's tests replaced or
// changed after verification does not come out.
func (r *run) copyArtifacts(ctx context.Context, s *atesor.State) error {
	out, err := os.OpenRoot(r.state.Request.OutputDir)
	if err != nil {
		return err
	}
	defer out.Close()
	dir := s.RepoName + "_artifacts"
	var errs []error
	for _, a := range s.Artifacts {
		if a.Role != atesor.ArtifactPrimary {
			continue
		}
		dest := path.Join(dir, pkgtree.Rel(s.RepoDir, a.Path))
		sum, err := sandbox.CopyOutFile(ctx, r.sb, a.Path, out, dest, r.copyBudget)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if a.SHA256 != "" && sum != a.SHA256 {
			_ = out.Remove(dest)
			errs = append(errs, &changedArtifactError{Path: a.Path, Want: a.SHA256, Got: sum})
		}
	}
	return errors.Join(errs...)
}

// changedArtifactError says that an artifact copied out is not the file that was
// verified: something (the package's tests, a process left running) changed it.
type changedArtifactError struct {
	Path, Want, Got string
}

func (e *changedArtifactError) Error() string {
	return fmt.Sprintf("%s changed after it was verified (SHA-256 %s, verified %s): it was not copied out", e.Path, e.Got, e.Want)
}

// hostileCopy reports whether a copy-out error comes from what the sandbox holds (a
// bound, a file that is not regular, an artifact changed after verification) rather
// than from the host.
func hostileCopy(err error) bool {
	var ce *changedArtifactError
	return sandbox.IsCopyLimit(err) || errors.As(err, &ce)
}

// clearRunOutputs empties the per-run outputs of name in the output directory
// (<name>_artifacts/, <name>_patches/, <name>_install.tar.gz) through an [os.Root] of
// it, so nothing an earlier run left there (a link to a host directory among them) is
// written through or mixed with this run's outputs. Links are removed, never followed.
func clearRunOutputs(outDir, name string) error {
	r, err := os.OpenRoot(outDir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	defer r.Close()
	for _, n := range []string{name + "_artifacts", name + "_patches", name + "_install.tar.gz"} {
		if err := osroot.RemoveAll(r, n); err != nil {
			return fmt.Errorf("empty the earlier run's %s in %s: %w", n, outDir, err)
		}
	}
	return nil
}

// learn saves the examples of a verified port and its recipe-cache entry
// (memory.Learn). A port marked tests_failing learns no example; its cache entry
// carries the mark.
func (r *run) learn(ctx context.Context, s *atesor.State) {
	if r.memory == nil {
		return
	}
	memory.Learn(ctx, r.memory, s, r.sourceKey(), r.p.opts.now(), r.log)
}

// sourceKey is how the recipe cache records the source: the absolute directory, the git
// URL, or the tarball path or URL (tarballs also match by SHA-256).
func (r *run) sourceKey() string {
	if r.src.Kind == source.Dir {
		return r.src.Dir
	}
	return source.RedactURL(r.src.Raw)
}

// notBuiltHere says, for a port of a distribution's source that the distribution itself
// does not build for riscv64 (libica's Architecture field is s390x), that the failure
// may well be the package's nature rather than something to repair; "" otherwise.
func notBuiltHere(o *atesor.DistroSource) string {
	if o == nil || debsrc.BuildsFor(o.Architectures, "riscv64") {
		return ""
	}
	distro := o.Distro
	if distro != "" {
		distro = strings.ToUpper(distro[:1]) + distro[1:]
	}
	return fmt.Sprintf(" (%s builds %s only for %s, not for riscv64: its source's Architecture field)", distro, o.Package, debsrc.ArchList(o.Architectures))
}
