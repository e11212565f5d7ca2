package repair

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A repacked tarball often lacks a bundled copy of a library the distribution packages
// on its own (Debian's libsdsl 2.1.1+dfsg strips external/libdivsufsort and builds
// against libdivsufsort-dev, while external/CMakeLists.txt still adds the directory
// unconditionally and test/CMakeLists.txt links divsufsort and divsufsort64 by name).
// A porter then points the build at the installed library: the missing directory gets
// a CMakeLists.txt whose interface targets, named as the ones the project links, link
// the installed library of the same name. The file is written by the fix, so the
// recipe's patches carry it and a replay writes it again.

// libraryImport is what a fix knows of a stripped vendored library: its directory's
// name, the distribution's -dev package that replaces it and the targets the project
// links that nothing in the tree defines.
type libraryImport struct {
	dir     string // the missing directory's base name: libdivsufsort
	pkg     string // the -dev package: libdivsufsort-dev
	targets []string
}

var (
	// libStemName is a library's name as a Debian package name spells it.
	libStemName = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]*[a-z0-9+]$`)
	// linkTarget is a plain target name a link command may name.
	linkTarget = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_+-]*$`)
	// libImportPkg is the package the import's configure error tells the user to install.
	libImportPkg = regexp.MustCompile(`install (\S+-dev), which replaces`)
)

// maxLibTargets bounds the targets one import defines.
const maxLibTargets = 8

// maxLibScripts bounds the CMake files read for the targets the project links.
const maxLibScripts = 256

// libraryStem returns the library a vendored directory's name says it holds:
// libdivsufsort, divsufsort-2.0.1 and libdivsufsort_v2 all hold divsufsort.
func libraryStem(dir string) (string, bool) {
	base := strings.ToLower(path.Base(dir))
	for range 3 {
		base = versionSuffix.ReplaceAllString(base, "")
	}
	if s, ok := strings.CutPrefix(base, "lib"); ok && len(s) >= 2 {
		base = s
	}
	if len(base) < 2 || len(base) > 64 || !libStemName.MatchString(base) {
		return "", false
	}
	return base, true
}

// render returns the CMakeLists.txt that makes the installed library stand in for the
// vendored directory: for each target an interface library linking the installed
// library of that name, which configure requires, and the include directories of its
// pkg-config module when it has one.
func (li libraryImport) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The distribution's %s stands in for the vendored %s this source lacks:\n", li.pkg, li.dir)
	b.WriteString("# each target the build links is the installed library of that name.\n")
	b.WriteString("cmake_policy(VERSION " + importPolicy + ")\n")
	b.WriteString("find_package(PkgConfig QUIET)\n")
	for _, t := range li.targets {
		v := t + "_SYSTEM_LIBRARY"
		fmt.Fprintf(&b, "find_library(%s NAMES %s)\n", v, t)
		fmt.Fprintf(&b, "if(NOT %s)\n", v)
		// A configure that goes on without the library would fail at link time, far
		// from the cause; this says what to install.
		fmt.Fprintf(&b, "  message(FATAL_ERROR \"The system library %s was not found: install %s, which replaces the vendored %s this source lacks.\")\n",
			t, li.pkg, li.dir)
		b.WriteString("endif()\n")
		fmt.Fprintf(&b, "add_library(%s INTERFACE)\n", t)
		fmt.Fprintf(&b, "target_link_libraries(%s INTERFACE ${%s})\n", t, v)
		fmt.Fprintf(&b, "if(PKG_CONFIG_FOUND)\n  pkg_search_module(%s_SYSTEM_PC QUIET lib%s %s)\n", t, t, t)
		fmt.Fprintf(&b, "  if(%s_SYSTEM_PC_FOUND)\n    target_include_directories(%s INTERFACE ${%s_SYSTEM_PC_INCLUDE_DIRS})\n  endif()\nendif()\n", t, t, t)
	}
	return b.String()
}

