package knowledge

import (
	"errors"
	"fmt"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// GoModPhase is the plan phase that gives Go packages with no go.mod a go.mod.
const GoModPhase = "go-mod"

// ErrNoGoModulePath is returned by [DefaultPlan] for Go packages with no go.mod when no
// module path is known.
var ErrNoGoModulePath = errors.New("the Go packages have no go.mod and no module path is known " +
	"(no Go-Import-Path from the distribution, no import comment on a package clause): " +
	"give the module path (atesor port --go-module PATH, graph Request.GoModule), or add a go.mod to the source")

// GoImportsError is returned by [DefaultPlan] for Go packages with no go.mod that
// import packages outside the standard library and the tree: no go.mod requires them,
// so the go command cannot build them, and the port takes no Go dependencies for such
// code. It wraps [ErrGoImportsWithoutModule].
type GoImportsError struct {
	Imports []atesor.Dependency
}

// ErrGoImportsWithoutModule is wrapped by [GoImportsError].
var ErrGoImportsWithoutModule = errors.New("the Go packages have no go.mod and import packages outside the tree")

func (e *GoImportsError) Error() string {
	names := make([]string, 0, len(e.Imports))
	for _, d := range e.Imports {
		names = append(names, d.Name+" ("+d.Evidence+")")
	}
	return fmt.Sprintf("the Go packages have no go.mod and import %s: with no go.mod nothing requires a version of them, "+
		"and no golang-*-dev Build-Depends of a distribution's package of the source provide them for a GOPATH build "+
		"(the port takes no Go dependencies from a module proxy for such code); "+
		"give the source a go.mod that requires them (go mod init PATH && go mod tidy)", strings.Join(names, ", "))
}

func (e *GoImportsError) Unwrap() error { return ErrGoImportsWithoutModule }

// GoModInitLine makes a go.mod for module path mod unless one exists: a plan's phases
// run again after a fix, and the go command refuses to initialise a module twice.
func GoModInitLine(mod string) string {
	return "test -f go.mod || " + goToolchainEnv + " go mod init " + shellQuote(mod)
}

// goBuildCommand is the default plan's Go build, run in the module directory:
//
//   - a module with commands builds every one of them into bin/, where go build names
//     each binary as go install would (cmd/tool -> bin/tool, the root package after the
//     module path);
//   - a library module (no command) builds all its packages and compiles each package's
//     test binary into bin/ (go test -c: bin/pkg.test), its riscv64 evidence; finish
//     still runs its tests; when two packages share a test binary name, it compiles
//     those of Detection.GoTestPackages, the first of each name;
//   - a detection that knows a main package but no command list (made before commands
//     were recorded) builds that main package.
func goBuildCommand(det *atesor.Detection) string {
	prefix := goToolchainEnv + " go build -buildvcs=false"
	cmds := det.GoCommands
	if len(cmds) == 0 && det.HasMain && det.MainPath != "" && len(det.GoArtifacts) == 0 {
		cmds = []string{det.MainPath}
	}
	if len(cmds) > 0 {
		pkgs := make([]string, 0, len(cmds))
		for _, c := range cmds {
			pkgs = append(pkgs, goPkgPath(c))
		}
		return prefix + " -o " + goBinDir + "/ " + strings.Join(pkgs, " ")
	}
	if len(det.GoArchivePackages) > 0 && len(det.GoArchivePackages) == len(det.GoArtifacts) {
		// A library with no program and no test for riscv64: its package archives, one
		// go build -o each (it writes the archive of a single package only). The
		// detection names them in GoArtifacts, in the same order.
		line := prefix + " ./..."
		for i, d := range det.GoArchivePackages {
			line += " && " + prefix + " -o " + shellQuote(det.GoArtifacts[i]) + " " + goPkgPath(d)
		}
		return line
	}
	tests := "./..."
	if len(det.GoTestPackages) > 0 {
		dirs := make([]string, len(det.GoTestPackages))
		for i, d := range det.GoTestPackages {
			dirs[i] = GoPackageDir(d)
		}
		tests = goPackageWords(dirs)
	}
	return prefix + " ./... && " + goToolchainEnv + " go test" + goVetFlag(det) + " -buildvcs=false -c -o " + goBinDir + "/ " + tests
}

// goVetFlag turns off the vet checks go test runs for Go packages with no go.mod, as
// Debian's dh-golang does for them: their tests were written before those checks (Go
// 1.24's printf check of non-constant format strings, the tests analyzer's example
// names), which then stop the test build of code that builds and works.
func goVetFlag(det *atesor.Detection) string {
	if det.GoNoModFile {
		return " " + GoVetOff
	}
	return ""
}

// GoVetOff is the go test flag of [goVetFlag].
const GoVetOff = "-vet=off"
