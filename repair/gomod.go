package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/module"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// Go code written before modules has no go.mod, and the go command (module mode, the
// default since Go 1.16) refuses to build it: "go.mod file not found in current
// directory or any parent directory". Debian's golang-* sources are often such code;
// dh-golang builds them under the import path of the source's Go-Import-Path field. The
// default plan gives such a tree a go.mod itself; this rule does the same for a plan
// that does not (a model's, a user's, a make build that runs go test).

// goModMissing is the go command finding no go.mod: for a package, or for a pattern
// such as ./... outside any module.
var goModMissing = []*regexp.Regexp{
	re(`go\.mod file not found in current directory or any parent directory`),
	re(`pattern \S+: directory prefix \S+ does not contain main module or its selected dependencies`),
}

// goModMissingPackage names the package the build asked for: go test github.com/pkg/errors
// says "no required module provides package github.com/pkg/errors: go.mod file not found ...".
var goModMissingPackage = re(`no required module provides package ([A-Za-z0-9._~/+-]+): go\.mod file not found`)

func goModInitRule() Rule {
	return Rule{
		Name: "go-mod-init",
		Doc: "Go packages with no go.mod (GOPATH-era code) built in module mode: a go-mod phase runs go mod init with the distribution's " +
			"Go-Import-Path, the package clause's import comment or the package the failing go command named",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryConfiguration, atesor.CategoryCompilation,
			atesor.CategoryMissingTool, atesor.CategoryUnknown},
		Signatures: goModMissing,
		Make:       makeGoModInit,
	}
}

func makeGoModInit(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan"
	}
	for _, f := range env.Files {
		if path.Base(f) == "go.mod" && !strings.Contains("/"+f, "/vendor/") && !strings.Contains("/"+f, "/testdata/") {
			return nil, "the repository has a go.mod (" + f + "): the go command ran outside that module"
		}
	}
	for _, ph := range env.Plan.Phases {
		if ph.Name == knowledge.GoModPhase || slices.ContainsFunc(ph.Commands, func(c string) bool { return strings.Contains(c, "go mod init") }) {
			return nil, "the plan already makes a go.mod"
		}
	}
	mod, from := goModulePath(ctx, f, env)
	if mod == "" {
		return nil, knowledge.ErrNoGoModulePath.Error()
	}
	plan, _ := withEachCommand(*env.Plan, WithGoVetOff)
	at := 0
	for at < len(plan.Phases) && plan.Phases[at].Name == "setup" {
		at++
	}
	plan.Phases = slices.Insert(plan.Phases, at, atesor.Phase{Name: knowledge.GoModPhase, Commands: []string{knowledge.GoModInitLine(mod)}})
	return &Fix{
		Analysis: fmt.Sprintf("The Go packages have no go.mod, so the go command (module mode) cannot build them: %s. "+
			"Code written for GOPATH builds as a module once it has a go.mod with its import path (%s, from %s).",
			strings.TrimSpace(firstMatchOf(f.text(), append([]*regexp.Regexp{goModMissingPackage}, goModMissing...))), mod, from),
		Strategy: "go mod init " + mod + " before the build; go test with " + knowledge.GoVetOff +
			" (as Debian's dh-golang tests such code: its tests predate the vet checks go test runs)",
		Plan: &plan,
	}, ""
}

// goTestWord is a go test invocation of a command line.
var goTestWord = re(`(^|&&\s*|;\s*|\|\|\s*|\s)(go\s+test)(\s|$)`)

// WithGoVetOff turns off go test's vet checks on a line's go test commands, unless the
// line sets -vet itself.
func WithGoVetOff(line string) string {
	if strings.Contains(line, "-vet=") {
		return line
	}
	return goTestWord.ReplaceAllString(line, "${1}${2} "+knowledge.GoVetOff+"${3}")
}

// GoVetsOff reports whether a go test command of the plan turns vet off (a plan for Go
// packages with no go.mod does): the package's tests then run the same way.
func GoVetsOff(plan interface{ Commands() []string }) bool {
	for _, c := range plan.Commands() {
		if goTestWord.MatchString(c) && strings.Contains(c, " "+knowledge.GoVetOff) {
			return true
		}
	}
	return false
}

// goModulePath finds the module path of the repository's Go packages, in this order:
// the distribution's Go-Import-Path of the source, the detection's (the request's or an
// import comment), the package the go command named when it is one of the tree's.
func goModulePath(ctx context.Context, f Failure, env Env) (mod, from string) {
	if env.Distribution != nil {
		if d, err := env.Distribution(ctx); err == nil && d != nil && d.GoImportPath != "" && module.CheckImportPath(d.GoImportPath) == nil {
			return d.GoImportPath, fmt.Sprintf("the Go-Import-Path of the distribution's %s %s", d.Package, d.Version)
		}
	}
	if det := env.Detection; det != nil && det.GoModulePath != "" && module.CheckImportPath(det.GoModulePath) == nil {
		return det.GoModulePath, det.GoModulePathFrom
	}
	for _, m := range goModMissingPackage.FindAllStringSubmatch(f.text(), -1) {
		if mod := moduleOfPackage(m[1], env.Files); mod != "" {
			return mod, "the package " + m[1] + " the go command was asked to build"
		}
	}
	return "", ""
}

// moduleOfPackage is the module path of the repository when import path pkg is one of
// its package directories: pkg less the longest directory it ends in, or pkg itself
// when the top level is a package; else "".
func moduleOfPackage(pkg string, files []string) string {
	if module.CheckImportPath(pkg) != nil {
		return ""
	}
	dirs := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".go") {
			dirs[path.Dir(f)] = true
		}
	}
	best := ""
	for d := range dirs {
		if d != "." && strings.HasSuffix(pkg, "/"+d) && len(d) > len(best) {
			best = d
		}
	}
	switch {
	case best != "":
		return strings.TrimSuffix(pkg, "/"+best)
	case dirs["."]:
		return pkg
	}
	return ""
}
