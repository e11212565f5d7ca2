package repair

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/module"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// GOPATH-era code imports the major version of a library it was written against
// (coreos/pkg's yamlutil imports gopkg.in/yaml.v1). When no distribution package installs
// that major any more, its GOPATH build stops at 'cannot find package "gopkg.in/yaml.v1"
// in any of: ...', and the distribution's own build uses the major its Build-Depends
// install (golang-gopkg-yaml.v2-dev). The go-import-major rule rewrites the package's
// imports to that major, as a recorded patch; the compile and the tests then prove that
// the API fits.

const goImportMajorRuleName = "go-import-major"

// goPathMissingImport is a GOPATH build's missing import; group 1 is its path.
var goPathMissingImport = re(`cannot find package "([A-Za-z0-9][A-Za-z0-9_.~/+-]*)" in any of`)

// gopkgInMajor is a gopkg.in import path: group 1 the path before the major, 2 the
// major, 3 the package below the module ("" or /sub).
var gopkgInMajor = re(`^(gopkg\.in/(?:[A-Za-z0-9_-]+/)?[A-Za-z0-9_.-]+)\.v(0|[1-9][0-9]{0,3})(/.*)?$`)

// pathMajor is an import path with a major version element (PATH/vN, N >= 2).
var pathMajor = re(`^([a-z0-9.-]+\.[a-z]+/.+?)/v([2-9]|[1-9][0-9])(/.*)?$`)

// repoHost is a code host whose module roots are host/owner/repo, so a v1 import path's
// root is its first three elements.
var repoHost = re(`^(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)/[^/]+/[^/]+`)

// maxMajor bounds the majors a rule looks up.
const maxMajor = 9

// goMajor is an import path split into its module root, major version and the package
// below the module.
type goMajor struct {
	root  string
	major int
	rest  string
	gopkg bool // a gopkg.in path (root.vN), else root/vN (root for v0 and v1)
}

// splitGoMajor splits an import path at its major version; ok is false for a path
// with no recognisable module root.
func splitGoMajor(imp string) (goMajor, bool) {
	if m := gopkgInMajor.FindStringSubmatch(imp); m != nil {
		n, _ := strconv.Atoi(m[2])
		return goMajor{root: m[1], major: n, rest: m[3], gopkg: true}, true
	}
	if m := pathMajor.FindStringSubmatch(imp); m != nil {
		n, _ := strconv.Atoi(m[2])
		return goMajor{root: m[1], major: n, rest: m[3]}, true
	}
	if root := repoHost.FindString(imp); root != "" {
		return goMajor{root: root, major: 1, rest: imp[len(root):]}, true
	}
	return goMajor{}, false
}

// module is the module path at major n; at is the import path of the same package there.
func (g goMajor) module(n int) string {
	switch {
	case g.gopkg:
		return fmt.Sprintf("%s.v%d", g.root, n)
	case n <= 1:
		return g.root
	}
	return fmt.Sprintf("%s/v%d", g.root, n)
}

func (g goMajor) at(n int) string { return g.module(n) + g.rest }

func goImportMajorRule() Rule {
	return Rule{
		Name: goImportMajorRuleName,
		Doc: "a GOPATH build's import of a major version no distribution package installs (coreos/pkg's gopkg.in/yaml.v1) when the " +
			"Build-Depends install the same import path at another major (gopkg.in/yaml.v2): the package's imports are rewritten to it",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{goPathMissingImport},
		Packaged:   true,
		Make:       makeGoImportMajor,
	}
}

// majorSwitch is one missing import answered: the module imported, the one installed
// in its place and the package that installs it.
type majorSwitch struct {
	from, to, pkg string
}

