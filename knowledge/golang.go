package knowledge

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// goInfo is what the scripted analysis knows about a Go module.
type goInfo struct {
	modBase string // the module path's last element, without a major version suffix
	// testDirs are the package directories with tests that build on riscv64.
	testDirs []string
	// libDirs are the directories of non-main packages with a file (not a test) that
	// builds on riscv64.
	libDirs  []string
	hasMain  bool
	mainPath string // main package directory relative to the module: "." or "cmd/tool"
	mains    []string
	// commands are the mains that are the module's programs, not helpers (examples,
	// tests, tools), best first, one per binary name.
	commands []string
	// portableTags are the custom build tags of the module's architecture-specific
	// files' constraints (purego, noasm): the switches to its portable code.
	portableTags []string
	hasCGO       bool
	// cgoDeps are libraries named by #cgo pkg-config and LDFLAGS -l directives, with the
	// file and line that name them.
	cgoDeps []rawDep
	// external are the imports (tests' included) of a tree with no go.mod that are
	// neither the standard library's nor the module's, each with the first file naming
	// it; only when the module path is known.
	external []rawDep
}

// goLowDirs are directory names whose main packages are helpers, not the product.
var goLowDirs = map[string]bool{
	"example": true, "examples": true, "_examples": true, "test": true, "tests": true,
	"testing": true, "tools": true, "tool": true, "scripts": true, "hack": true,
	"bench": true, "benchmark": true, "benchmarks": true, "demo": true, "demos": true,
	"sample": true, "samples": true, "e2e": true, "integration": true, "fuzz": true,
	"mock": true, "mocks": true, "gen": true, "generate": true, "internal": true,
	"contrib": true, "misc": true, "doc": true, "docs": true,
}

var (
	reCgoLine = regexp.MustCompile(`^#cgo\s+(?:[!\w,\s]*?\s)?(pkg-config|LDFLAGS)\s*:\s*(.*)$`)
	reLFlag   = regexp.MustCompile(`(?:^|[\s='"(])-l([A-Za-z0-9_+.-]+)`)
)

// analyseGo reads the Go files of the module in modDir ("" is the top level): main
// packages ranked so that cmd/<name> beats examples and tests, cgo use and cgo libraries.
func analyseGo(t *tree, modDir string) goInfo {
	prefix := ""
	if modDir != "" {
		prefix = modDir + "/"
	}
	return analyseGoAs(t, modDir, modfile.ModulePath([]byte(t.readString(prefix+"go.mod"))))
}