// IsLibraryImport reports whether a file a fix writes is a CMakeLists.txt that only
// makes the distribution's copy of a library stand in for a vendored directory the
// source lacks: a new file (isNew) in a directory named as the library (libdivsufsort),
// that is exactly the import the fix writes, whose targets each carry the library's
// name and link the installed library of that name. Such a file compiles nothing, yet
// it is no stub of the package: the package's own sources are still built, and nothing
// else may be in it.
func IsLibraryImport(p, content string, isNew bool) bool {
	if !isNew || path.Base(p) != "CMakeLists.txt" || len(content) > 64<<10 {
		return false
	}
	dir := path.Dir(path.Clean("/" + p))
	if dir == "/" {
		return false
	}
	stem, ok := libraryStem(dir)
	if !ok {
		return false
	}
	cmds, err := parseCMake(content)
	if err != nil {
		return false
	}
	li := libraryImport{dir: path.Base(dir)}
	for _, c := range cmds {
		switch {
		case c.Name == "add_library" && len(c.Args) == 2 && c.Args[1].Text == "INTERFACE":
			t := c.Args[0].Text
			if !linkTarget.MatchString(t) || !strings.Contains(strings.ToLower(t), stem) || slices.Contains(li.targets, t) {
				return false
			}
			li.targets = append(li.targets, t)
		case c.Name == "message" && len(c.Args) == 2 && li.pkg == "":
			if m := libImportPkg.FindStringSubmatch(c.Args[1].Text); m != nil && debianPackage.MatchString(m[1]) {
				li.pkg = m[1]
			}
		}
	}
	if len(li.targets) == 0 || len(li.targets) > maxLibTargets || li.pkg == "" {
		return false
	}
	// Every command, comment and argument is the generated one: nothing else can ride
	// along with the import.
	return content == li.render()
}

// libraryDecision makes the missing directory of d, which no option gates and which no
// framework is, a CMakeLists.txt that imports the distribution's copy of the library it
// names under the targets the project links (see libraryImport); false when the
// directory names no library the distribution packages for this source, already has a
// CMakeLists.txt, or the project links no target of it that the tree does not define.
func (r *subdirReader) libraryDecision(d decision) (decision, bool) {
	stem, ok := libraryStem(d.sub.rel)
	if !ok {
		return d, false
	}
	file := path.Join(d.sub.rel, "CMakeLists.txt")
	if slices.Contains(r.env.Files, file) {
		return d, false
	}
	pkg := r.libraryPackage(stem)
	if pkg == "" {
		return d, false
	}
	targets := r.undefinedLinks(stem)
	if len(targets) == 0 {
		return d, false
	}
	li := libraryImport{dir: path.Base(d.sub.rel), pkg: pkg, targets: targets}
	content := li.render()
	if !IsLibraryImport(file, content, true) {
		return d, false
	}
	d.packages, d.system, d.lib = []string{pkg}, true, &li
	d.create = &atesor.Action{Type: atesor.ActionCreateFile, Path: file, Content: content}
	return d, true
}

// libraryPackage returns the distribution's -dev package of a library: the one the
// distribution's Build-Depends name (libNAME-dev, NAME-dev), else the -dev package the
// Contents index finds libNAME.so in; "" when there is none or the platform is no
// Debian one.
func (r *subdirReader) libraryPackage(stem string) string {
	pm := r.env.Platform.PackageManager
	if pm != "" && pm != "apt-get" && pm != "apt" {
		return ""
	}
	if p, ok := buildDependsDev(r.ctx, r.env, stem); ok {
		return p
	}
	if r.env.Packages != nil {
		for _, p := range r.env.Packages.Providers(KindLibrary, stem) {
			if strings.HasSuffix(p, "-dev") && debianPackage.MatchString(p) {
				return p
			}
		}
	}
	return ""
}

// undefinedLinks returns the targets that carry the library's name which the tree's
// CMake files link (target_link_libraries, link_libraries) and define nowhere
// (add_library, add_executable, add_custom_target), in the order first linked.
func (r *subdirReader) undefinedLinks(stem string) []string {
	var linked, defined []string
	n := 0
	for _, f := range r.env.Files {
		if path.Base(f) != "CMakeLists.txt" && !strings.HasSuffix(f, ".cmake") {
			continue
		}
		if n++; n > maxLibScripts {
			break
		}
		s := r.script(f)
		if s == nil {
			continue
		}
		for _, c := range s.cmds {
			switch c.Name {
			case "add_library", "add_executable", "add_custom_target":
				if len(c.Args) > 0 {
					defined = append(defined, c.Args[0].Text)
				}
			case "target_link_libraries", "link_libraries":
				args := c.Args
				if c.Name == "target_link_libraries" && len(args) > 0 {
					args = args[1:]
				}
				for _, a := range args {
					if !a.Quoted && linkTarget.MatchString(a.Text) && strings.Contains(strings.ToLower(a.Text), stem) &&
						!slices.Contains(linked, a.Text) {
						linked = append(linked, a.Text)
					}
				}
			}
		}
	}
	linked = slices.DeleteFunc(linked, func(t string) bool { return slices.Contains(defined, t) })
	if len(linked) > maxLibTargets {
		return nil // more than an import should stand for
	}
	return linked
}

// optionGated reports whether an option of the script can turn one of the guards off:
// such a call is the option's to leave out, not an import's to stand in for.
func optionGated(s *cmakeScript, guards []guard) bool {
	for _, g := range guards {
		if slices.ContainsFunc(g.cond.ways(!g.want, s.settable), func(w []leaf) bool { return len(w) > 0 }) {
			return true
		}
	}
	return false
}