func makeGoImportMajor(ctx context.Context, f Failure, env Env) (*Fix, string) {
	switch {
	case env.Plan == nil:
		return nil, "no build plan"
	case env.ReadFile == nil:
		return nil, "the sources cannot be read"
	case env.GoPackage == nil:
		return nil, "the distribution's source index is not available to tell which majors it packages"
	}
	d, why := readDistribution(ctx, env)
	if d == nil {
		return nil, why
	}
	// What the build has: the distribution's Build-Depends and what the plan installs.
	have := knowledge.GoDevPackages(append(d.installable(), strings.Fields(strings.Join(env.Plan.Commands(), " "))...))
	var switches []majorSwitch
	var notes []string
	for _, m := range goPathMissingImport.FindAllStringSubmatch(f.text()+"\n"+f.Message, 64) {
		g, ok := splitGoMajor(m[1])
		if !ok || slices.ContainsFunc(switches, func(s majorSwitch) bool { return s.from == g.module(g.major) }) {
			continue
		}
		s, why := installedMajor(ctx, env, g, have)
		if why != "" {
			notes = append(notes, m[1]+": "+why)
			continue
		}
		switches = append(switches, s)
	}
	if len(switches) == 0 {
		if len(notes) == 0 {
			return nil, "no missing import has a major version in its path"
		}
		return nil, strings.Join(notes, "; ")
	}
	actions, edited, err := majorImportPatches(ctx, env, switches)
	if err != nil {
		return nil, err.Error()
	}
	if len(actions) == 0 {
		return nil, "no Go file of the tree imports " + switches[0].from
	}
	var pkgs, said []string
	for _, s := range switches {
		pkgs = append(pkgs, s.pkg)
		said = append(said, fmt.Sprintf("%s, which no distribution package installs, to %s (%s)", s.from, s.to, s.pkg))
	}
	plan := withPackages(*env.Plan, env, pkgs)
	fix := &Fix{
		Analysis: fmt.Sprintf("The GOPATH build imports a major version nobody packages: %s. The Build-Depends of %s %s install "+
			"the same import path at another major, which the distribution's build compiles against: the imports of %s are rewritten "+
			"to it; the build and the package's tests prove the API fits.",
			excerptLine(firstMatchOf(f.text(), []*regexp.Regexp{goPathMissingImport})), d.Package, d.Version, strings.Join(edited, ", ")),
		Strategy: "rewrite the imports of " + strings.Join(said, "; "),
		Actions:  actions,
	}
	if !samePlan(plan, *env.Plan) {
		fix.Plan = &plan
	}
	return fix, ""
}

// excerptLine is a matched diagnostic without its trailing "in any of".
func excerptLine(s string) string { return strings.TrimSuffix(s, " in any of") }

// installedMajor finds the major of g's module that a package of have installs, the
// nearest to g's own (the higher first on a tie). The Sources index matches an import
// path below a Go-Import-Path too, so a major whose package is the v1 module's (root/v3
// below root) is no package of that major.
func installedMajor(ctx context.Context, env Env, g goMajor, have []string) (majorSwitch, string) {
	pkgOf := map[int]string{}
	for n := 1; n <= maxMajor; n++ {
		p, _, err := env.GoPackage(ctx, g.at(n))
		if err != nil {
			return majorSwitch{}, "the distribution's source index could not be read: " + err.Error()
		}
		if p != "" && (g.gopkg || n == 1 || p != pkgOf[1]) {
			pkgOf[n] = p
		}
	}
	if p := pkgOf[g.major]; p != "" {
		return majorSwitch{}, "the distribution packages it (" + p + ")"
	}
	best := 0
	for n, p := range pkgOf {
		if !slices.Contains(have, p) || module.CheckImportPath(g.module(n)) != nil {
			continue
		}
		if best == 0 || dist(n, g.major) < dist(best, g.major) || dist(n, g.major) == dist(best, g.major) && n > best {
			best = n
		}
	}
	if best == 0 {
		return majorSwitch{}, "no other major of " + g.module(g.major) + " is among the Build-Depends or what the plan installs"
	}
	return majorSwitch{from: g.module(g.major), to: g.module(best), pkg: pkgOf[best]}, ""
}

func dist(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// majorImportPatches are the patches of the tree's Go files that import the switched
// modules (or packages below them), and the files edited.
func majorImportPatches(ctx context.Context, env Env, switches []majorSwitch) ([]atesor.Action, []string, error) {
	var actions []atesor.Action
	var edited []string
	for _, rel := range env.Files {
		if !strings.HasSuffix(rel, ".go") || skipGoDir(rel) {
			continue
		}
		b, err := env.ReadFile(ctx, rel)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", rel, err)
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, rel, b, parser.ImportsOnly)
		if err != nil {
			continue // a file the build does not compile either
		}
		lines := map[int]bool{}
		for _, spec := range file.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err == nil && slices.ContainsFunc(switches, func(s majorSwitch) bool { return p == s.from || strings.HasPrefix(p, s.from+"/") }) {
				lines[fset.Position(spec.Path.Pos()).Line-1] = true
			}
		}
		if len(lines) == 0 {
			continue
		}
		diff, ok := linesDiff(rel, string(b), false, func(i int, body string) (string, bool) {
			if !lines[i] {
				return "", false
			}
			n := body
			for _, s := range switches {
				n = strings.ReplaceAll(n, `"`+s.from+`"`, `"`+s.to+`"`)
				n = strings.ReplaceAll(n, `"`+s.from+`/`, `"`+s.to+`/`)
			}
			return n, n != body
		})
		if ok {
			actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: rel, Diff: diff})
			edited = append(edited, rel)
		}
	}
	return actions, edited, nil
}

// skipGoDir reports a file the go command does not build as the tree's: under vendor,
// testdata, a dot or underscore directory (the GOPATH plan's own .gopath link).
func skipGoDir(rel string) bool {
	for _, el := range strings.Split(path.Dir(rel), "/") {
		if el == "vendor" || el == "testdata" || el != "." && (strings.HasPrefix(el, ".") || strings.HasPrefix(el, "_")) {
			return true
		}
	}
	return false
}
