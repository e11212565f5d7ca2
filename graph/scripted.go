package graph

import (
	"context"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// repairOptions configure the scripted repairs of the fix node.
type repairOptions struct {
	off      bool
	packages repair.PackageFinder
}

// WithoutScriptedRepairs turns the scripted repair rules (package repair) off: every fix
// comes from the model, and an offline run escalates at its first failure.
func WithoutScriptedRepairs() Option {
	return func(o *options) { o.repair.off = true }
}

// WithPackageFinder sets the index the missing-package rule looks files up in. By
// default a Debian platform uses the archive's Contents index for riscv64, downloaded
// once from Config.DebianMirror (empty: the mirror of the host's apt configuration) and
// cached under Config.Home (<Home>/cache/contents).
func WithPackageFinder(f repair.PackageFinder) Option {
	return func(o *options) { o.repair.packages = f }
}

// packageFinder is the missing-package rule's index for this run.
func (r *run) packageFinder(ctx context.Context, s *atesor.State) repair.PackageFinder {
	if r.p.opts.repair.packages != nil {
		return r.p.opts.repair.packages
	}
	if s.Platform.PackageManager != "apt-get" && s.Platform.PackageManager != "apt" {
		return nil
	}
	return r.p.contents.Finder(ctx, s.Platform, repair.IndexSource{Mirror: r.p.cfg.DebianMirror, CacheDir: r.p.cfg.cacheDir("contents")}, func(err error) {
		r.log.Warn("scripted repairs: no Contents index", "err", err)
	})
}

// failureOf is the repair package's view of a build error record.
func failureOf(last *atesor.ErrorRecord, output string) repair.Failure {
	return repair.Failure{Category: last.Category, Message: last.Message, Output: output, Phase: last.Phase, Command: last.Command}
}

// scriptedClaims reports whether a scripted rule not yet tried answers the last build
// failure. It does no I/O, so the supervisor can route an offline run to the fix node.
func scriptedClaims(s *atesor.State) bool {
	last := s.LastError
	if last == nil || last.Node != NodeBuild || strings.HasPrefix(last.Message, emulatorFaultPrefix) {
		return false
	}
	if s.LastNode == NodeFix && s.FixInvalid {
		return false // the fix node just tried them on this failure and none could help
	}
	return len(repair.Claims(failureOf(last, ""), repair.TriedIn(func() []atesor.FixAttempt { return s.FixAttempts }))) > 0
}

// scriptedFix runs the scripted repair rules (repair.Run) on the last build failure and
// applies the first fix one makes, as an ordinary fix attempt. It reports whether a fix
// was applied, and notes on rules that claimed the failure but could not help.
func (r *run) scriptedFix(ctx context.Context, s *atesor.State, last *atesor.ErrorRecord) (bool, []string) {
	if r.p.opts.repair.off || last.Node != NodeBuild || strings.HasPrefix(last.Message, emulatorFaultPrefix) {
		return false, nil
	}
	res := repair.Run(ctx, repair.Input{
		Failure: failureOf(last, r.lastOutput), Platform: s.Platform, Detection: s.Detection,
		Plan: s.Plan, Completed: s.CompletedPhases, RepoDir: s.RepoDir, Tree: r.liveTree(s),
		Sandbox: r.sb, Packages: r.packageFinder(ctx, s), Fixes: s.FixAttempts,
		Apply: func(ctx context.Context, actions []atesor.Action, attempt *atesor.FixAttempt) error {
			return r.applyActions(ctx, s, actions, attempt)
		},
		Emit: func(e atesor.Event) { r.emitScriptedFix(e.Rule, e.Line) },
		Now:  r.p.opts.now,
	})
	s.FixAttempts = append(s.FixAttempts, res.Attempts...)
	if res.Applied == nil {
		return false, res.Notes
	}
	if res.Plan != nil {
		s.CompletedPhases, s.Plan, s.PlanSource = res.Completed, res.Plan, "scripted:"+res.Applied.Rule
	}
	return true, res.Notes
}

// liveTree is the package's tree as the build sees it, on the host when the sandbox
// exposes it, else the source copy.
func (r *run) liveTree(s *atesor.State) string {
	if hp, ok := hostPather(r.sb); ok {
		if p, err := hp.HostPath(s.RepoDir); err == nil {
			return p
		}
	}
	return r.hostTree
}
