package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Distribution is how the distribution builds the package's source: the source package
// the port's source corresponds to, the configure switches its packaging passes and the
// packages its default build installs for the platform's architecture.
type Distribution struct {
	// Package and Version name the distribution's source package.
	Package, Version string
	// Switches are the configure, CMake and meson switches of its packaging, as read
	// (all of them; the rule picks those for the plan's build system).
	Switches []string
	// BuildDepends are the packages its build installs (valid package names).
	BuildDepends []string
	// Unread says why the packaging's switches are not known ("" when they were read);
	// the build dependencies alone still count.
	Unread string
	// GoImportPath is the import path the distribution builds a Go source under (its
	// Go-Import-Path field), "" for other sources.
	GoImportPath string
	// Patches are the patches of its debian/patches/series, in order, for the
	// distribution-patches rule.
	Patches []DistributionPatch
	// PatchesUnread says why the series could not be read ("" when it was, or there is
	// none).
	PatchesUnread string
}

// installable are the build dependencies that are valid package names, the ones a fix
// may install.
func (d *Distribution) installable() []string {
	return slices.DeleteFunc(slices.Clone(d.BuildDepends), func(p string) bool { return !debianPackage.MatchString(p) })
}

// DistributionFunc returns how the distribution builds the run's source; nil, nil when
// the source has no counterpart in the distribution. It is called only when the rule
// that needs it is reached, since it may download the packaging.
type DistributionFunc func(ctx context.Context) (*Distribution, error)

const distRuleName = "distribution-configure"

// distributionCategories are the failures the rules that build as the distribution does
// answer: every category a package's own files can cause.
var distributionCategories = []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryCompilation, atesor.CategoryLinking,
	atesor.CategoryDependency, atesor.CategoryMissingTool, atesor.CategoryArchitecture, atesor.CategoryUnknown}

// anyFailure is the signature of a rule that answers whatever failed.
var anyFailure = []*regexp.Regexp{re(`\S`)}

func distributionConfigureRule() Rule {
	return Rule{
		Name: distRuleName,
		Doc: "a repacked distribution source that fails to configure or build (spdlog's +ds tarball without its bundled fmt): " +
			"configure the way the distribution's packaging does, with its build dependencies installed",
		Categories: distributionCategories,
		// Any failure: the rule is the last one tried, for what the specific rules leave.
		Signatures: anyFailure,
		Packaged:   true,
		Make:       makeDistributionConfigure,
	}
}

// configureKind is the build system of a plan's configure command.
type configureKind struct {
	name    string
	command *regexp.Regexp
}

var (
	cmakeKind     = configureKind{"cmake", cmakeConfig}
	mesonKind     = configureKind{"meson", mesonSetup}
	autotoolsKind = configureKind{"configure", configureWord}
)

// debianPackage is a package name the install command takes as one (Debian Policy
// 5.6.7; a trailing - would ask apt-get to remove it).
var debianPackage = re(`^[a-z0-9][a-z0-9+.-]*[a-z0-9+.]$`)

// notConfigurePhases are the phases whose failure configuring differently cannot help.
var notConfigurePhases = []string{"setup", "install", "test", "check"}

func makeDistributionConfigure(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.Distribution == nil {
		return nil, "the source has no counterpart in the distribution"
	}
	if slices.Contains(notConfigurePhases, f.Phase) {
		return nil, "the " + f.Phase + " phase failed, which configuring differently does not change"
	}
	for _, a := range env.Fixes {
		if a.Source == atesor.FixSourceScripted && a.Rule == distRuleName {
			return nil, "the build was already configured the way the distribution does once in this run"
		}
	}
	if env.Plan == nil {
		return nil, "no build plan"
	}
	// A plan without a configure step (a plain make build) still gets the packages.
	kind, configures := planConfigureKind(*env.Plan, f.Phase)
	d, err := env.Distribution(ctx)
	if err != nil {
		return nil, "the distribution's packaging could not be read: " + err.Error()
	}
	if d == nil {
		return nil, "the source has no counterpart in the distribution"
	}
	var switches, notes []string
	if configures {
		switches, notes = pickSwitches(ctx, env, kind, d.Switches)
	} else if len(d.Switches) > 0 {
		notes = append(notes, "its switches, since the plan has no cmake, meson or configure command up to the failing phase")
	}
	var systemCopies []string
	if d.Unread != "" {
		notes = append(notes, "its debian/rules, which could not be read ("+d.Unread+")")
		if configures && kind.name == cmakeKind.name {
			systemCopies = systemCopySwitches(ctx, env, d.Version)
			switches = append(switches, systemCopies...)
		}
	}
	pkgs := d.installable()
	if len(switches) == 0 && len(pkgs) > 0 && !slices.ContainsFunc(pkgs, func(p string) bool { return !slices.Contains(installedByFixes(env), p) }) {
		// missing-package already installed every one of them: the same packages again
		// would only spend an attempt.
		return nil, fmt.Sprintf("an earlier fix installed every Build-Depends of %s %s, and its packaging gives no switch this build takes", d.Package, d.Version)
	}
	plan := *env.Plan
	if len(switches) > 0 {
		plan, _ = withSwitches(plan, f.Phase, kind.command, switches)
	}
	plan = withPackages(plan, env, pkgs)
	if samePlan(plan, *env.Plan) {
		return nil, fmt.Sprintf("the plan already configures and installs what %s %s does", d.Package, d.Version)
	}
	var analysis, strategy []string
	if len(systemCopies) > 0 {
		analysis = append(analysis, fmt.Sprintf("Debian's debian/rules of %s %s could not be read, and its repacked tarball lacks bundled copies: "+
			"the build's own switches choose the system's copies (%s);", d.Package, d.Version, strings.Join(systemCopies, " ")))
		strategy = append(strategy, "configure with "+strings.Join(switches, " "))
	} else if len(switches) > 0 {
		analysis = append(analysis, fmt.Sprintf("Debian configures %s %s with %s (its debian/rules);", d.Package, d.Version, strings.Join(switches, " ")))
		strategy = append(strategy, "configure with "+strings.Join(switches, " "))
	} else if d.Unread != "" {
		analysis = append(analysis, fmt.Sprintf("Debian's debian/rules of %s %s could not be read;", d.Package, d.Version))
	} else if configures {
		analysis = append(analysis, fmt.Sprintf("Debian's debian/rules of %s %s passes no switch this %s build takes;", d.Package, d.Version, kind.name))
	} else {
		analysis = append(analysis, fmt.Sprintf("This build has no configure step for the switches of Debian's %s %s;", d.Package, d.Version))
	}
	if len(pkgs) > 0 {
		analysis = append(analysis, fmt.Sprintf("its build installs %s (Build-Depends).", strings.Join(pkgs, " ")))
		strategy = append(strategy, "install "+strings.Join(pkgs, " "))
	}
	analysis = append(analysis, "The distribution's tarball may be repacked without what upstream's defaults expect (a bundled copy of a library), so the port is configured the way the distribution builds it.")
	if len(notes) > 0 {
		analysis = append(analysis, "Left out: "+strings.Join(notes, "; ")+".")
	}
	return &Fix{Analysis: strings.Join(analysis, " "), Strategy: "as Debian builds it: " + strings.Join(strategy, " and "), Plan: &plan}, ""
}

