package graph

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/repair"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/validate"
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
// once from the mirror of the host's apt configuration and cached under the state home
// (<home>/cache/contents).
func WithPackageFinder(f repair.PackageFinder) Option {
	return func(o *options) { o.repair.packages = f }
}

// contentsIndex opens the Contents index once per pipeline, on first use: loading it
// takes seconds (a 300 000-name index), and most runs never need it, so nothing opens
// it before the missing-package rule asks for a file.
type contentsIndex struct {
	mu       sync.Mutex
	opened   bool
	contents *repair.Contents
	// load opens the index; nil means openContents (the archive's, in the pipeline's cache).
	load func(ctx context.Context, p atesor.Platform) (*repair.Contents, error)
}

// Providers implements repair.PackageFinder for the lazily opened index.
type lazyFinder struct {
	ctx  context.Context
	idx  *contentsIndex
	p    atesor.Platform
	from contentsFrom
	log  func(err error)
}

func (l lazyFinder) Providers(kind repair.FileKind, name string) []string {
	c := l.idx.open(l.ctx, l.p, l.from, l.log)
	if c == nil {
		return nil
	}
	return c.Providers(kind, name)
}

// contentsFrom says where the Contents index comes from: the Debian mirror override
// (Config.DebianMirror; empty: the host's apt configuration's) and the cache directory.
type contentsFrom struct{ mirror, cacheDir string }

func (i *contentsIndex) open(ctx context.Context, p atesor.Platform, from contentsFrom, logErr func(error)) *repair.Contents {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.opened {
		return i.contents
	}
	load := i.load
	if load == nil {
		load = func(ctx context.Context, p atesor.Platform) (*repair.Contents, error) {
			return openContents(ctx, p, from)
		}
	}
	c, err := load(ctx, p)
	if err != nil {
		logErr(err)
		if ctx.Err() == nil {
			i.opened = true // a failed download is not retried by every fix of this pipeline
		}
		return nil
	}
	i.contents, i.opened = c, true
	return c
}

// openContents opens the archive's Contents index for riscv64 of the platform's suite
// from the mirror and cache directory of from.
func openContents(ctx context.Context, p atesor.Platform, from contentsFrom) (*repair.Contents, error) {
	mirror, err := knowledge.DebianMirror(from.mirror)
	if err != nil {
		return nil, err
	}
	return repair.OpenContents(ctx, repair.ContentsOptions{Mirror: mirror, Suite: knowledge.DebianSuite(p), Arch: "riscv64",
		Triplet: p.Triplet, CacheDir: from.cacheDir})
}

// packageFinder is the missing-package rule's index for this run.
func (r *run) packageFinder(ctx context.Context, s *atesor.State) repair.PackageFinder {
	if r.p.opts.repair.packages != nil {
		return r.p.opts.repair.packages
	}
	if s.Platform.PackageManager != "apt-get" && s.Platform.PackageManager != "apt" {
		return nil
	}
	return lazyFinder{ctx: ctx, idx: &r.p.contents, p: s.Platform, from: contentsFrom{mirror: r.p.cfg.DebianMirror, cacheDir: r.p.cfg.cacheDir("contents")}, log: func(err error) {
		r.log.Warn("scripted repairs: no Contents index", "err", err)
	}}
}

// scriptedTried reports whether a scripted rule already answered this error in the run.
func scriptedTried(s *atesor.State) repair.Tried {
	return func(rule, key string) bool {
		for _, f := range s.FixAttempts {
			if f.Source == atesor.FixSourceScripted && f.Rule == rule && repair.ErrorKey(f.Error) == key {
				return true
			}
		}
		return false
	}
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
	return len(repair.Claims(failureOf(last, ""), scriptedTried(s))) > 0
}

// scriptedFix runs the scripted repair rules on the last build failure and applies the
// first fix one makes, as an ordinary fix attempt: the same validation as a model's
// strategy, the same bookkeeping (the next build proves it) and the same recipe. It
// reports whether a fix was applied, and notes on rules that claimed the failure but
// could not help.
func (r *run) scriptedFix(ctx context.Context, s *atesor.State, last *atesor.ErrorRecord) (bool, []string) {
	if r.p.opts.repair.off || last.Node != NodeBuild || strings.HasPrefix(last.Message, emulatorFaultPrefix) {
		return false, nil
	}
	f := failureOf(last, r.lastOutput)
	root := r.liveTree(s)
	env := repair.Env{
		Platform: s.Platform, Detection: s.Detection, Plan: s.Plan, Files: repoFiles(ctx, root),
		// The rules read logs (config.log, CMakeError.log) and build files the build may
		// have replaced: through the gate, regular files of a log's size only.
		ReadFile: func(ctx context.Context, rel string) ([]byte, error) {
			return sandbox.ReadBounded(ctx, r.sb, path.Join(s.RepoDir, path.Clean("/"+rel)), sandbox.BoundConfigLog)
		},
		Packages: r.packageFinder(ctx, s),
	}
	var notes []string
	tried := scriptedTried(s)
	for {
		fix, why := repair.Propose(ctx, f, env, tried)
		notes = append(notes, why...)
		if fix == nil || ctx.Err() != nil {
			return false, notes
		}
		fix.Actions = correctedActions(s.Platform, fix.Actions)
		if fix.Plan != nil {
			p := correctedPlan(s.Platform, *fix.Plan)
			fix.Plan = &p
		}
		attempt := fix.Attempt(len(s.FixAttempts)+1, f)
		attempt.Timestamp = r.p.opts.now().UTC()
		if err := checkScripted(fix, s.RepoDir); err != nil {
			// A rule's fix that fails validation is recorded and not tried again.
			notes = append(notes, fmt.Sprintf("%s: its fix was refused: %v", fix.Rule, err))
			s.FixAttempts = append(s.FixAttempts, attempt)
			continue
		}
		r.emitScripted(fix)
		if err := r.applyActions(ctx, s, fix.Actions, &attempt); err != nil {
			if ctx.Err() != nil {
				return false, notes
			}
			notes = append(notes, fmt.Sprintf("%s: %v", fix.Rule, err))
			s.FixAttempts = append(s.FixAttempts, attempt)
			continue
		}
		if fix.Plan != nil {
			s.CompletedPhases = keptPhases(s.Plan, fix.Plan, s.CompletedPhases)
			s.Plan = fix.Plan
			s.PlanSource = "scripted:" + fix.Rule
		}
		s.FixAttempts = append(s.FixAttempts, attempt)
		return true, notes
	}
}

// checkScripted validates a scripted fix like a model's answer: the actions as the
// recommended strategy of a fix proposal, a new plan by the scout's rules.
func checkScripted(fix *repair.Fix, repoDir string) error {
	if len(fix.Actions) > 0 {
		p := atesor.FixProposal{Analysis: fix.Analysis, RecommendedStrategyID: "1",
			Strategies: []atesor.Strategy{{ID: "1", Description: fix.Strategy, Actions: fix.Actions}}}
		if err := validate.FixProposal(&p, repoDir); err != nil {
			return err
		}
	}
	if fix.Plan != nil {
		plan := *fix.Plan
		if err := validate.BuildPlan(&plan); err != nil {
			return err
		}
	}
	return nil
}

// keptPhases are the completed phases that come before the first phase the new plan
// changes: the changed phase and everything after it run again.
func keptPhases(old, next *atesor.BuildPlan, completed []string) []string {
	if old == nil {
		return nil
	}
	var kept []string
	for i, ph := range next.Phases {
		if i >= len(old.Phases) || old.Phases[i].Name != ph.Name || !slices.Equal(old.Phases[i].Commands, ph.Commands) {
			break
		}
		if contains(completed, ph.Name) {
			kept = append(kept, ph.Name)
		}
	}
	return kept
}

// emitScripted reports a scripted fix to the progress callback and the log.
func (r *run) emitScripted(fix *repair.Fix) { r.emitScriptedFix(fix.Rule, fix.Strategy) }

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

// repoFiles lists a tree's files (relative, slash-separated), at most 6 levels deep and
// 20000 files, without version control directories. The tree is walked the gate's way
// (links reported, never followed).
func repoFiles(ctx context.Context, root string) []string {
	if root == "" {
		return nil
	}
	var out []string
	_ = fs.WalkDir(sandbox.TreeFS(ctx, root, sandbox.BoundSource), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if rel != "." && (d.Name() == ".git" || d.Name() == ".hg" || d.Name() == ".svn" || strings.Count(rel, "/") >= 6) {
				return fs.SkipDir
			}
			return nil
		}
		if len(out) >= 20000 {
			return fs.SkipAll
		}
		if d.Type().IsRegular() {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// fixCounts counts fixes by source (scripted, model) and scripted fixes by rule.
func fixCounts(fixes []atesor.FixAttempt) (bySource, byRule map[string]int) {
	for _, f := range fixes {
		src := string(f.Source)
		if src == "" {
			src = string(atesor.FixSourceModel)
		}
		if bySource == nil {
			bySource = map[string]int{}
		}
		bySource[src]++
		if f.Rule != "" {
			if byRule == nil {
				byRule = map[string]int{}
			}
			byRule[f.Rule]++
		}
	}
	return bySource, byRule
}

// lastFailureMessage is the first line of the last build or verify error: what an
// escalation reports, rather than a refused fix that followed it.
func lastFailureMessage(s *atesor.State) string {
	for i := len(s.Errors) - 1; i >= 0; i-- {
		if e := s.Errors[i]; e.Node == NodeBuild || e.Node == NodeVerify {
			return firstLine(e.Message)
		}
	}
	return lastMessage(s)
}
