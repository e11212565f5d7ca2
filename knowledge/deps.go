package knowledge

import (
	"cmp"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// rawDep is a dependency name as a build file writes it, with file:line evidence.
type rawDep struct {
	name     string
	evidence string
}

var (
	reCMakeFindPackage = regexp.MustCompile(`(?i)\bfind_package\s*\(\s*([A-Za-z0-9_.+-]+)`)
	reCMakePkgCheck    = regexp.MustCompile(`(?i)\bpkg_(?:check_modules|search_module)\s*\(([^)]*)\)`)
	reCMakeFindLibrary = regexp.MustCompile(`(?i)\bfind_library\s*\(\s*[A-Za-z0-9_]+\s+(?:NAMES\s+)?([A-Za-z0-9_+.-]+)`)
	reACPkgCheck       = regexp.MustCompile(`\bPKG_CHECK_(?:MODULES|EXISTS)\s*\(\s*(?:\[?[A-Za-z0-9_]+\]?\s*,\s*)?\[?([^\],)]*)`)
	reACCheckLib       = regexp.MustCompile(`\bAC_CHECK_LIB\s*\(\s*\[?([A-Za-z0-9_+.-]+)\]?`)
	reACSearchLibs     = regexp.MustCompile(`\bAC_SEARCH_LIBS\s*\(\s*\[?[A-Za-z0-9_]+\]?\s*,\s*\[?([^\],)]*)`)
	reMesonDependency  = regexp.MustCompile(`\bdependency\s*\(\s*['"]([^'"]+)['"]`)
	reMesonFindLibrary = regexp.MustCompile(`\bfind_library\s*\(\s*['"]([^'"]+)['"]`)
	rePkgConfigCall    = regexp.MustCompile(`pkg-config(?:\s+--[\w-]+(?:=\S+)?)+((?:\s+[A-Za-z0-9_.+-]+)+)`)
	// reMakeGo is a Makefile recipe line that runs the go command (go build, $(GO) test):
	// the Makefile needs Go, which a make build's tools do not include.
	// The go word must start a command: the recipe line's, or one after && ; || or (,
	// after NAME=value assignments.
	reMakeGo      = regexp.MustCompile(`(?m)^\t[@+-]*(?:[^\n]*?(?:&&|;|\|\||\())?\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:go|\$[({]GO[)}])\s+(?:build|install|test|run|generate|mod)\b`)
	reTOMLSection = regexp.MustCompile(`^\s*\[\s*([^\]]+?)\s*\]\s*$`)
	reTOMLKey     = regexp.MustCompile(`^\s*([A-Za-z0-9_-]+)\s*=`)
	rePkgVersion  = regexp.MustCompile(`^[<>=!~]|^[0-9]`)
	reProjectName = regexp.MustCompile(`^([a-z][a-z0-9+._]*?)[-_]v?[0-9]`)
)

// cmakeIgnored are CMake packages that are documentation or optional stamping tools, not
// build dependencies.
var cmakeIgnored = map[string]bool{
	"threads": true, "doxygen": true, "sphinx": true, "latex": true, "git": true,
	"subversion": true, "hg": true,
}

// detectDependencies reads the build files of the tree and returns canonical dependency
// names with the file:line that shows each, first occurrence first.
func detectDependencies(t *tree, det *atesor.Detection) []atesor.Dependency {
	files := make([]entry, 0, 32)
	for _, e := range t.files {
		if !e.dir && !inNoiseDir(e.rel) && depth(e.rel) <= 3 {
			files = append(files, e)
		}
	}
	slices.SortFunc(files, func(a, b entry) int {
		if c := cmp.Compare(depth(a.rel), depth(b.rel)); c != 0 {
			return c
		}
		return cmp.Compare(a.rel, b.rel)
	})
	var explicit, libs []rawDep // libs: -l style names, kept only when known
	var goMods []rawDep
	for _, e := range files {
		base := path.Base(e.rel)
		switch {
		case base == "CMakeLists.txt" || strings.HasSuffix(base, ".cmake"):
			text := stripLineComments(t.readString(e.rel), "#")
			for _, m := range reCMakeFindPackage.FindAllStringSubmatchIndex(text, -1) {
				name := text[m[2]:m[3]]
				if !cmakeIgnored[strings.ToLower(name)] {
					explicit = append(explicit, rawDep{name, evidenceAt(e.rel, text, m[0])})
				}
			}
			for _, m := range reCMakePkgCheck.FindAllStringSubmatchIndex(text, -1) {
				args := strings.Fields(text[m[2]:m[3]])
				if len(args) > 0 {
					args = args[1:] // the variable prefix
				}
				for _, a := range pkgModules(args) {
					explicit = append(explicit, rawDep{a, evidenceAt(e.rel, text, m[0])})
				}
			}
			for _, m := range reCMakeFindLibrary.FindAllStringSubmatchIndex(text, -1) {
				libs = append(libs, rawDep{text[m[2]:m[3]], evidenceAt(e.rel, text, m[0])})
			}
		case (base == "configure.ac" || base == "configure.in") && (path.Dir(e.rel) == "." || path.Dir(e.rel) == det.BuildDir):
			text := stripLineComments(t.readString(e.rel), "dnl ", "#")
			for _, m := range reACPkgCheck.FindAllStringSubmatchIndex(text, -1) {
				for _, a := range pkgModules(strings.Fields(text[m[2]:m[3]])) {
					explicit = append(explicit, rawDep{a, evidenceAt(e.rel, text, m[0])})
				}
			}
			for _, m := range reACCheckLib.FindAllStringSubmatchIndex(text, -1) {
				libs = append(libs, rawDep{text[m[2]:m[3]], evidenceAt(e.rel, text, m[0])})
			}
			for _, m := range reACSearchLibs.FindAllStringSubmatchIndex(text, -1) {
				for _, l := range strings.Fields(text[m[2]:m[3]]) {
					libs = append(libs, rawDep{l, evidenceAt(e.rel, text, m[0])})
				}
			}
		case base == "meson.build":
			text := stripLineComments(t.readString(e.rel), "#")
			for _, m := range reMesonDependency.FindAllStringSubmatchIndex(text, -1) {
				explicit = append(explicit, rawDep{text[m[2]:m[3]], evidenceAt(e.rel, text, m[0])})
			}
			for _, m := range reMesonFindLibrary.FindAllStringSubmatchIndex(text, -1) {
				libs = append(libs, rawDep{text[m[2]:m[3]], evidenceAt(e.rel, text, m[0])})
			}
		case isMakefileName(base) && depth(e.rel) <= 2:
			text := stripLineComments(t.readString(e.rel), "#")
			for _, m := range reLFlag.FindAllStringSubmatchIndex(text, -1) {
				libs = append(libs, rawDep{text[m[2]:m[3]], evidenceAt(e.rel, text, m[0])})
			}
			for _, m := range rePkgConfigCall.FindAllStringSubmatchIndex(text, -1) {
				for _, a := range pkgModules(strings.Fields(text[m[2]:m[3]])) {
					explicit = append(explicit, rawDep{a, evidenceAt(e.rel, text, m[0])})
				}
			}
			if det.BuildSystem != atesor.BuildGo {
				if loc := reMakeGo.FindStringIndex(text); loc != nil {
					explicit = append(explicit, rawDep{"go", evidenceAt(e.rel, text, loc[0])})
				}
			}
		case base == "Cargo.toml" && depth(e.rel) <= 2:
			explicit = append(explicit, cargoDeps(e.rel, t.readString(e.rel))...)
		}
	}
	if det.ModuleDir != "" {
		mod := "go.mod"
		if det.ModuleDir != "." {
			mod = det.ModuleDir + "/go.mod"
			goMods = goRequires(mod, t.readString(mod))
		} else {
			goMods = goRequires(mod, t.readString(mod))
		}
		dir := det.ModuleDir
		if dir == "." {
			dir = ""
		}
		explicit = append(explicit, analyseGo(t, dir).cgoDeps...)
	}

	out := []atesor.Dependency{}
	seen := map[string]bool{}
	addDep := func(name, ev string) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, atesor.Dependency{Name: name, Evidence: ev})
	}
	// The package's own library (libyaml's tests linking yaml, xxHash's -lxxhash) is
	// built, not installed.
	self := projectName(t.base)
	if c, ok := Canonical(self); ok {
		self = c
	}
	for _, d := range explicit {
		c, _ := Canonical(d.name)
		if c == self && (t.providesLibrary(d.name) || t.providesLibrary(c)) {
			continue
		}
		addDep(c, d.evidence)
	}
	for _, d := range libs {
		c, known := Canonical(d.name)
		if !known || c == self || t.providesLibrary(d.name) {
			continue
		}
		addDep(c, d.evidence)
	}
	for _, d := range goMods {
		addDep(d.name, d.evidence)
	}
	return out
}

