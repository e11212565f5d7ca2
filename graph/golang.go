package graph

import (
	"path"
	"slices"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// withGoArtifacts adds the files the default Go plan writes (every command, or a
// library's test binaries) to the expected artifacts, so that a port reports each one
// found or missing; an artifact of the same name already listed is not repeated. The
// list stays within the analysis' cap.
func withGoArtifacts(expected []string, d *atesor.Detection) []string {
	if d == nil || d.BuildSystem != atesor.BuildGo {
		return expected
	}
	for _, a := range d.GoArtifacts {
		if len(expected) >= validate.MaxExpectedArtifacts {
			break
		}
		if !slices.ContainsFunc(expected, func(e string) bool { return path.Base(e) == path.Base(a) }) {
			expected = append(expected, a)
		}
	}
	return expected
}

// withPlanGoTags gives the test commands the build tags the plan's go commands use (a
// scripted fix may have added purego): tests built without them would not compile the
// code that was verified.
func withPlanGoTags(cmds []string, plan *atesor.BuildPlan) []string {
	if plan == nil {
		return cmds
	}
	tags := repair.GoTags(*plan)
	if len(tags) == 0 {
		return cmds
	}
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = repair.WithGoTags(c, tags)
	}
	return out
}

// goInstallLine installs every command of the module into bin. The go command refuses
// GOBIN for a cross build ("cannot install cross-compiled binaries when GOBIN is set"),
// which is what the amd64 build of a fetched toolchain does (GOARCH=riscv64), so there
// go build -o bin/ builds them, with the names go install would give them.
func goInstallLine(s *atesor.State, bin string) string {
	if t := s.GoToolchain; t != nil && t.Arch != "" && t.Arch != "riscv64" {
		return "go build -buildvcs=false -o " + shellQuote(bin) + "/ ./..."
	}
	return "GOTOOLCHAIN=auto GOBIN=" + shellQuote(bin) + " go install -buildvcs=false ./..."
}
