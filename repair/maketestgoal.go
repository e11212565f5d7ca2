package repair

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// A Makefile whose default goal runs the package's own tests (bglibs 2.04: "all:
// sysdeps.h libraries programs man selftests") fails the build when one test fails
// where the build runs: bglibs' net/resolve_ipv4addr test resolves an address, and the
// sandbox has no network. The libraries and programs are built; a distribution builds
// them as goals and runs the tests in its test step, where a test's failure is the
// tests' verdict, not the build's. The port does the same: make names the default
// goal's other prerequisites, and the test goal left out is named in the fix.

// makeTestGoalFailed is top-level make's report that a test goal's recipe failed.
var makeTestGoalFailed = re(`(?m)^g?make: \*\*\* \[(?:([A-Za-z0-9_.-]+):\d+: )?((?:self|unit|run)?(?:tests?|check|testsuite))\] Error [0-9]+$`)

func makeTestGoalRule() Rule {
	return Rule{
		Name: "make-goal-without-tests",
		Doc: "a top-level make whose default goal runs the package's tests as a prerequisite, and a test fails there (bglibs' selftests, " +
			"a resolver test in a sandbox with no network): make the goal's other prerequisites, leaving the tests to the test step",
		Signatures: []*regexp.Regexp{makeTestGoalFailed},
		Make:       makeGoalWithoutTests,
	}
}

func makeGoalWithoutTests(ctx context.Context, f Failure, env Env) (*Fix, string) {
	m := makeTestGoalFailed.FindStringSubmatch(f.text() + "\n" + f.Message)
	if m == nil {
		return nil, "no top-level make test goal failed"
	}
	file, target := m[1], m[2]
	g, why := withoutGoalPrereq(ctx, f, env, file, target)
	if why != "" {
		return nil, why
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s's default goal %s builds %s: the build runs the %s goal, the package's own tests, and a test failed there. "+
			"What the port builds is the other goals; the tests are no part of the build, and %s is left out of it.",
			g.makefile, g.goal, strings.Join(g.prereqs, ", "), target, target),
		Strategy: "run make " + g.goals + " (the default goal's prerequisites but the tests, " + target + ")",
		Plan:     &g.plan,
	}, ""
}