// analyseGoAs is [analyseGo] for the module path mod (empty: unknown), which names the
// module's root programs and test binaries.
func analyseGoAs(t *tree, modDir, mod string) goInfo {
	var g goInfo
	prefix := ""
	if modDir != "" {
		prefix = modDir + "/"
	}
	modBase := ""
	if mod != "" {
		modBase = goModuleBase(mod)
	}
	noModFile := mod != "" && !t.isFile(prefix+"go.mod")
	// Nested modules are separate builds: their directories are skipped.
	nested := map[string]bool{}
	for _, e := range t.files {
		if !e.dir && path.Base(e.rel) == "go.mod" && strings.HasPrefix(e.rel, prefix) {
			if d := path.Dir(e.rel); d != strings.TrimSuffix(prefix, "/") && d != "." {
				nested[d] = true
			}
		}
	}
	g.modBase = modBase
	mainDirs := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range t.files {
		isAsm := strings.HasSuffix(e.rel, ".s")
		if e.dir || !(strings.HasSuffix(e.rel, ".go") || isAsm) || !strings.HasPrefix(e.rel, prefix) {
			continue
		}
		rel := strings.TrimPrefix(e.rel, prefix)
		if skipGoPath(rel, prefix, nested) {
			continue
		}
		src, err := t.read(e.rel, maxReadBytes)
		if err != nil {
			continue
		}
		if x := goHeaderConstraint(src); x != nil {
			for _, tag := range goPortableSwitches(e.rel, x) {
				if !slices.Contains(g.portableTags, tag) {
					g.portableTags = append(g.portableTags, tag)
				}
			}
		}
		if isAsm || !goFileBuildsOnRiscv64(e.rel, src) {
			continue
		}
		if strings.HasSuffix(e.rel, "_test.go") {
			if d := path.Dir(rel); !slices.Contains(g.testDirs, d) {
				g.testDirs = append(g.testDirs, d)
			}
			if noModFile {
				if f, err := parser.ParseFile(fset, e.rel, src, parser.ImportsOnly); err == nil {
					g.external = appendExternal(g.external, e.rel, f, mod)
				}
			}
			continue
		}
		f, err := parser.ParseFile(fset, e.rel, src, parser.ImportsOnly|parser.ParseComments)
		if err != nil || f.Name == nil {
			continue
		}
		if f.Name.Name == "main" {
			mainDirs[path.Dir(rel)] = true
		} else if d := path.Dir(rel); !slices.Contains(g.libDirs, d) {
			g.libDirs = append(g.libDirs, d)
		}
		if noModFile {
			g.external = appendExternal(g.external, e.rel, f, mod)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.IMPORT {
				continue
			}
			for _, spec := range gd.Specs {
				is, ok := spec.(*ast.ImportSpec)
				if !ok {
					continue
				}
				if p, _ := strconv.Unquote(is.Path.Value); p != "C" {
					continue
				}
				g.hasCGO = true
				doc := is.Doc
				if doc == nil {
					doc = gd.Doc
				}
				g.cgoDeps = append(g.cgoDeps, cgoDirectives(fset, e.rel, doc)...)
			}
		}
	}
	for d := range mainDirs {
		g.mains = append(g.mains, d)
	}
	slices.SortFunc(g.mains, func(a, b string) int {
		if c := cmp.Compare(mainRank(b, modBase), mainRank(a, modBase)); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if len(g.mains) > 0 {
		g.hasMain, g.mainPath = true, g.mains[0]
	}
	g.commands = goCommands(g.mains, modBase)
	slices.Sort(g.portableTags)
	return g
}

// appendExternal adds the imports of file f that are neither the standard library's
// (no dot in the first path element, as the go command tells them) nor module mod's.
func appendExternal(out []rawDep, file string, f *ast.File, mod string) []rawDep {
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil || p == "C" || !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") ||
			p == mod || strings.HasPrefix(p, mod+"/") {
			continue
		}
		if !slices.ContainsFunc(out, func(d rawDep) bool { return d.name == p }) {
			out = append(out, rawDep{p, file})
		}
	}
	return out
}

// goBinDir is the directory, relative to the module, that the default Go plan writes
// its programs (or a library's test binaries) to.
const goBinDir = "bin"

// artifacts are the files the default plan writes: the commands, else the test binaries
// of a library, one per name, at most [maxGoArtifacts].
func (g goInfo) artifacts() []string {
	var out []string
	add := func(name string) {
		if name != "" && len(out) < maxGoArtifacts && !slices.Contains(out, goBinDir+"/"+name) {
			out = append(out, goBinDir+"/"+name)
		}
	}
	if len(g.commands) > 0 {
		for _, c := range g.commands {
			add(GoBinaryName(c, g.modBase))
		}
		return out
	}
	dirs, _ := g.testBinaryDirs()
	for _, d := range dirs {
		add(GoBinaryName(d, g.modBase) + ".test")
	}
	for _, d := range g.archivePackages() {
		add(GoBinaryName(d, g.modBase) + ".a")
	}
	return out
}

// archivePackages are the library package directories whose Go package archives the
// default plan writes, for a module with no main package and no test that builds on
// riscv64: go test -c then writes no test binary, and go build ./... discards what it
// compiles, so the archives (go build -o bin/pkg.a DIR keeps a single package's) are the
// riscv64 code the build made. Shallowest first, the first of each name (as go test -c
// names test binaries), at most [maxGoArtifacts]; nil for any other module.
func (g goInfo) archivePackages() []string {
	if len(g.mains) > 0 || len(g.testDirs) > 0 {
		return nil
	}
	sorted := slices.Clone(g.libDirs)
	slices.SortFunc(sorted, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), cmp.Compare(a, b))
	})
	var out []string
	seen := map[string]bool{}
	for _, d := range sorted {
		n := GoBinaryName(d, g.modBase)
		if n == "" || seen[n] || len(out) == maxGoArtifacts {
			continue
		}
		seen[n] = true
		out = append(out, d)
	}
	return out
}

// testBinaryDirs are the package directories with tests, shallowest first, the first of
// each test binary name (go test -c names a binary after its package's directory, as go
// install does); shared is true when a later directory had a name already taken.
func (g goInfo) testBinaryDirs() (dirs []string, shared bool) {
	sorted := slices.Clone(g.testDirs)
	slices.SortFunc(sorted, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), cmp.Compare(a, b))
	})
	seen := map[string]bool{}
	for _, d := range sorted {
		n := GoBinaryName(d, g.modBase)
		if n == "" {
			continue
		}
		if seen[n] {
			shared = true
			continue
		}
		seen[n] = true
		dirs = append(dirs, d)
	}
	return dirs, shared
}

// testPackages are the directories the default plan compiles test binaries of when it
// cannot name them ./...: go test -c -o bin/ refuses to write two packages' binaries of
// one name ("cannot write test binary x.test for multiple packages"), and it names every
// package ./... matches, those without tests and the main packages of examples among
// them (pion/turn's examples/turn-client/tcp and examples/turn-server/tcp), so when two
// packages of the module share a name the plan lists the tested ones, the first of each
// name. Nil when no two share one, or for a module with commands (its plan builds
// those, not test binaries).
func (g goInfo) testPackages() []string {
	if len(g.commands) > 0 {
		return nil
	}
	dirs, shared := g.testBinaryDirs()
	if !shared && !g.sharedPackageName() {
		return nil
	}
	return dirs
}

