package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// A tree whose top-level Makefile only recurses, beside a configure.ac and no configure
// script, reads as a plain make build, yet its makefiles include what configure writes:
// pgpointcloud 1.2.5's lib/Makefile starts with "include ../config.mk", which configure
// makes from config.mk.in (AC_OUTPUT), so make stops at "No rule to make target
// '../config.mk'". The porter runs the autotools first: the tree's configure.ac is its
// build, and the Makefile is the part that runs after it.

const configureIncludeRuleName = "configure-generated-include"

// makeNoRuleInclude is make's report of a file it was to include (or a goal) that is
// neither a file nor a target it can make: no "needed by" follows.
var makeNoRuleInclude = re("No rule to make target [`'‘]([^'’`\\s]+)['’]\\.\\s+Stop\\.")

func configureIncludeRule() Rule {
	return Rule{
		Name: configureIncludeRuleName,
		Doc: "a plain make build whose makefiles include a file configure writes (pgpointcloud's ../config.mk, made from config.mk.in by configure.ac's AC_OUTPUT): " +
			"the default autotools plan, keeping the packages installed so far",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{makeNoRuleInclude},
		Make:       makeConfigureInclude,
	}
}

func makeConfigureInclude(ctx context.Context, f Failure, env Env) (*Fix, string) {
	det := env.Detection
	if env.ReadFile == nil || env.Plan == nil || det == nil {
		return nil, "no build files, no detection or no plan"
	}
	if kind, ok := planConfigureKind(*env.Plan, f.Phase); ok {
		return nil, "the plan already configures with " + kind.name
	}
	m := makeNoRuleInclude.FindStringSubmatch(f.Message)
	if m == nil {
		m = makeNoRuleInclude.FindStringSubmatch(f.text())
	}
	if m == nil {
		return nil, "no file make could not make named"
	}
	root, ok := autoconfDir(env.Files)
	if !ok {
		return nil, "the tree has no configure.ac or configure.in"
	}
	// make names the file relative to the directory it ran in; configure writes it
	// relative to configure.ac's.
	name := path.Clean(m[1])
	for strings.HasPrefix(name, "../") {
		name = strings.TrimPrefix(name, "../")
	}
	template, ok := locateFile(env.Files, name+".in")
	if !ok || (root != "." && !under(template, root)) || strings.HasPrefix(m[1], "/") {
		return nil, "the tree has no " + name + ".in for configure to write " + name + " from"
	}
	out := strings.TrimPrefix(strings.TrimSuffix(template, ".in"), root+"/")
	acFile, listed := configureOutputs(ctx, env, root, out)
	if !listed {
		return nil, fmt.Sprintf("%s is not among the files %s writes (AC_OUTPUT, AC_CONFIG_FILES)", out, acFile)
	}
	alt := atesor.BuildCandidate{BuildSystem: atesor.BuildAutotools, Evidence: acFile, Confidence: 0.85}
	if i := slices.IndexFunc(det.Alternatives, func(c atesor.BuildCandidate) bool { return c.Evidence == acFile }); i >= 0 {
		alt = det.Alternatives[i]
	}
	next := detectionFor(det, alt)
	plan, _, err := knowledge.DefaultPlan(&next, env.Platform)
	if err != nil || len(plan.Phases) == 0 {
		return nil, fmt.Sprintf("no default autotools plan for %s: %v", acFile, err)
	}
	plan = withPackages(plan, env, planInstalls(*env.Plan, installCommand(env)))
	if samePlan(plan, *env.Plan) {
		return nil, "the default autotools plan is the one that ran"
	}
	return &Fix{
		Analysis: fmt.Sprintf("make has no rule for %s: the build's makefiles include a file configure writes (%s, from %s, which %s lists), "+
			"and nothing ran configure. The tree is an autotools build whose configure.ac comes first; the build runs it, with the packages installed so far.",
			m[1], out, template, acFile),
		Strategy: fmt.Sprintf("switch to the default autotools plan (%s), keeping the installed packages", acFile),
		Plan:     &plan,
	}, ""
}

// configureOutputs returns the tree's configure.ac (or configure.in) in root, and
// whether its AC_OUTPUT or AC_CONFIG_FILES lists out (a path relative to root).
func configureOutputs(ctx context.Context, env Env, root, out string) (string, bool) {
	for _, name := range []string{"configure.ac", "configure.in"} {
		acFile := path.Join(root, name)
		if !slices.Contains(env.Files, acFile) {
			continue
		}
		b, err := env.ReadFile(ctx, acFile)
		if err != nil || len(b) > maxAutotoolsFile {
			return acFile, false
		}
		for _, m := range m4ListMacros(string(b)) {
			if m.name == "AC_CONFIG_SUBDIRS" {
				continue
			}
			for _, w := range m.words {
				if written, _, _ := strings.Cut(w.text, ":"); path.Clean(written) == out {
					return acFile, true
				}
			}
		}
		return acFile, false
	}
	return path.Join(root, "configure.ac"), false
}
