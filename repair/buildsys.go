package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// wrongSystemSignatures are failures of a build system's own configure step.
var wrongSystemSignatures = []*regexp.Regexp{
	re(`CMake Error`),
	re(`meson\.build:\d+:\d+: ERROR`),
	re(`(?m)^ERROR: (?:Unknown|Problem|Invalid|Meson)`),
	re(`configure: error: `),
	re(`(?i)\bcmake\b.*(?:not found|required)`),
	re(`(?i)no targets specified and no makefile found|No rule to make target '(?:all|install)'`),
}

func buildSystemRule() Rule {
	return Rule{
		Name: "next-build-system",
		Doc:  "a wrongly chosen build system (a configure that only wraps CMake, a tree with both meson and CMake): the next detected system's default plan",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryMissingTool,
			atesor.CategoryUnknown, atesor.CategoryDependency},
		Signatures: wrongSystemSignatures,
		Make:       makeNextBuildSystem,
	}
}

func makeNextBuildSystem(_ context.Context, _ Failure, env Env) (*Fix, string) {
	det := env.Detection
	if det == nil || len(det.Alternatives) == 0 {
		return nil, "detection found no other build system"
	}
	chosen := det.BuildSystem
	for _, alt := range det.Alternatives {
		if alt.BuildSystem == chosen && !det.ShippedConfigure {
			continue
		}
		next := *det
		next.BuildSystem, next.Evidence, next.Confidence = alt.BuildSystem, alt.Evidence, alt.Confidence
		next.ShippedConfigure = alt.BuildSystem == atesor.BuildAutotools && path.Base(alt.Evidence) == "configure"
		next.BuildDir = ""
		if d := path.Dir(alt.Evidence); d != "." {
			next.BuildDir = d
		}
		next.Alternatives = nil
		plan, _, err := knowledge.DefaultPlan(&next, env.Platform)
		if err != nil || len(plan.Phases) == 0 || (env.Plan != nil && samePlan(plan, *env.Plan)) {
			continue
		}
		return &Fix{
			Analysis: fmt.Sprintf("The %s build failed in its own configure step; the tree also has a %s build (%s).", systemName(det), alt.BuildSystem, alt.Evidence),
			Strategy: fmt.Sprintf("switch to the default %s plan", alt.BuildSystem),
			Plan:     &plan,
		}, ""
	}
	return nil, "no other detected build system gives a different plan"
}

func systemName(det *atesor.Detection) string {
	if det.ShippedConfigure {
		return "configure"
	}
	return string(det.BuildSystem)
}

func samePlan(a, b atesor.BuildPlan) bool {
	return slices.EqualFunc(a.Phases, b.Phases, func(x, y atesor.Phase) bool {
		return x.Name == y.Name && slices.Equal(x.Commands, y.Commands)
	})
}
