package install

import (
	"regexp"

	"github.com/eclipse-atesor/atesor-go"
)

// The build system that did the build is the plan's, not always the detection's: a fix
// may switch a port to another build of the tree (next-build-system moves cvector from
// its CMakeLists.txt, which needs macros of the project it was cut from, to its
// Makefile), and the install step must then install the way the plan built.
var planSystems = []struct {
	system atesor.BuildSystem
	word   *regexp.Regexp
}{
	{atesor.BuildCMake, regexp.MustCompile(`(?:^|&&|;|\s)cmake\s`)},
	{atesor.BuildMeson, regexp.MustCompile(`(?:^|&&|;|\s)meson\s+(?:setup\s|compile\s|-D|[^-\s])`)},
	{atesor.BuildCargo, regexp.MustCompile(`(?:^|&&|;|\s)cargo\s+(?:build|test|install)\b`)},
	{atesor.BuildAutotools, regexp.MustCompile(`(?:^|&&|;|\s)(?:\./|\.\./|\S+/)?configure(?:\s|$)`)},
	{atesor.BuildGo, regexp.MustCompile(`(?:^|&&|;|\s)go\s+(?:build|install|test)\b`)},
	// A Perl plan runs make after perl Makefile.PL: it is Perl's.
	{atesor.BuildPerl, regexp.MustCompile(`(?:^|&&|;|\s)perl\s+(?:-\S+\s+)*Makefile\.PL\b`)},
	// An R plan's R CMD INSTALL runs the package's configure and make itself.
	{atesor.BuildR, regexp.MustCompile(`(?:^|&&|;|\s)R\s+CMD\s+INSTALL\b`)},
	{atesor.BuildMake, regexp.MustCompile(`(?:^|&&|;|\s)g?make(?:\s|$)`)},
}

// PlanBuildSystem returns the build system the plan's commands run, outside its setup
// phases, in the order above (a cmake plan that also runs make is cmake's, a configure
// that runs make is autotools'); BuildUnknown when no command names one.
func PlanBuildSystem(plan *atesor.BuildPlan) atesor.BuildSystem {
	for _, ps := range planSystems {
		if runsCommand(plan, ps.word) {
			return ps.system
		}
	}
	return atesor.BuildUnknown
}

// runsSystem reports whether the plan runs bs outside its setup phases.
func runsSystem(plan *atesor.BuildPlan, bs atesor.BuildSystem) bool {
	for _, ps := range planSystems {
		if ps.system == bs && runsCommand(plan, ps.word) {
			return true
		}
	}
	return false
}

// runsCommand reports whether a command outside the plan's setup phases matches word.
func runsCommand(plan *atesor.BuildPlan, word *regexp.Regexp) bool {
	if plan == nil {
		return false
	}
	for _, ph := range plan.Phases {
		if ph.Name == "setup" {
			continue
		}
		for _, c := range ph.Commands {
			if word.MatchString(c) {
				return true
			}
		}
	}
	return false
}