// installedPackages are the packages the plan installs and those the run's earlier
// fixes installed, the plan's first.
func installedPackages(env Env) []string {
	var out []string
	if env.Plan != nil {
		out = planInstalls(*env.Plan, installCommand(env))
	}
	return append(out, installedByFixes(env)...)
}

// installedByFixes are the packages the run's earlier fixes installed with the
// platform's install command.
func installedByFixes(env Env) []string {
	prefix := installCommand(env) + " "
	var out []string
	for _, a := range env.Fixes {
		for _, act := range a.Actions {
			if act.Type == atesor.ActionCommand && strings.HasPrefix(act.Command, prefix) {
				out = append(out, strings.Fields(strings.TrimPrefix(act.Command, prefix))...)
			}
		}
	}
	return out
}

// planConfigureKind finds the build system of the configure command in the failing
// phase or the nearest phase before it.
func planConfigureKind(plan atesor.BuildPlan, failedPhase string) (configureKind, bool) {
	for i := phaseEnd(plan, failedPhase); i >= 0; i-- {
		for _, line := range plan.Phases[i].Commands {
			for _, k := range []configureKind{cmakeKind, mesonKind, autotoolsKind} {
				if k.command.MatchString(line) {
					return k, true
				}
			}
		}
	}
	return configureKind{}, false
}

// phaseEnd is the index of the failing phase, or the last phase when it is unknown.
func phaseEnd(plan atesor.BuildPlan, failedPhase string) int {
	end := len(plan.Phases) - 1
	for i, ph := range plan.Phases {
		if ph.Name == failedPhase {
			end = i
		}
	}
	return end
}

// withSwitches returns the plan with switches on the configure command (cmd's group 2
// is the command word) of the failing phase or the nearest one before it: a switch of
// the same key the line already has is replaced, the others go after the command
// word. It reports whether there was such a command.
func withSwitches(plan atesor.BuildPlan, failedPhase string, cmd *regexp.Regexp, switches []string) (atesor.BuildPlan, bool) {
	phases := slices.Clone(plan.Phases)
	for i := phaseEnd(plan, failedPhase); i >= 0; i-- {
		for j, line := range phases[i].Commands {
			if !cmd.MatchString(line) {
				continue
			}
			insert := ""
			for _, sw := range switches {
				// Words split at single spaces, as plan lines are written; a quoted
				// word never matches a switch whole, so nothing inside quotes changes.
				words := strings.Split(line, " ")
				replaced := false
				for k, w := range words {
					if switchWord.MatchString(w) && switchKey(w) == switchKey(sw) {
						words[k], replaced = sw, true
					}
				}
				line = strings.Join(words, " ")
				if !replaced {
					insert += " " + sw
				}
			}
			at := cmd.FindStringSubmatchIndex(line)[5]
			cmds := slices.Clone(phases[i].Commands)
			cmds[j] = line[:at] + insert + line[at:]
			phases[i].Commands = cmds
			plan.Phases = phases
			return plan, true
		}
	}
	return plan, false
}

// switchWord is a switch word on a command line.
var switchWord = re(`^(?:-D[A-Za-z0-9_.:+-]+=\S*|--(?:enable|disable|with|without)-[A-Za-z0-9_.+-]+(?:=\S*)?)$`)

// switchKey is what two switches that set the same thing share: -DNAME (without a
// type), or the feature of --enable/--disable and of --with/--without.
func switchKey(sw string) string {
	name, _, _ := strings.Cut(sw, "=")
	if strings.HasPrefix(name, "-D") {
		n, _, _ := strings.Cut(name, ":")
		return n
	}
	for _, p := range [][2]string{{"--enable-", "enable "}, {"--disable-", "enable "}, {"--with-", "with "}, {"--without-", "with "}} {
		if rest, ok := strings.CutPrefix(name, p[0]); ok {
			return p[1] + strings.ReplaceAll(rest, "_", "-")
		}
	}
	return name
}
