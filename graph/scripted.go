package graph

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// repairOptions configure the scripted repairs of the fix node.
type repairOptions struct {
	off      bool
	packages repair.PackageFinder
	// skip are rules left out (repair.Input.Skip), for comparing a port without one.
	skip []string
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

// failureOf is the repair package's view of a build or verification error record of
// the run: a failed verification has the phase repair.PhaseVerify and no command
// output (its message holds the problems), so only the rules written for verification
// problems answer it.
func failureOf(s *atesor.State, last *atesor.ErrorRecord, output string) repair.Failure {
	_, packaged := counterpart(s)
	f := repair.Failure{Category: last.Category, Message: last.Message, Output: output, Phase: last.Phase, Command: last.Command,
		Packaged: packaged}
	if last.Node == NodeVerify {
		f.Phase, f.Command, f.Output = repair.PhaseVerify, "", ""
	}
	return f
}

// repairable reports whether the scripted rules look at an error record: a failed build
// that is not an emulator fault, or a failed verification.
func repairable(last *atesor.ErrorRecord) bool {
	switch last.Node {
	case NodeBuild:
		return !strings.HasPrefix(last.Message, emulatorFaultPrefix)
	case NodeVerify:
		return true
	}
	return false
}

// scriptedClaims reports whether a scripted rule not yet tried answers the last build
// or verification failure. It does no I/O, so the supervisor can route an offline run
// to the fix node.
func scriptedClaims(s *atesor.State) bool {
	last := s.LastError
	if last == nil || !repairable(last) {
		return false
	}
	if s.LastNode == NodeFix && s.FixInvalid {
		return false // the fix node just tried them on this failure and none could help
	}
	return len(repair.Claims(failureOf(s, last, ""), repair.TriedIn(func() []atesor.FixAttempt { return s.FixAttempts }))) > 0
}

// scriptedFix runs the scripted repair rules (repair.Run) on the last build or
// verification failure and applies the first fix one makes, as an ordinary fix
// attempt. It reports whether a fix was applied, and notes on rules that claimed the
// failure but could not help.
func (r *run) scriptedFix(ctx context.Context, s *atesor.State, last *atesor.ErrorRecord) (bool, []string) {
	if r.p.opts.repair.off || !repairable(last) {
		return false, nil
	}
	res := repair.Run(ctx, repair.Input{
		Failure: failureOf(s, last, r.lastOutput), Platform: s.Platform, Detection: s.Detection,
		Plan: s.Plan, Completed: s.CompletedPhases, RepoDir: s.RepoDir, Tree: r.liveTree(s),
		Sandbox: r.sb, Packages: r.packageFinder(ctx, s), Distribution: r.distribution(s), GoPackage: r.goPackage(s), Fixes: s.FixAttempts,
		Locate: repair.SandboxLocator(r.sb, s.Platform, buildEnv(s)), PackageFiles: repair.SandboxPackageFiles(r.sb, s.Platform, buildEnv(s)), Libraries: repair.SandboxLibraries(r.sb, buildEnv(s)),
		Namespaces: repair.SandboxNamespaces(r.sb, buildEnv(s)),
		Apply: func(ctx context.Context, actions []atesor.Action, attempt *atesor.FixAttempt) error {
			return r.applyActions(ctx, s, actions, attempt)
		},
		Emit: func(e atesor.Event) { r.emitScriptedFix(e.Rule, e.Line) },
		Now:  r.p.opts.now, Skip: r.p.opts.repair.skip,
	})
	s.FixAttempts = append(s.FixAttempts, res.Attempts...)
	if res.Applied == nil {
		return false, res.Notes
	}
	if res.Plan != nil {
		s.CompletedPhases, s.Plan, s.PlanSource = res.Completed, res.Plan, "scripted:"+res.Applied.Rule
		// A fix that moved a module build to GOPATH mode (go-module-gopath) moves its
		// tests there too: in module mode they would fetch what the build no longer does.
		if tests, ok := knowledge.GoPathTestCommands(s.Plan, s.TestCommands); ok {
			s.TestCommands = tests
		}
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

// distribution is how Debian builds the run's source, for the distribution-configure
// rule: the source package of the run's origin (debian:NAME), of a Debian .orig
// tarball, or an upstream NAME-VERSION release that Debian packages under that name and
// upstream version, as the export check finds it. Nil for a source with no such name
// or a platform whose packages are not Debian's. The packaging is read only when the
// rule calls it, from Config.DebianMirror (empty: the host's apt configuration's)
// through the verified archive, cached with the source tarballs under
// <Home>/downloads/debian; one lookup per package and version serves the pipeline.
func (r *run) distribution(s *atesor.State) repair.DistributionFunc {
	cp, ok := counterpart(s)
	if !ok {
		return nil
	}
	return func(ctx context.Context) (*repair.Distribution, error) {
		return r.p.dists.lookup(ctx, cp, func(ctx context.Context) (*repair.Distribution, error) {
			mirror, err := knowledge.DebianMirror(r.p.cfg.DebianMirror)
			if err != nil {
				return nil, err
			}
			res := &debsrc.Resolver{Mirror: mirror, Suite: cp.Suite, CacheDir: r.p.debianCache()}
			b, err := res.Build(ctx, cp.Package, cp.Version, "riscv64")
			var unknown *debsrc.UnknownPackageError
			if cp.ByName && errors.As(err, &unknown) {
				return nil, nil // an upstream release Debian does not package (at that version)
			}
			if err != nil {
				return nil, err
			}
			d := &repair.Distribution{Package: b.Package, Version: b.Version, Switches: b.Switches, BuildDepends: b.BuildDepends,
				GoImportPath: b.GoImportPath}
			if b.RulesErr != nil {
				d.Unread = b.RulesErr.Error()
			}
			for _, p := range b.Patches {
				d.Patches = append(d.Patches, repair.DistributionPatch{Name: p.Name, Level: p.Level, Diff: p.Diff})
			}
			if b.PatchesErr != nil {
				d.PatchesUnread = b.PatchesErr.Error()
			}
			return d, nil
		})
	}
}

// goPackage finds the golang-*-dev package of a Go import path in the Sources index of
// the suite of the run's Debian counterpart (a GOPATH build is Debian's build of it);
// nil when the source has none. The index is read once per function returned.
func (r *run) goPackage(s *atesor.State) repair.GoPackageFunc {
	cp, ok := counterpart(s)
	if !ok {
		return nil
	}
	// One resolver for the fix's lookups: it reads and verifies the Sources index once
	// (go-import-major asks about each major of a module).
	var once sync.Once
	var res *debsrc.Resolver
	var resErr error
	return func(ctx context.Context, importPath string) (string, string, error) {
		once.Do(func() {
			mirror, err := knowledge.DebianMirror(r.p.cfg.DebianMirror)
			if err != nil {
				resErr = err
				return
			}
			res = &debsrc.Resolver{Mirror: mirror, Suite: cp.Suite, CacheDir: r.p.debianCache()}
		})
		if resErr != nil {
			return "", "", resErr
		}
		return res.GoPackage(ctx, importPath)
	}
}

// counterpart is the Debian source package the run's source corresponds to (see
// debsrc.CounterpartOf), on a platform whose packages are Debian's.
func counterpart(s *atesor.State) (debsrc.Counterpart, bool) {
	if s.Platform.PackageManager != "apt-get" && s.Platform.PackageManager != "apt" {
		return debsrc.Counterpart{}, false
	}
	cp, ok := debsrc.CounterpartOf(s.Request.Source, s.Request.Origin)
	if ok && cp.Suite == "" {
		cp.Suite = knowledge.DebianSuite(s.Platform)
	}
	return cp, ok
}

// debianCache is where the Debian archive's Sources index and source packages are
// cached: beside the tarballs the command line resolves debian:NAME into, so a port of
// such a source reads the index it was resolved from.
func (p *Pipeline) debianCache() string {
	if p.cfg.Home != "" {
		return filepath.Join(p.cfg.Home, "downloads", "debian")
	}
	return p.cfg.cacheDir("debian-sources")
}

// distCache remembers how Debian builds each source package a pipeline looked up, so
// the fixes of a run, and the runs of a batch, read a packaging once. A failed lookup
// is not kept unless it failed for good (the context was not cancelled).
type distCache struct {
	mu   sync.Mutex
	seen map[debsrc.Counterpart]distEntry
}

type distEntry struct {
	d   *repair.Distribution
	err error
}

func (c *distCache) lookup(ctx context.Context, key debsrc.Counterpart, load repair.DistributionFunc) (*repair.Distribution, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.seen[key]; ok {
		return e.d, e.err
	}
	d, err := load(ctx)
	if ctx.Err() == nil {
		if c.seen == nil {
			c.seen = map[debsrc.Counterpart]distEntry{}
		}
		c.seen[key] = distEntry{d, err}
	}
	return d, err
}
