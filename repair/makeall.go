package repair

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// A Makefile whose first target only prints instructions (cvector 1.0.4's "default:"
// echoes "To compile the CVector library and example programs type: make all") builds
// nothing when make runs with no goal, so verification finds no artifact. The porter
// runs the goal the Makefile names for building everything, as the package's own
// instructions say: make all.
var (
	noArtifactBuilt = re(`^verification failed: no primary artifact: the build produced no riscv64 program or library`)
	makeRuleLine    = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_.-]*)\s*:(?:[^=]|$)`)
	makeNoGoal      = regexp.MustCompile(`(?:^|&&\s*|;\s*)(make(?:\s+-j\S*)?)\s*(?:&&|;|$)`)
)

// maxMakefile bounds the Makefile the rule reads.
const maxMakefile = 1 << 20

func makeAllRule() Rule {
	return Rule{
		Name: "make-all-target",
		Doc: "a plain make build whose Makefile's first target builds nothing (it prints how to build) and that has an all target: " +
			"make all, as the Makefile's own instructions say",
		Verify:     true,
		Signatures: []*regexp.Regexp{noArtifactBuilt},
		Make:       makeMakeAll,
	}
}

// firstAndAll returns the Makefile's first rule target (special .TARGETS and pattern
// rules aside) and whether it has an all target.
func firstAndAll(text string) (first string, hasAll bool) {
	for _, m := range makeRuleLine.FindAllStringSubmatch(text, -1) {
		t := m[1]
		if first == "" {
			first = t
		}
		if t == "all" {
			hasAll = true
		}
	}
	return first, hasAll
}

func makeMakeAll(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if !noArtifactBuilt.MatchString(strings.TrimSpace(f.Message)) {
		return nil, "verification found more than a build with no artifact"
	}
	if env.Plan == nil || env.ReadFile == nil {
		return nil, "no build plan or build files to read"
	}
	var text, name string
	for _, n := range makeDefaultFiles {
		if b, err := env.ReadFile(ctx, n); err == nil && len(b) <= maxMakefile {
			text, name = string(b), n
			break
		}
	}
	if name == "" {
		return nil, "no top-level Makefile"
	}
	first, hasAll := firstAndAll(text)
	if !hasAll || first == "" || first == "all" {
		return nil, fmt.Sprintf("%s's first target is %q and it has no other all target", name, first)
	}
	plan, _, ok := editPlan(*env.Plan, "", []planEdit{{where: "make", all: true, do: func(line string) (string, bool) {
		loc := makeNoGoal.FindStringSubmatchIndex(line)
		if loc == nil || strings.Contains(line, "configure") || strings.Contains(line, "cmake") {
			return line, false
		}
		return line[:loc[3]] + " all" + line[loc[3]:], true
	}}})
	if !ok {
		return nil, "the plan runs no make without a goal"
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s's first target, %s, builds nothing the port can verify, and the Makefile has an all target: make with no goal ran %s only.", name, first, first),
		Strategy: "run make all",
		Plan:     &plan,
	}, ""
}
