package repair

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// policyVersion is a cmake_policy(VERSION) argument: a version or a min...max range.
var policyVersion = regexp.MustCompile(`^\d+\.\d+(?:\.\d+)?(?:\.\.\.\d+\.\d+(?:\.\d+)?)?$`)

// A repacked tarball may lack a vendored framework that its CMakeLists.txt adds with
// no option around the call (Debian's assembly-stats adds gtest-1.7.0 on line 7 and
// links gtest and gtest_main by name). A porter then points the build at the
// distribution's copy: the missing directory gets a CMakeLists.txt that finds the
// installed framework and defines the vendored build's targets as interface targets
// linking the installed ones. The file is written by the fix, so the recipe's patches
// carry it and a replay writes it again.

// frameworkImport returns the CMakeLists.txt that makes the installed copy of fw stand
// in for its vendored directory, or "" when fw has no installed targets to stand for.
func frameworkImport(fw framework) string {
	if fw.pkgName == "" || len(fw.imports) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The distribution's %s stands in for the vendored copy this source lacks:\n", fw.name)
	b.WriteString("# the targets the vendored build defines link the installed ones.\n")
	// The source's own cmake_minimum_required() may be ancient (assembly-stats asks for
	// 2.6): without today's policies the installed config files misread their own if()s
	// and skip their find_dependency(Threads).
	b.WriteString("cmake_policy(VERSION " + importPolicy + ")\n")
	fmt.Fprintf(&b, "find_package(%s REQUIRED)\n", fw.pkgName)
	// The installed targets link Threads::Threads, which the build's own directories
	// must see by name too.
	b.WriteString("if(TARGET Threads::Threads)\n  set_target_properties(Threads::Threads PROPERTIES IMPORTED_GLOBAL TRUE)\nendif()\n")
	for _, t := range fw.imports {
		// Global, so the build's own directories see the installed targets by name too.
		fmt.Fprintf(&b, "if(TARGET %s)\n  set_target_properties(%s PROPERTIES IMPORTED_GLOBAL TRUE)\n", t.installed, t.installed)
		fmt.Fprintf(&b, "  add_library(%s INTERFACE)\n  target_link_libraries(%s INTERFACE %s)\nendif()\n", t.vendored, t.vendored, t.installed)
	}
	return b.String()
}

// importPolicy is the policy version range the import sets for its directory.
const importPolicy = "3.10...3.31"

// importDeps are imported targets of the installed frameworks' own dependencies that an
// import may make global.
var importDeps = []string{"Threads::Threads"}

// IsFrameworkImport reports whether a file a fix writes is a CMakeLists.txt that only
// makes the distribution's copy of a test or benchmark framework stand in for a
// vendored directory the source lacks: a new file (isNew) in a directory named as the
// framework's (googletest, gtest-1.7.0, third_party/benchmark), whose commands are only
// cmake_policy(VERSION), find_package() of the installed framework, if(TARGET) of its
// imported targets (and of Threads::Threads, which they link), IMPORTED_GLOBAL on them,
// and interface targets named as the vendored build's that link them. Such a file compiles nothing, yet it is no stub of the package: the
// package's own sources are still built, and nothing else may be in it.
func IsFrameworkImport(p, content string, isNew bool) bool {
	if !isNew || path.Base(p) != "CMakeLists.txt" {
		return false
	}
	dir := path.Dir(path.Clean("/" + p))
	if dir == "/" {
		return false
	}
	fw, ok := frameworkOf(dir)
	if !ok || len(fw.imports) == 0 {
		return false
	}
	cmds, err := parseCMake(content)
	if err != nil || len(cmds) == 0 {
		return false
	}
	installed := func(name string) bool {
		return slices.Contains(importDeps, name) || slices.ContainsFunc(fw.imports, func(t importTarget) bool { return t.installed == name })
	}
	plain := func(args []cmakeArg) ([]string, bool) {
		out := make([]string, len(args))
		for i, a := range args {
			if a.Quoted || strings.ContainsAny(a.Text, "${}<>;") {
				return nil, false
			}
			out[i] = a.Text
		}
		return out, true
	}
	found, defined := false, false
	depth := 0
	for _, c := range cmds {
		args, ok := plain(c.Args)
		if !ok {
			return false
		}
		switch c.Name {
		case "cmake_policy":
			if len(args) != 2 || args[0] != "VERSION" || !policyVersion.MatchString(args[1]) {
				return false
			}
		case "find_package":
			if len(args) == 0 || args[0] != fw.pkgName || slices.ContainsFunc(args[1:], func(a string) bool { return a != "REQUIRED" && a != "CONFIG" }) {
				return false
			}
			found = true
		case "if":
			if len(args) != 2 || args[0] != "TARGET" || !installed(args[1]) || depth > 0 {
				return false
			}
			depth++
		case "endif":
			if depth == 0 {
				return false
			}
			depth--
		case "set_target_properties":
			if len(args) != 4 || !installed(args[0]) || args[1] != "PROPERTIES" || args[2] != "IMPORTED_GLOBAL" || args[3] != "TRUE" {
				return false
			}
		case "add_library":
			if len(args) != 2 || args[1] != "INTERFACE" || !slices.ContainsFunc(fw.imports, func(t importTarget) bool { return t.vendored == args[0] }) {
				return false
			}
			defined = true
		case "target_link_libraries":
			if len(args) != 3 || args[1] != "INTERFACE" ||
				!slices.Contains(fw.imports, importTarget{vendored: args[0], installed: args[2]}) {
				return false
			}
		default:
			return false
		}
	}
	return found && defined && depth == 0
}
