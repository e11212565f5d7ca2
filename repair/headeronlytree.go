package repair

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// InterfaceLibrary is an INTERFACE library a CMakeLists.txt declares: a header-only
// library's target, which compiles nothing and which projects link to get its
// include directories.
type InterfaceLibrary struct {
	// Name is the target's name.
	Name string
	// IncludeDirs are the directories its target_include_directories() gives its
	// users while building (plain paths and $<BUILD_INTERFACE:...>), relative to the
	// CMakeLists.txt's directory and clean; directories named through a variable
	// other than the source-directory ones, or outside that directory, are left out.
	IncludeDirs []string
	// Line is the line of its add_library().
	Line int
}

// CMakeHeaderOnly reads a project's top-level CMakeLists.txt and returns the INTERFACE
// libraries it declares, when that is every library it declares (ALIAS and IMPORTED
// targets, which build nothing either, aside). why says why the project does not read
// as header-only: no INTERFACE library, a library of another kind (a static, shared,
// module or object library, or one whose kind BUILD_SHARED_LIBS decides), a name
// given through a variable, or a file the reader cannot read. Only this file is read:
// a library a subdirectory declares is the caller's to rule out, by what the build
// built.
func CMakeHeaderOnly(src string) (libs []InterfaceLibrary, why string) {
	s, err := readCMakeScript("CMakeLists.txt", src)
	if err != nil {
		return nil, "CMakeLists.txt: " + err.Error()
	}
	byName := map[string]int{}
	for _, c := range s.cmds {
		if c.Name != "add_library" || len(c.Args) == 0 {
			continue
		}
		name := c.Args[0].Text
		kinds := make([]string, 0, 2)
		for _, a := range c.Args[1:min(len(c.Args), 3)] {
			if !a.Quoted {
				kinds = append(kinds, a.Text)
			}
		}
		switch {
		case slices.Contains(kinds, "ALIAS") || slices.Contains(kinds, "IMPORTED"):
			continue
		case strings.Contains(name, "${"):
			return nil, "CMakeLists.txt:" + strconv.Itoa(c.Line) + " names a library through a variable"
		case len(kinds) == 0 || kinds[0] != "INTERFACE":
			return nil, "CMakeLists.txt:" + strconv.Itoa(c.Line) + " declares the library " + name + ", which compiles sources"
		}
		byName[name] = len(libs)
		libs = append(libs, InterfaceLibrary{Name: name, Line: c.Line})
	}
	if len(libs) == 0 {
		return nil, "CMakeLists.txt declares no INTERFACE library"
	}
	for _, c := range s.cmds {
		if c.Name != "target_include_directories" || len(c.Args) < 2 {
			continue
		}
		i, ok := byName[c.Args[0].Text]
		if !ok {
			continue
		}
		for _, a := range c.Args[1:] {
			if d, ok := buildIncludeDir(a.Text); ok && !slices.Contains(libs[i].IncludeDirs, d) {
				libs[i].IncludeDirs = append(libs[i].IncludeDirs, d)
			}
		}
	}
	return libs, ""
}

// includeKeywords are target_include_directories()'s keywords, not directories.
var includeKeywords = []string{"INTERFACE", "PUBLIC", "PRIVATE", "SYSTEM", "BEFORE", "AFTER"}

// buildIncludeDir resolves one target_include_directories() argument to a directory
// relative to the CMakeLists.txt's: a plain relative path, or one below the source
// directory's variables, inside $<BUILD_INTERFACE:...> or not; false for a keyword,
// the install tree's $<INSTALL_INTERFACE:...>, another variable or generator
// expression, an absolute path elsewhere or a path that leaves the tree.
func buildIncludeDir(arg string) (string, bool) {
	if slices.Contains(includeKeywords, arg) {
		return "", false
	}
	if inner, ok := strings.CutPrefix(arg, "$<BUILD_INTERFACE:"); ok {
		var closed bool
		if arg, closed = strings.CutSuffix(inner, ">"); !closed {
			return "", false
		}
	}
	for _, v := range []string{"${CMAKE_CURRENT_SOURCE_DIR}", "${CMAKE_CURRENT_LIST_DIR}", "${PROJECT_SOURCE_DIR}", "${CMAKE_SOURCE_DIR}"} {
		if rest, ok := strings.CutPrefix(arg, v); ok {
			arg = "./" + strings.TrimPrefix(rest, "/")
			break
		}
	}
	if arg == "" || path.IsAbs(arg) || strings.ContainsAny(arg, "$<>;") {
		return "", false
	}
	d := path.Clean(arg)
	if d == ".." || strings.HasPrefix(d, "../") {
		return "", false
	}
	return d, true
}
