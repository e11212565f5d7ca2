package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// Failure is the failed build, or the failed verification, a rule looks at.
type Failure struct {
	// Category is the classified category of Message.
	Category atesor.ErrorCategory
	// Message is the extracted error (the run state's error record).
	Message string
	// Output is the full output of the failing command when it is known; rules that
	// look for every occurrence of a diagnostic read it. Empty means Message only.
	Output string
	// Phase and Command are the plan phase and the command line that failed; Phase is
	// PhaseVerify for a failed verification (Message then holds its problems).
	Phase   string
	Command string
	// Packaged is true when the port's source has a counterpart in the distribution
	// (the rules that build it the distribution's way claim only such failures).
	Packaged bool
}

// text is what rules scan: the full output when known, else the message.
func (f Failure) text() string {
	if f.Output != "" {
		return f.Output
	}
	return f.Message
}

// Env is what a rule may look at besides the failure. Every field may be empty; a rule
// that needs a missing one makes no fix.
type Env struct {
	Platform  atesor.Platform
	Detection *atesor.Detection
	Plan      *atesor.BuildPlan
	// Files are the repository's file paths, relative to its root, with slashes.
	Files []string
	// ReadFile reads a repository file (relative path) as the build sees it now.
	ReadFile func(ctx context.Context, rel string) ([]byte, error)
	// Packages finds the distro package that provides a file; nil when no index is
	// available (no mirror, or a profile without one).
	Packages PackageFinder
	// Distribution says how the distribution builds the source; nil when the source
	// has no counterpart there.
	Distribution DistributionFunc
	// GoPackage finds the distro package that installs a Go import path's sources for
	// GOPATH builds; nil when the distribution's source index is not available.
	GoPackage GoPackageFunc
	// Fixes are the run's fix attempts before this repair.
	Fixes []atesor.FixAttempt
	// Locate installs packages in the sandbox and finds a header below its include
	// directories; nil when the sandbox cannot be searched.
	Locate LocateFunc
	// PackageFiles installs a package in the sandbox and lists its files; nil when the
	// sandbox cannot be searched.
	PackageFiles PackageFilesFunc
	// RepoDir is the repository's absolute path in the sandbox, for a fix that names a
	// directory of the tree to the compiler; "" when unknown.
	RepoDir string
	// Libraries finds which installed packages' shared libraries define symbols; nil
	// when the sandbox cannot be searched.
	Libraries LibraryFunc
	// Namespaces lists the C++ namespaces the installed headers declare; nil when the
	// sandbox cannot be searched.
	Namespaces NamespaceFunc
}

// Fix is what a rule proposes: actions like a model's strategy, and/or a new build plan.
type Fix struct {
	Rule     string
	Analysis string
	Strategy string
	Actions  []atesor.Action
	// Plan replaces the build plan when the fix changes how the build runs.
	Plan *atesor.BuildPlan
}

// Attempt turns the fix into the run state's record of an applied fix.
func (f *Fix) Attempt(n int, failure Failure) atesor.FixAttempt {
	return atesor.FixAttempt{
		Attempt: n, Error: excerpt.FirstLine(failure.Message), ErrorCategory: failure.Category,
		Source: atesor.FixSourceScripted, Rule: f.Rule, Analysis: f.Analysis, Strategy: f.Strategy,
		Actions: slices.Clone(f.Actions), Plan: f.Plan,
	}
}

// Rule is one scripted repair: data saying which failures it answers, and the function
// that makes the fix.
type Rule struct {
	// Name is the rule's stable name, recorded in the fix and the report.
	Name string
	// Doc says in one line what the rule repairs.
	Doc string
	// Categories are the error categories the rule answers; empty means any.
	Categories []atesor.ErrorCategory
	// Signatures are patterns of the failing output; the rule claims a failure when one
	// matches the message or the output.
	Signatures []*regexp.Regexp
	// Packaged says the rule claims only failures of a source the distribution
	// packages (Failure.Packaged).
	Packaged bool
	// Verify says the rule answers failed verifications (Failure.Phase is
	// [PhaseVerify]) and no build failure; every other rule answers only build
	// failures, so a verification problem reaches no rule that was not written for it.
	Verify bool
	// Make builds the fix. It returns nil and a reason when the claim does not hold up
	// (no package provides the file, no flag found in the build files, ...).
	Make func(ctx context.Context, f Failure, env Env) (*Fix, string)
}

