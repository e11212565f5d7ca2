package repair

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// Applier applies a fix's actions in the sandbox, recording what it ran and wrote in
// the attempt. Run takes it from its caller, so a scripted fix is applied exactly as a
// model's strategy is.
type Applier func(ctx context.Context, actions []atesor.Action, attempt *atesor.FixAttempt) error

// Input is what [Run] needs to repair one build failure: the failure, the narrow parts
// of the run's state the rules read, and the means to apply a fix.
type Input struct {
	// Failure is the failed build.
	Failure Failure
	// Platform, Detection, Plan and Completed (the plan's completed phases) are the
	// run's; Plan and Completed are not changed, a fix's new plan is in the Result.
	Platform  atesor.Platform
	Detection *atesor.Detection
	Plan      *atesor.BuildPlan
	Completed []string
	// RepoDir is the package's directory in the sandbox; Tree is the same tree on the
	// host as the build sees it (empty: the rules see no file list).
	RepoDir string
	Tree    string
	// Sandbox is read through the gate (sandbox.ReadBounded) for the logs and build
	// files the rules look at.
	Sandbox atesor.Sandbox
	// Packages is the missing-package rule's index; nil when there is none.
	Packages PackageFinder
	// Distribution says how the distribution builds the source, for the
	// distribution-configure rule; nil when the source has no counterpart there. It is
	// called only when that rule is reached.
	Distribution DistributionFunc
	// GoPackage is Env.GoPackage.
	GoPackage GoPackageFunc
	// Locate searches the sandbox's include directories, installing packages first,
	// for the header-subdir rule; nil when the sandbox cannot be searched.
	Locate LocateFunc
	// PackageFiles installs a package and lists its files, for the sdk-path rule; nil
	// when the sandbox cannot be searched.
	PackageFiles PackageFilesFunc
	// Libraries searches the installed packages' shared libraries for the symbols a
	// link misses, for the link-library rule; nil when the sandbox cannot be searched.
	Libraries LibraryFunc
	// Namespaces searches the installed headers for the C++ namespaces a versioned name
	// the sources use has become, for the cxx-versioned-namespace rule; nil when the
	// sandbox cannot be searched.
	Namespaces NamespaceFunc
	// Fixes are the run's fix attempts so far: which rules already answered which
	// error, and the number of the next attempt.
	Fixes []atesor.FixAttempt
	// Apply applies a fix's actions.
	Apply Applier
	// Emit receives an [atesor.EventScriptedFix] for each fix about to be applied (Rule
	// and Line, the fix's strategy, set); nil emits nothing.
	Emit func(atesor.Event)
	// Now stamps the attempts; nil is time.Now.
	Now func() time.Time
	// Skip names rules left out of this repair, so that a port can be compared with
	// and without one of them.
	Skip []string
}

// Result is what [Run] did.
type Result struct {
	// Attempts are the new fix attempts in order, to be appended to the run's: fixes
	// refused by validation or whose actions failed, then the applied one, if any.
	Attempts []atesor.FixAttempt
	// Applied is the fix that was applied; nil when none was.
	Applied *Fix
	// Plan and Completed replace the run's plan and completed phases when the applied
	// fix changes the plan (Plan nil: it does not): the completed phases before the
	// first phase the new plan changes are kept, the others run again.
	Plan      *atesor.BuildPlan
	Completed []string
	// Notes say why rules that claimed the failure could not help.
	Notes []string
}

// Run runs the rules on a build failure and applies the first fix one makes, as an
// ordinary fix attempt: corrected for the platform and validated like a model's
// strategy, applied by the caller's [Applier] and proven by the next build. A fix
// refused by validation or whose actions fail is recorded and the next rule tried; a
// rule does not answer the same error twice in a run (the attempts so far say which
// did). A cancelled context stops it; the attempt whose actions were cut short is not
// recorded.
func Run(ctx context.Context, in Input) Result {
	now := in.Now
	if now == nil {
		now = time.Now
	}
	env := Env{
		Platform: in.Platform, Detection: in.Detection, Plan: in.Plan, Files: repoFiles(ctx, in.Tree),
		// The rules read logs (config.log, CMakeError.log) and build files the build may
		// have replaced: through the gate, regular files of a log's size only.
		ReadFile: func(ctx context.Context, rel string) ([]byte, error) {
			return sandbox.ReadBounded(ctx, in.Sandbox, path.Join(in.RepoDir, path.Clean("/"+rel)), sandbox.BoundConfigLog)
		},
		Packages: in.Packages, Distribution: in.Distribution, GoPackage: in.GoPackage, Fixes: in.Fixes, Locate: in.Locate,
		PackageFiles: in.PackageFiles, RepoDir: in.RepoDir, Libraries: in.Libraries, Namespaces: in.Namespaces,
	}
	var res Result
	fixes := slices.Clone(in.Fixes)
	inRun := TriedIn(func() []atesor.FixAttempt { return fixes })
	tried := func(rule, key string) bool { return slices.Contains(in.Skip, rule) || inRun(rule, key) }
	record := func(a atesor.FixAttempt) {
		fixes = append(fixes, a)
		res.Attempts = append(res.Attempts, a)
	}
	for {
		fix, why := Propose(ctx, in.Failure, env, tried)
		res.Notes = append(res.Notes, why...)
		if fix == nil || ctx.Err() != nil {
			return res
		}
		fix.Actions = knowledge.CorrectedActions(in.Platform, fix.Actions)
		if fix.Plan != nil {
			p := knowledge.CorrectedPlan(in.Platform, *fix.Plan)
			fix.Plan = &p
		}
		attempt := fix.Attempt(len(fixes)+1, in.Failure)
		attempt.Timestamp = now().UTC()
		if err := check(fix, in.RepoDir); err != nil {
			// A rule's fix that fails validation is recorded and not tried again.
			res.Notes = append(res.Notes, fmt.Sprintf("%s: its fix was refused: %v", fix.Rule, err))
			record(attempt)
			continue
		}
		if in.Emit != nil {
			in.Emit(atesor.Event{Kind: atesor.EventScriptedFix, Rule: fix.Rule, Line: fix.Strategy})
		}
		if err := in.Apply(ctx, fix.Actions, &attempt); err != nil {
			if ctx.Err() != nil {
				return res
			}
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %v", fix.Rule, err))
			record(attempt)
			continue
		}
		if fix.Plan != nil {
			res.Plan, res.Completed = fix.Plan, keptPhases(in.Plan, fix.Plan, in.Completed)
		}
		record(attempt)
		res.Applied = fix
		return res
	}
}

// TriedIn reports, from a run's fix attempts (read at each call, so it sees attempts
// added since), whether a scripted rule already answered an error.
func TriedIn(fixes func() []atesor.FixAttempt) Tried {
	return func(rule, key string) bool {
		for _, f := range fixes() {
			if f.Source == atesor.FixSourceScripted && f.Rule == rule && ErrorKey(f.Error) == key {
				return true
			}
		}
		return false
	}
}

// check validates a scripted fix like a model's answer: the actions as the recommended
// strategy of a fix proposal, a new plan by the scout's rules.
func check(fix *Fix, repoDir string) error {
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
		if slices.Contains(completed, ph.Name) {
			kept = append(kept, ph.Name)
		}
	}
	return kept
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

// CountFixes counts fix attempts by source (scripted, model; an attempt without a
// source is a model's) and the scripted ones by rule, for the report.
func CountFixes(fixes []atesor.FixAttempt) (bySource, byRule map[string]int) {
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