// pkgModules returns pkg-config module names from a module list, without version
// constraints, CMake keywords or variables.
func pkgModules(args []string) []string {
	var out []string
	for _, a := range args {
		a = strings.Trim(a, `[]"',`)
		if i := strings.IndexAny(a, "<>=!"); i > 0 {
			a = a[:i]
		}
		if a == "" || rePkgVersion.MatchString(a) || strings.ContainsAny(a, "$@") {
			continue
		}
		switch a {
		case "REQUIRED", "QUIET", "IMPORTED_TARGET", "GLOBAL", "NO_CMAKE_PATH",
			"NO_CMAKE_ENVIRONMENT_PATH", "--cflags", "--libs", "--static":
			continue
		}
		out = append(out, a)
	}
	return out
}

// goRequires lists the direct requirements of a go.mod whose paths name a host (a dot
// in the path), each with the line that requires it. The go.mod is read with the go
// command's parser (leniently, as the go command reads a dependency's go.mod); one it
// cannot read lists nothing, as the build will fail on it first.
func goRequires(file, text string) []rawDep {
	f, err := modfile.ParseLax(file, []byte(text), nil)
	if err != nil {
		return nil
	}
	var out []rawDep
	for _, r := range f.Require {
		if r.Indirect || !strings.Contains(r.Mod.Path, ".") || r.Syntax == nil {
			continue
		}
		out = append(out, rawDep{r.Mod.Path, file + ":" + strconv.Itoa(r.Syntax.Start.Line)})
	}
	return out
}