// claims reports whether the rule answers the failure.
func (r Rule) claims(f Failure) bool {
	if r.Verify != (f.Phase == PhaseVerify) {
		return false
	}
	if len(r.Categories) > 0 && !slices.Contains(r.Categories, f.Category) || r.Packaged && !f.Packaged {
		return false
	}
	text := f.text()
	for _, re := range r.Signatures {
		if re.MatchString(text) || (f.Output != "" && re.MatchString(f.Message)) {
			return true
		}
	}
	return false
}

// Rules returns the rule table in the order rules are tried. The order puts the rules
// whose signatures are most specific first.
func Rules() []Rule {
	return []Rule{configureRootRule(), configurePrefixRule(), configScriptsRule(), automakeSubdirRule(), automakeMissingDocRule(), automakeConditionalRule(), aclocalMacroRule(), autoreconfRule(), gettextVersionRule(), archFlagsRule(), simdOptionRule(), errlistRule(), gcc14Rule(), cstdintRule(), stdHeaderRule(), cxxNamespaceRule(), cxx17Rule(), permissiveRule(), werrorRule(), fcommonRule(), perlDotIncRule(), aptConflictRule(), makeAllRule(), makeSubdirMakefileRule(), automakeStaleSourcesRule(), windowsSourceRule(), configureIncludeRule(),
		goVetOffRule(), goExcludeRule(), goXSysRule(), goPortableTagsRule(), cmakeSubdirRule(), cmakeOptionalPackageRule(), dependencyVersionRule(), sdkPathRule(), precompiledRule(), mesonSubprojectRule(), mesonMissingFileRule(), mesonNamedOptionRule(), mesonPositionalRule(), atomicsRule(), linkOrderRule(), linkLibraryRule(), goSanitizerRule(), goModInitRule(), goModuleGoPathRule(), goPointerRule(),
		catch2CompatRule(), catch2SignalsRule(), makeGeneratedHeaderRule(), missingPackageRule(), makeGoalRule(), makeTestGoalRule(), goImportMajorRule(), headerDirRule(), templateHeaderRule(),
		// Before the rules that guess: an error in a file the distribution patches.
		distributionPatchedFileRule(), archChainRule(), parallelRaceRule(), featureOffRule(), buildSystemRule(), headerOnlyTestsRule(), bareSourcesRule(),
		// Near the end: configuring the way the distribution does answers what no specific rule did,
		distributionConfigureRule(),
		// Then the distribution's own patches, for what configuring as it does left.
		distributionPatchesRule(),
		// Last: a part the build can leave out (its tests), whose compile error nothing else answered.
		failingPartRule()}
}

// Tried reports whether a rule already answered an error (keyed by [ErrorKey]).
type Tried func(rule, errorKey string) bool

// Claims returns the names of the rules that answer the failure and have not been tried
// on it, in table order. It does no I/O: the supervisor uses it to decide whether an
// offline run has a fixer left.
func Claims(f Failure, tried Tried) []string {
	var out []string
	key := ErrorKey(f.Message)
	for _, r := range Rules() {
		if r.claims(f) && (tried == nil || !tried(r.Name, key)) {
			out = append(out, r.Name)
		}
	}
	return out
}

// Propose runs the claiming rules that have not been tried on this error, in table
// order, and returns the first fix one of them makes, with notes on the rules that
// claimed the failure but made no fix.
func Propose(ctx context.Context, f Failure, env Env, tried Tried) (*Fix, []string) {
	var notes []string
	key := ErrorKey(f.Message)
	for _, r := range Rules() {
		if !r.claims(f) || (tried != nil && tried(r.Name, key)) {
			continue
		}
		fix, why := r.Make(ctx, f, env)
		if fix != nil {
			fix.Rule = r.Name
			return fix, notes
		}
		notes = append(notes, fmt.Sprintf("%s: %s", r.Name, why))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, notes
}

// ErrorKey keys an error by its first line, lower case, digits removed: the same
// failure at another line number counts as the same error. It matches the graph's key
// for "the same error".
func ErrorKey(msg string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, strings.ToLower(excerpt.FirstLine(msg)))
}

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }
