package gotool

import (
	"path"
	"slices"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/repair"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// WithArtifacts adds the files the default Go plan writes (every command, or a
// library's test binaries) to the expected artifacts, so that a port reports each one
// found or missing; an artifact of the same name already listed is not repeated. The
// list stays within the analysis' cap. Detections of other build systems add nothing.
func WithArtifacts(expected []string, d *atesor.Detection) []string {
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

// WithPlanTags gives commands (tests, the install step) the build tags the plan's go
// commands use (a scripted fix may have added purego): code built without them would
// not be the code that was verified. When the plan's go test turns vet off (Go
// packages with no go.mod), so do the commands' go test lines. When the plan names its
// packages one by one in place of ./... (it leaves directories out that cannot be
// built, see [knowledge.GoPlanPackages]), the commands' ./... become the same lists.
func WithPlanTags(cmds []string, plan *atesor.BuildPlan) []string {
	if plan == nil {
		return cmds
	}
	tags := repair.GoTags(*plan)
	vetOff := repair.GoVetsOff(*plan)
	build, test, listed := knowledge.GoPlanPackages(plan)
	if len(tags) == 0 && !vetOff && !listed {
		return cmds
	}
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = repair.WithGoTags(c, tags)
		if vetOff {
			out[i] = repair.WithGoVetOff(out[i])
		}
		if listed {
			out[i] = knowledge.WithGoPackages(out[i], build, test)
		}
	}
	return out
}

// InstallLine installs every command of the module into bin with toolchain t (nil: the
// suite's). The go command refuses GOBIN for a cross build ("cannot install
// cross-compiled binaries when GOBIN is set"), which is what the amd64 build of a
// fetched toolchain does (GOARCH=riscv64), so there go build -o bin/ builds them, with
// the names go install would give them.
func InstallLine(t *atesor.GoToolchain, bin string) string {
	if t != nil && t.Arch != "" && t.Arch != "riscv64" {
		return "go build -buildvcs=false -o " + shellwords.Quote(bin) + "/ ./..."
	}
	return "GOTOOLCHAIN=auto GOBIN=" + shellwords.Quote(bin) + " go install -buildvcs=false ./..."
}