// sharedPackageName reports whether two package directories of the module (with tests
// or not, main or not) have one test binary name.
func (g goInfo) sharedPackageName() bool {
	seen := map[string]string{}
	for _, d := range slices.Concat(g.testDirs, g.libDirs, g.mains) {
		n := GoBinaryName(d, g.modBase)
		if n == "" {
			continue
		}
		if other, ok := seen[n]; ok && other != path.Clean(d) {
			return true
		}
		seen[n] = path.Clean(d)
	}
	return false
}

// maxGoArtifacts matches the analysis' cap on expected artifacts.
const maxGoArtifacts = 10

// goCommands picks the programs among the ranked main packages: every one outside
// helper directories, the first of each binary name (go install names a binary after
// its directory, and two of one name would overwrite each other).
func goCommands(mains []string, modBase string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mains {
		if mainRank(m, modBase) <= 10 {
			continue
		}
		name := GoBinaryName(m, modBase)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, m)
	}
	return out
}

// GoBinaryName is the name go install gives the program of a main package directory
// (relative to the module, "." for the root) of a module whose path ends in modBase:
// the directory's last element without a major version suffix (cmd/tool/v2 -> tool),
// and modBase for the root.
func GoBinaryName(mainDir, modBase string) string {
	dir := strings.TrimPrefix(path.Clean("/"+mainDir), "/")
	if dir == "" {
		return modBase
	}
	base := path.Base(dir)
	if isMajorSuffix(base) {
		if up := path.Dir(dir); up != "." {
			return path.Base(up)
		}
		return modBase
	}
	return base
}

func isMajorSuffix(s string) bool {
	return len(s) > 1 && s[0] == 'v' && strings.Trim(s[1:], "0123456789") == ""
}

// cgoDirectives reads the libraries of #cgo pkg-config and #cgo LDFLAGS lines in the
// comment above import "C".
func cgoDirectives(fset *token.FileSet, file string, doc *ast.CommentGroup) []rawDep {
	if doc == nil {
		return nil
	}
	var out []rawDep
	for _, c := range doc.List {
		text := strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*")
		text = strings.TrimSuffix(text, "*/")
		line := fset.Position(c.Slash).Line
		for i, l := range strings.Split(text, "\n") {
			m := reCgoLine.FindStringSubmatch(strings.TrimSpace(l))
			if m == nil {
				continue
			}
			ev := file + ":" + strconv.Itoa(line+i)
			if m[1] == "pkg-config" {
				for _, mod := range strings.Fields(m[2]) {
					if !strings.HasPrefix(mod, "-") {
						out = append(out, rawDep{mod, ev})
					}
				}
				continue
			}
			for _, lm := range reLFlag.FindAllStringSubmatch(m[2], -1) {
				out = append(out, rawDep{lm[1], ev})
			}
		}
	}
	return out
}

// skipGoPath reports whether a Go file path (relative to the module) is outside the
// module's own packages: vendor, testdata, _ and . directories, nested modules.
func skipGoPath(rel, prefix string, nested map[string]bool) bool {
	dir := path.Dir(rel)
	if dir == "." {
		return false
	}
	parts := strings.Split(dir, "/")
	for i, part := range parts {
		if part == "vendor" || part == "testdata" || strings.HasPrefix(part, "_") || strings.HasPrefix(part, ".") {
			return true
		}
		if nested[prefix+strings.Join(parts[:i+1], "/")] {
			return true
		}
	}
	return false
}

// mainRank scores a main package directory: cmd/<module name> first, then the module
// root, then other cmd/ packages, then other directories, and helpers (examples, tests,
// tools) last.
func mainRank(dir, modBase string) int {
	parts := strings.Split(dir, "/")
	low := false
	for i, p := range parts {
		// cmd/<name> names a command even when the name is a helper word (cmd/tool).
		if goLowDirs[strings.ToLower(p)] && !(i == 1 && parts[0] == "cmd") {
			low = true
		}
	}
	switch {
	case low:
		return 10
	case len(parts) == 2 && parts[0] == "cmd" && parts[1] == modBase:
		return 100
	case dir == ".":
		return 95
	case len(parts) == 2 && parts[0] == "cmd":
		return 90
	case parts[0] == "cmd":
		return 80
	}
	return 60 - len(parts)
}

// goModuleBase is the last element of a module path without a /vN suffix:
// github.com/x/tool/v2 -> tool.
func goModuleBase(mod string) string {
	mod = strings.TrimSuffix(mod, "/")
	base := path.Base(mod)
	if strings.Contains(mod, "/") && isMajorSuffix(base) {
		base = path.Base(path.Dir(mod))
	}
	return base
}