// cargoDeps reads the crates of a Cargo.toml's dependency sections ([dependencies],
// [build-dependencies], target-specific and workspace dependencies) and keeps those that
// stand for a system library or tool.
func cargoDeps(file, text string) []rawDep {
	var out []rawDep
	section := ""
	for i, line := range strings.Split(text, "\n") {
		if j := strings.Index(line, "#"); j >= 0 {
			line = line[:j]
		}
		ev := file + ":" + strconv.Itoa(i+1)
		if m := reTOMLSection.FindStringSubmatch(line); m != nil {
			section = m[1]
			// [dependencies.openssl] names the crate in the header.
			for _, kind := range []string{"dependencies.", "build-dependencies."} {
				if k := strings.LastIndex(section, kind); k >= 0 && !strings.Contains(section, "dev-dependencies") {
					crateDep(&out, strings.Trim(section[k+len(kind):], `"'`), ev)
					section = ""
				}
			}
			continue
		}
		if !isCargoDepSection(section) {
			continue
		}
		if m := reTOMLKey.FindStringSubmatch(line); m != nil {
			crateDep(&out, m[1], ev)
		}
	}
	return out
}

func crateDep(out *[]rawDep, crate, ev string) {
	if c, ok := aliases[strings.ToLower(crate)]; ok {
		*out = append(*out, rawDep{c, ev})
	}
}

func isCargoDepSection(s string) bool {
	if strings.Contains(s, "dev-dependencies") {
		return false
	}
	return s == "dependencies" || s == "build-dependencies" || s == "workspace.dependencies" ||
		strings.HasSuffix(s, ".dependencies") || strings.HasSuffix(s, ".build-dependencies")
}

// isMakefileName reports whether a file name is a Makefile or a Makefile fragment.
func isMakefileName(base string) bool {
	switch base {
	case "Makefile", "makefile", "GNUmakefile", "Makefile.am", "Makefile.in":
		return true
	}
	return strings.HasSuffix(base, ".mk")
}

// stripLineComments blanks comments that start a line (after spaces) with one of the
// prefixes, keeping line numbers.
func stripLineComments(text string, prefixes ...string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		trim := strings.TrimLeft(l, " \t")
		for _, p := range prefixes {
			if strings.HasPrefix(trim, p) || (p == "dnl " && trim == "dnl") {
				lines[i] = ""
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

// evidenceAt formats file:line for a byte offset of text.
func evidenceAt(file, text string, off int) string {
	return file + ":" + strconv.Itoa(strings.Count(text[:off], "\n")+1)
}

// projectName guesses the package name from the tree's directory name: zlib-1.3.1 -> zlib.
func projectName(base string) string {
	b := strings.ToLower(base)
	if m := reProjectName.FindStringSubmatch(b); m != nil {
		return m[1]
	}
	return b
}

// providesLibrary reports whether the tree builds the library itself: it has <name>.h,
// <name>.c or lib<name>.pc.in.
func (t *tree) providesLibrary(name string) bool {
	n := strings.TrimPrefix(strings.ToLower(name), "lib")
	for _, e := range t.files {
		if e.dir {
			continue
		}
		switch strings.ToLower(path.Base(e.rel)) {
		case n + ".h", n + ".c", "lib" + n + ".pc.in", n + ".pc.in":
			return true
		}
	}
	return false
}
