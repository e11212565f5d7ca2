package repair

import (
	"bytes"
	"context"
	"fmt"
	"go/build"
	"io"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// go build ./... builds every package directory of the tree, and a directory that is no
// package stops it: an examples directory of several one-file programs, each "package
// main" with its own main and run alone with go run examples/basic.go, fails with "main
// redeclared in this block"; an example written against an older API fails on its own
// compile error. The library builds without them. Debian's dh-golang leaves such
// directories out of its package list (DH_GOLANG_EXCLUDES), and a porter does the same:
// the plan's go commands name the tree's package directories one by one, without
// those. Only directories that are no part of the library qualify (examples, samples,
// demos, docs, benchmarks, tools, or a directory of several mains); a compile error in
// the module's root or in any other package is a real one and refused.

// goCompileSignatures are the go command's compile errors of a package: the clearest,
// two declarations of one name in a package, and any error under a "# package" header.
var goCompileSignatures = []*regexp.Regexp{
	re(`(?m)^\S+\.go:\d+:\d+: \S+ redeclared in this block`),
	re(`(?m)^# \S+(?: \[\S+\])?\r?\n\S+\.go:\d+(?::\d+)?: `),
}

// goCompileError is one error line of the go command: file:line[:col]: message. The
// indented lines that follow one ("\tother declaration of x") belong to it.
var goCompileError = re(`(?m)^((?:\./)?[^\s:]+\.go|/[^\s:]+\.go):(\d+)(?::\d+)?: (.+?)\r?$`)

// goMainFunc is a file's func main declaration and goPackageMain its package clause.
var (
	goMainFunc    = re(`(?m)^func[ \t]+main[ \t]*\([ \t]*\)`)
	goPackageMain = re(`(?m)^package[ \t]+main\b`)
)

// goToolDirs are the directory names of one-off programs kept beside a library: code
// generators and maintenance scripts, no part of what it builds. (tool, gen or contrib
// name real commands and packages too often to count.)
var goToolDirs = []string{"tools", "scripts", "hack"}

// maxGoPackageDirs bounds the package list a plan line carries.
const maxGoPackageDirs = 400

func goExcludeRule() Rule {
	return Rule{
		Name: "go-exclude",
		Doc: "go build ./... stopping at a directory that is no part of the library (examples of several package main programs, " +
			"samples, demos, docs, tools) with a compile error: the plan's go commands build the tree's other package directories",
		Signatures: goCompileSignatures,
		Make:       makeGoExclude,
	}
}

// goCompileDirs returns the directories, relative to the go command's directory, of the
// files a build output's compile errors name, in order, each once, and the first error
// of each. An error in a file outside that directory (an absolute path not below
// tree, a ../ path) is returned as outside; tree is the directory's absolute path, ""
// when unknown.
func goCompileDirs(out, tree string) (dirs []string, first map[string]string, outside []string) {
	first = map[string]string{}
	for _, m := range goCompileError.FindAllStringSubmatch(out, -1) {
		file := m[1]
		if strings.HasPrefix(file, "/") {
			rel, ok := strings.CutPrefix(file, strings.TrimSuffix(tree, "/")+"/")
			if tree == "" || !ok {
				outside = appendNew(outside, file)
				continue
			}
			file = rel
		}
		file = path.Clean(file)
		if strings.HasPrefix(file, "../") {
			outside = appendNew(outside, file)
			continue
		}
		d := path.Dir(file)
		if _, seen := first[d]; !seen {
			dirs = append(dirs, d)
			first[d] = fmt.Sprintf("%s:%s: %s", file, m[2], strings.TrimSpace(m[3]))
		}
	}
	return dirs, first, outside
}

func makeGoExclude(ctx context.Context, f Failure, env Env) (*Fix, string) {
	switch {
	case env.Plan == nil:
		return nil, "no build plan"
	case env.ReadFile == nil || len(env.Files) == 0:
		return nil, "the tree's files cannot be read"
	case f.Command != "" && knowledge.WithGoPackages(f.Command, []string{"."}, []string{"."}) == f.Command:
		return nil, "the failing command builds no ./... pattern with go build or go test"
	}
	mod := "."
	if env.Detection != nil && env.Detection.ModuleDir != "" {
		mod = path.Clean(env.Detection.ModuleDir)
	}
	gopath := slices.ContainsFunc(env.Plan.Phases, func(ph atesor.Phase) bool { return ph.Name == knowledge.GoPathPhase })
	tree := ""
	if env.RepoDir != "" {
		tree = path.Join(env.RepoDir, mod)
		if gopath && env.Detection != nil && env.Detection.GoModulePath != "" {
			tree = path.Join(env.RepoDir, knowledge.GoPathDir, "src", env.Detection.GoModulePath)
		}
	}
	text := f.text()
	if f.Output != "" {
		text += "\n" + f.Message
	}
	dirs, first, outside := goCompileDirs(text, tree)
	switch {
	case len(outside) > 0:
		return nil, "a compile error lies outside the tree (" + strings.Join(outside, ", ") + "): not one of its directories to leave out"
	case len(dirs) == 0:
		return nil, "no compile error of a Go file in the output"
	}
	g := newGoTree(ctx, env, mod, gopath)
	var excluded, why []string
	for _, d := range dirs {
		rel := path.Join(mod, d)
		switch {
		case d == ".":
			return nil, "the compile error is in the module's root package (" + first[d] + "): a real compile error, not a directory to leave out"
		case !g.isPackageDir(rel):
			return nil, "the compile error is in " + d + ", not a package directory of the tree (" + first[d] + ")"
		}
		reason := g.leaveOut(rel)
		if reason == "" {
			return nil, fmt.Sprintf("the compile error is in %s (%s), a package of the library, not its examples, docs or tools: a real compile error", d, first[d])
		}
		excluded = append(excluded, d)
		why = append(why, d+" ("+reason+")")
	}
	build, test := g.packageLists(excluded)
	switch {
	case len(build) == 0:
		return nil, "no package directory would remain without " + strings.Join(excluded, ", ")
	case len(test) > maxGoPackageDirs:
		return nil, fmt.Sprintf("the tree has %d package directories, more than a plan line should name", len(test))
	}
	plan, changed := withEachCommand(*env.Plan, func(c string) string { return knowledge.WithGoPackages(c, build, test) })
	if !changed {
		return nil, "the plan's go commands already name their packages, and " + strings.Join(excluded, ", ") + " still fails to build"
	}
	return &Fix{
		Analysis: fmt.Sprintf("go build ./... builds every package directory of the tree, and %s cannot be built as a package: %s. "+
			"It is no part of the library, which builds without it; as Debian's dh-golang leaves such directories out of its package list "+
			"(DH_GOLANG_EXCLUDES), the plan's go commands name the other %d package directories.",
			strings.Join(excluded, ", "), strings.Join(why, "; "), len(test)),
		Strategy: "build and test the package directories without " + strings.Join(excluded, ", ") + " (in place of ./...)",
		Plan:     &plan,
	}, ""
}

// goTree is the tree's Go files as the go command on linux/riscv64 sees them.
type goTree struct {
	ctx    context.Context
	env    Env
	mod    string
	gopath bool
	// dirs maps each directory of Go files to its Go files' names.
	dirs  map[string][]string
	bctx  build.Context
	cache map[string][]byte
}

func newGoTree(ctx context.Context, env Env, mod string, gopath bool) *goTree {
	g := &goTree{ctx: ctx, env: env, mod: mod, gopath: gopath, dirs: map[string][]string{}, cache: map[string][]byte{}}
	nested := map[string]bool{}
	for _, f := range env.Files {
		if path.Base(f) == "go.mod" && path.Dir(f) != mod {
			nested[path.Dir(f)] = true
		}
	}
	for _, f := range env.Files {
		if !strings.HasSuffix(f, ".go") || noiseDir(f) || !g.walked(path.Dir(f), nested) {
			continue
		}
		g.dirs[path.Dir(f)] = append(g.dirs[path.Dir(f)], path.Base(f))
	}
	g.bctx = build.Context{GOOS: "linux", GOARCH: "riscv64", Compiler: "gc", ReleaseTags: build.Default.ReleaseTags,
		JoinPath: path.Join, IsAbsPath: path.IsAbs, SplitPathList: func(string) []string { return nil },
		OpenFile: func(p string) (io.ReadCloser, error) {
			b, err := g.read(p)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}}
	g.bctx.CgoEnabled = env.Detection != nil && env.Detection.HasCGO
	g.bctx.BuildTags = GoTags(*env.Plan)
	return g
}

// walked reports whether go's ./... pattern from the module reaches directory d: below
// the module, with no testdata, vendor, dot or underscore directory on the way, and,
// in module mode, outside nested modules.
func (g *goTree) walked(d string, nested map[string]bool) bool {
	rel, ok := g.relative(d)
	if !ok {
		return false
	}
	if rel == "." {
		return true
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		if p == "testdata" || p == "vendor" || strings.HasPrefix(p, ".") || strings.HasPrefix(p, "_") {
			return false
		}
		if !g.gopath && nested[path.Join(g.mod, strings.Join(parts[:i+1], "/"))] {
			return false
		}
	}
	return true
}

// relative is d relative to the module directory.
func (g *goTree) relative(d string) (string, bool) {
	if g.mod == "." {
		return d, true
	}
	if d == g.mod {
		return ".", true
	}
	rel, ok := strings.CutPrefix(d, g.mod+"/")
	return rel, ok
}

func (g *goTree) read(p string) ([]byte, error) {
	if b, ok := g.cache[p]; ok {
		return b, nil
	}
	b, err := g.env.ReadFile(g.ctx, p)
	if err != nil {
		return nil, err
	}
	g.cache[p] = b
	return b, nil
}

func (g *goTree) isPackageDir(d string) bool { return len(g.dirs[d]) > 0 }

// files are the Go files of directory d the build compiles on linux/riscv64 (a file
// whose build constraints cannot be read counts), tests or not; at most limit of them
// when limit > 0, so that a directory's first file answers whether it is a package.
func (g *goTree) files(d string, tests bool, limit int) []string {
	var out []string
	for _, name := range g.dirs[d] {
		if strings.HasSuffix(name, "_test.go") != tests {
			continue
		}
		if ok, err := g.bctx.MatchFile(d, name); ok || err != nil {
			if out = append(out, name); len(out) == limit {
				break
			}
		}
	}
	return out
}

// leaveOut says why directory d may be left out of the build, "" when it may not: a
// directory of several mains, else one whose path says examples, docs, benchmarks or
// tools.
func (g *goTree) leaveOut(d string) string {
	var mains []string
	for _, name := range g.files(d, false, 0) {
		if b, err := g.read(path.Join(d, name)); err == nil && goMainFile(b) {
			mains = append(mains, name)
		}
	}
	if len(mains) > 1 {
		sort.Strings(mains)
		return fmt.Sprintf("%d package main programs, %s, each run alone with go run %s", len(mains), strings.Join(mains, ", "), path.Join(d, mains[0]))
	}
	rel, _ := g.relative(d)
	if p := purposeOf(rel); p == "examples" || p == "docs" || p == "benchmarks" {
		return "the package's " + p
	}
	if slices.ContainsFunc(strings.Split(rel, "/"), func(p string) bool { return slices.Contains(goToolDirs, strings.ToLower(p)) }) {
		return "the package's tools"
	}
	return ""
}

// goMainFile reports whether Go source b is a main package's file that declares main.
func goMainFile(b []byte) bool {
	return goPackageMain.Match(b) && goMainFunc.Match(b)
}

// packageLists are the package arguments of the module's directories without the
// excluded ones (relative to the module): build those with non-test files, test those
// with any.
func (g *goTree) packageLists(excluded []string) (build, test []string) {
	for d := range g.dirs {
		rel, _ := g.relative(d)
		if slices.Contains(excluded, rel) {
			continue
		}
		if len(g.files(d, false, 1)) > 0 {
			build = append(build, knowledge.GoPackageDir(rel))
			test = append(test, knowledge.GoPackageDir(rel))
		} else if len(g.files(d, true, 1)) > 0 {
			test = append(test, knowledge.GoPackageDir(rel))
		}
	}
	sort.Strings(build)
	sort.Strings(test)
	return build, test
}
