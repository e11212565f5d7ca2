package knowledge

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/module"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
)

// Go code with no go.mod that imports packages outside the tree has nothing that names a
// version of them, so module mode cannot build it. Debian builds such a source one way:
// dh-golang's GOPATH mode (GO111MODULE=off), the source placed at
// $GOPATH/src/<Go-Import-Path>, and the golang-*-dev Build-Depends' sources, installed
// under /usr/share/gocode/src, on the GOPATH. [GoPathPlan] is that build as plan lines.

// GoPathPhase is the plan phase that lays out the GOPATH of [GoPathPlan].
const GoPathPhase = "go-path"

// GoPathDir is the GOPATH directory, relative to the repository, that [GoPathPlan] lays
// out: a dot directory, so go build ./... and go test ./... do not walk into it.
const GoPathDir = ".gopath"

// DistGoPath is where Debian's golang-*-dev packages install their sources, the GOPATH
// entry dh-golang builds against.
const DistGoPath = "/usr/share/gocode"

// goDevPackage is the name of a Debian package of Go sources for GOPATH builds.
var goDevPackage = regexp.MustCompile(`^golang-[a-z0-9][a-z0-9+.-]*-dev$`)

// GoDevPackages are the packages of names that are Debian's Go source packages
// (golang-*-dev), in order, each once.
func GoDevPackages(names []string) []string {
	var out []string
	for _, n := range names {
		if goDevPackage.MatchString(n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// ErrNoGoDevPackages is returned by [GoPathPlan] when no golang-*-dev package is given.
var ErrNoGoDevPackages = errors.New("no golang-*-dev package provides the imported Go packages")

// GoPathPlan is the plan for Go packages with no go.mod that import packages outside the
// standard library and the tree (Detection.GoExternalImports), built as Debian's
// dh-golang builds them: setup installs the Go toolchain and devPackages (the
// distribution's golang-*-dev Build-Depends, whose sources land under [DistGoPath]/src);
// the [GoPathPhase] links the repository at [GoPathDir]/src/<module path>; the build runs
// from that link with GO111MODULE=off and GOPATH=<repository>/.gopath:/usr/share/gocode,
// with the default Go plan's commands and flags (a library's test binaries into bin/, go
// test with -vet=off). The link is relative, so the plan replays in another workspace.
// It also returns the test command.
func GoPathPlan(det *atesor.Detection, p atesor.Platform, devPackages []string) (atesor.BuildPlan, []string, error) {
	switch {
	case det == nil:
		return atesor.BuildPlan{}, nil, ErrNoDetection
	case det.BuildSystem != atesor.BuildGo || !det.GoNoModFile:
		return atesor.BuildPlan{}, nil, errors.New("a GOPATH build is for Go packages with no go.mod")
	case det.GoModulePath == "":
		return atesor.BuildPlan{}, nil, ErrNoGoModulePath
	}
	return goPathPlan(det, p, devPackages, det.GoModulePath, fmt.Sprintf("The Go packages have no go.mod and import %s", importNames(det.GoExternalImports)))
}

// GoModulePathPlan is [GoPathPlan] for a Go module whose dependencies the go command
// cannot fetch (the module proxy refuses a version go.mod requires): Debian builds such a
// source the same way, in GOPATH mode, which ignores go.mod, against the golang-*-dev
// Build-Depends it packages instead. importPath is the import path the source is built
// under (the distribution's Go-Import-Path, else go.mod's module path); why says what
// could not be fetched, for the plan's reasoning.
func GoModulePathPlan(det *atesor.Detection, p atesor.Platform, devPackages []string, importPath, why string) (atesor.BuildPlan, []string, error) {
	switch {
	case det == nil:
		return atesor.BuildPlan{}, nil, ErrNoDetection
	case det.BuildSystem != atesor.BuildGo:
		return atesor.BuildPlan{}, nil, errors.New("a GOPATH build is for Go packages")
	case importPath == "":
		return atesor.BuildPlan{}, nil, ErrNoGoModulePath
	}
	return goPathPlan(det, p, devPackages, importPath, "The module's dependencies cannot be fetched ("+why+")")
}

// goPathPlan is the GOPATH build of both plans: the source linked at importPath, the
// reasoning led by why.
func goPathPlan(det *atesor.Detection, p atesor.Platform, devPackages []string, importPath, why string) (atesor.BuildPlan, []string, error) {
	if p.InstallCommand == "" || p.UpdateCommand == "" {
		return atesor.BuildPlan{}, nil, fmt.Errorf("platform %q has no install command: get it from knowledge.Profile", p.Name)
	}
	if err := module.CheckImportPath(importPath); err != nil {
		return atesor.BuildPlan{}, nil, fmt.Errorf("import path for the GOPATH build: %w", err)
	}
	if strings.Contains(det.ModuleDir, "..") || strings.HasPrefix(det.ModuleDir, "/") || shellDir(det.ModuleDir) != "" {
		return atesor.BuildPlan{}, nil, fmt.Errorf("the Go packages are in %q, not at the top of the repository", det.ModuleDir)
	}
	devs := GoDevPackages(devPackages)
	if len(devs) == 0 {
		return atesor.BuildPlan{}, nil, ErrNoGoDevPackages
	}
	tools := slices.Clone(toolDeps[atesor.BuildGo])
	if det.HasCGO {
		tools = append(tools, "build-essential", "pkg-config")
	}
	setup := setupCommand(p, tools, det.Dependencies)
	if setup == "" {
		setup = p.UpdateCommand + " && " + p.InstallCommand
	}
	for _, d := range devs {
		if !slices.Contains(strings.Fields(setup), d) {
			setup += " " + d
		}
	}
	link := GoPathDir + "/src/" + importPath
	up := strings.Repeat("../", strings.Count(link, "/"))
	layout := fmt.Sprintf("mkdir -p %s && ln -sfn %s %s",
		shellQuote(path.Dir(link)), strings.TrimSuffix(up, "/"), shellQuote(link))
	build := goPathEnv(link, goBuildCommand(det))
	// dh-golang tests GOPATH builds with vet off, module or not.
	tests := []string{goPathEnv(link, goToolchainEnv+" go test "+GoVetOff+" ./...")}
	from := ""
	if det.GoModulePath == importPath && det.GoModulePathFrom != "" {
		from = ", from " + det.GoModulePathFrom
	}
	plan := atesor.BuildPlan{
		Reasoning: fmt.Sprintf("Default go plan from scripted detection (evidence %s, confidence %.2f). "+
			"%s: built as Debian's dh-golang builds them, in GOPATH mode "+
			"(GO111MODULE=off) at %s (import path %s%s), against the sources of %s under %s/src.",
			textlist.OrNone(det.Evidence), det.Confidence, why, link,
			importPath, from, strings.Join(devs, " "), DistGoPath),
		Phases: []atesor.Phase{
			{Name: "setup", Commands: []string{setup}},
			{Name: GoPathPhase, Commands: []string{layout}},
			{Name: "build", Commands: []string{build}},
		},
	}
	return plan, tests, nil
}

// goPathEnv runs the go commands of cmd in GOPATH mode from the repository's link under
// the GOPATH: the go command takes a package's import path from the directory it runs
// in, which must lie under a GOPATH entry's src.
func goPathEnv(link, cmd string) string {
	return fmt.Sprintf(`export GO111MODULE=off GOPATH="$PWD/%s:%s" && cd %s && %s`, GoPathDir, DistGoPath, shellQuote(link), cmd)
}

// importNames lists imports with the file naming each.
func importNames(deps []atesor.Dependency) string {
	names := make([]string, 0, len(deps))
	for _, d := range deps {
		names = append(names, d.Name+" ("+d.Evidence+")")
	}
	return textlist.OrNone(strings.Join(names, ", "))
}

// GoPathImportPath is the import path a plan with the [GoPathPhase] builds its source
// under: the link its layout command makes below [GoPathDir]/src. ok is false for a plan
// with no such phase or link.
func GoPathImportPath(plan *atesor.BuildPlan) (importPath string, ok bool) {
	if plan == nil {
		return "", false
	}
	for _, ph := range plan.Phases {
		if ph.Name != GoPathPhase {
			continue
		}
		for _, c := range ph.Commands {
			words := strings.Fields(c)
			if len(words) < 3 || words[len(words)-3] != "-sfn" {
				continue
			}
			link := strings.Trim(words[len(words)-1], "'")
			if p, ok := strings.CutPrefix(link, GoPathDir+"/src/"); ok && module.CheckImportPath(p) == nil {
				return p, true
			}
		}
	}
	return "", false
}

// GoPathTestCommands are the test commands of a [GoPathPlan] or [GoModulePathPlan] build:
// a go test command of tests that does not run in GOPATH mode runs from the plan's link
// with the plan's GOPATH, as the build does (a module's own go test would fetch the
// modules the GOPATH build does without). ok is false when the plan is no GOPATH build
// or every command already runs in GOPATH mode.
func GoPathTestCommands(plan *atesor.BuildPlan, tests []string) (out []string, ok bool) {
	imp, isGoPath := GoPathImportPath(plan)
	if !isGoPath {
		return nil, false
	}
	out = slices.Clone(tests)
	for i, c := range out {
		if strings.Contains(c, "go test") && !strings.Contains(c, "GO111MODULE=off") {
			out[i], ok = goPathEnv(GoPathDir+"/src/"+imp, c), true
		}
	}
	return out, ok
}

// GoPathInstallLine is the install step of a [GoPathPlan]'s build (plan has its
// [GoPathPhase], whose link names the import path): the commands' programs built into
// directory bin in GOPATH mode from the repository's link. go install would also write
// each library package's Go archive (.a, no ELF) under the GOPATH's pkg directory,
// inside the repository, where they would pass for the port's artifacts; go build -o
// bin/ writes only the programs. A library's step builds its packages and stages
// nothing. ok is false for any other plan.
func GoPathInstallLine(det *atesor.Detection, plan *atesor.BuildPlan, bin string) (line string, ok bool) {
	if det == nil || plan == nil || !slices.ContainsFunc(plan.Phases, func(ph atesor.Phase) bool { return ph.Name == GoPathPhase }) {
		return "", false
	}
	imp, ok := GoPathImportPath(plan)
	if !ok {
		// A GOPATH phase written by hand, with no link this package makes: the import
		// path of Go packages with no go.mod.
		if !det.GoNoModFile || module.CheckImportPath(det.GoModulePath) != nil {
			return "", false
		}
		imp = det.GoModulePath
	}
	pkgs := "./..."
	hasMain := det.HasMain
	if build, _, ok := GoPlanPackages(plan); ok && len(build) > 0 {
		// The plan leaves directories out (examples of several mains): the install step
		// builds what the plan built, and has a program to stage only when one of the
		// module's commands is among them.
		pkgs = goPackageWords(build)
		hasMain = goListHasCommand(build, det.GoCommands)
	}
	link := GoPathDir + "/src/" + imp
	if !hasMain {
		// A library has no program to stage, as go install ./... stages none of a library
		// module; go build -o refuses a pattern with no main package.
		return goPathEnv(link, goToolchainEnv+" go build -buildvcs=false "+pkgs), true
	}
	return goPathEnv(link, goToolchainEnv+" go build -buildvcs=false -o "+shellQuote(bin)+"/ "+pkgs), true
}
