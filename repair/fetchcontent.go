package repair

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

var (
	// cmakeFetchErrorAt is a message() error with the call stack that leads there from
	// the package's files: FetchContent's "Build step for googletest failed" from its own
	// module when the population runs in a sub-build, or "Each download failed!" from
	// the download script in the build tree (.../download-doctest.cmake) when it runs in
	// the configuring process (policy CMP0168). The body between the two is a few lines of
	// the message.
	cmakeFetchErrorAt = re(`CMake Error at ([^\n]+):\d+ \(message\):\n((?:[^\n]*\n){0,40}?)[ \t]*Call Stack \(most recent call first\):\n((?:[ \t]+\S[^\n]*\n?){1,32})`)
	// cmakeFetchFrame is a frame of that stack in the package's own files (a relative
	// path) calling FetchContent: the most recent one is the call that failed.
	cmakeFetchFrame = re(`(?mi)^[ \t]+([^/\s][^:\s]*):(\d+) \((FetchContent_MakeAvailable|FetchContent_Populate)\)\s*$`)
	// cmakeFetchBuildStep names the declared dependency whose population failed, and
	// cmakeFetchScript the download script that failed, named after it.
	cmakeFetchBuildStep = re(`Build step for (\S+) failed`)
	cmakeFetchScript    = re(`/download-([A-Za-z0-9_.+-]+?)(?:-populate)?\.cmake$`)
)

// The FetchContent calls the rule answers, as the CMake reader names them.
const (
	fetchMakeAvailable = "fetchcontent_makeavailable"
	fetchPopulate      = "fetchcontent_populate"
)

// isFetch reports whether a failing call is a FetchContent population.
func isFetch(cmd string) bool { return cmd == fetchMakeAvailable || cmd == fetchPopulate }

// fetchCopy is what the distribution offers in place of a dependency a build declares
// with FetchContent_Declare(), by the declared name (case-insensitive). Either a copy of
// its sources that FETCHCONTENT_SOURCE_DIR_<NAME> points the population at, which keeps
// the targets the build links by name (googletest's Debian package ships them in
// /usr/src/googletest), or a CMake package that FetchContent_MakeAvailable() finds with
// FETCHCONTENT_TRY_FIND_PACKAGE_MODE=ALWAYS (CMake 3.24 and later) when the declared
// name is the package's find_package() name as the distribution's configuration file
// spells it. Tried on Debian trixie's riscv64 packages with CMake 3.31.
type fetchCopy struct {
	names    []string // declared names, lower case
	srcDir   string
	find     string // the find_package() name its configuration file answers to
	packages []string
}

var fetchCopies = []fetchCopy{
	// find_package(googletest) finds nothing (the configuration is GTest's), so the
	// sources it ships are what a population can use.
	{names: []string{"googletest", "gtest"}, srcDir: "/usr/src/googletest", packages: []string{"googletest"}},
	{names: []string{"catch2"}, find: "Catch2", packages: []string{"catch2"}},
	{names: []string{"benchmark"}, find: "benchmark", packages: []string{"libbenchmark-dev"}},
	{names: []string{"doctest"}, find: "doctest", packages: []string{"doctest-dev"}},
	{names: []string{"fmt"}, find: "fmt", packages: []string{"libfmt-dev"}},
	{names: []string{"nlohmann_json"}, find: "nlohmann_json", packages: []string{"nlohmann-json3-dev"}},
}

// fetchCopyOf returns the distribution's copy of a declared dependency.
func fetchCopyOf(declared string) (fetchCopy, bool) {
	for _, c := range fetchCopies {
		if slices.Contains(c.names, strings.ToLower(declared)) {
			return c, true
		}
	}
	return fetchCopy{}, false
}

// fetchesIn finds FetchContent populations that failed (offline, every download does):
// the declaring build's call of FetchContent_MakeAvailable() or FetchContent_Populate()
// is the most recent frame of the error's call stack in the package's own files, and
// the dependency is the one the error names among the call's arguments.
func fetchesIn(r *subdirReader, text string) []missingSubdir {
	var subs []missingSubdir
	seen := map[string]bool{}
	// The dependencies the output says failed anywhere: a report shortened to its call
	// stack (the extracted error keeps no body) is of one of them.
	var named []string
	for _, m := range cmakeFetchBuildStep.FindAllStringSubmatch(text, 16) {
		named = append(named, m[1])
	}
	for _, m := range cmakeFetchErrorAt.FindAllStringSubmatch(text, 16) {
		fr := cmakeFetchFrame.FindStringSubmatch(m[3])
		if fr == nil || slices.Contains(strings.Split(fr[1], "/"), "..") {
			continue // a frame outside the source tree is no call of the package's
		}
		line, _ := strconv.Atoi(fr[2])
		cmd := strings.ToLower(fr[3])
		file, ok := r.locate(fr[1], cmd, line)
		if !ok {
			continue
		}
		s := r.script(file)
		name, ok := fetchedName(s.cmds[s.at(cmd, line)], m[1], m[2], named)
		if !ok {
			continue
		}
		if key := file + ":" + fr[2] + ":" + name; !seen[key] {
			seen[key] = true
			subs = append(subs, missingSubdir{file: file, cmd: cmd, line: line, dir: name})
		}
	}
	return subs
}

// fetchedName picks the dependency that failed among a FetchContent call's arguments:
// the one the report names (FetchContent's "Build step for NAME failed", or the
// download-NAME.cmake script it came from), else one the output names so elsewhere,
// else the call's only one, when the output names none. FetchContent_Populate's further
// arguments (its direct form, URL and such) name no dependency.
func fetchedName(c cmakeCommand, at, body string, named []string) (string, bool) {
	var names []string
	for i, a := range c.Args {
		if a.Quoted || !cmakeVarName.MatchString(a.Text) || (c.Name == fetchPopulate && i > 0) {
			continue
		}
		names = append(names, a.Text)
	}
	if m := cmakeFetchBuildStep.FindStringSubmatch(body); m != nil {
		named = []string{m[1]}
	} else if m := cmakeFetchScript.FindStringSubmatch(at); m != nil {
		named = []string{m[1]}
	}
	if len(named) == 0 && len(names) == 1 {
		return names[0], true
	}
	for _, n := range names {
		if slices.ContainsFunc(named, func(w string) bool { return strings.EqualFold(n, w) }) {
			return n, true
		}
	}
	return "", false
}

// declaredFramework returns the framework a FetchContent_Declare() of the failed
// dependency fetches, by its URL or GIT_REPOSITORY, when the declared name does not say
// (FetchContent_Declare(gtest_ext GIT_REPOSITORY .../google/googletest.git)): the
// declaration in the calling file or one above it that the reader has read.
func (r *subdirReader) declaredFramework(sub missingSubdir) (framework, bool) {
	files := []string{sub.file}
	for d := path.Dir(sub.file); d != "." && d != "/"; {
		d = path.Dir(d)
		files = append(files, path.Join(d, "CMakeLists.txt"))
	}
	for _, file := range files {
		s := r.scripts[file]
		if s == nil {
			continue
		}
		for _, c := range s.cmds {
			if c.Name != "fetchcontent_declare" || len(c.Args) == 0 || !strings.EqualFold(c.Args[0].Text, sub.dir) {
				continue
			}
			for k, a := range c.Args[:len(c.Args)-1] {
				if url := c.Args[k+1].Text; !a.Quoted && (a.Text == "URL" || a.Text == "GIT_REPOSITORY") && len(url) <= maxExpanded {
					if fw, ok := frameworkOfDownload(url); ok {
						return fw, true
					}
				}
			}
		}
	}
	return framework{}, false
}

// fetchFromDistro points a failed FetchContent population at the distribution's copy of
// the dependency: its sources through FETCHCONTENT_SOURCE_DIR_<NAME>, or its CMake
// package through FETCHCONTENT_TRY_FIND_PACKAGE_MODE=ALWAYS. Like a system switch, it
// keeps the package's tests. False when the copy is not known or the distribution is
// not Debian's kind.
func (r *subdirReader) fetchFromDistro(d decision) (decision, bool) {
	if !isFetch(d.sub.cmd) {
		return d, false
	}
	c, ok := fetchCopyOf(d.sub.dir)
	if !ok && d.fw != "" {
		c, ok = fetchCopyOf(d.fw) // its sources serve under any declared name
	}
	if pm := r.env.Platform.PackageManager; !ok || (pm != "" && pm != "apt-get" && pm != "apt") {
		return d, false
	}
	switch {
	case c.srcDir != "":
		d.settings = []leaf{{op: "var", name: "FETCHCONTENT_SOURCE_DIR_" + strings.ToUpper(d.sub.dir), want: true, value: c.srcDir}}
	case c.find == d.sub.dir && d.sub.cmd == fetchMakeAvailable:
		d.settings = []leaf{{op: "var", name: "FETCHCONTENT_TRY_FIND_PACKAGE_MODE", want: true, value: "ALWAYS"}}
	default:
		return d, false
	}
	d.packages, d.system = c.packages, true
	return d, true
}

// fetchPurpose is what a fetched dependency is for when its name does not say: what
// the directory of the declaring file is for (a tests/CMakeLists.txt fetches for tests).
func fetchPurpose(sub missingSubdir) string {
	if !isFetch(sub.cmd) {
		return ""
	}
	return purposeOf(path.Dir(sub.file))
}

// setting is the value a -D of the leaf sets: its own, else ON or OFF.
func (l leaf) setting() string {
	switch {
	case l.value != "":
		return l.value
	case l.want:
		return "ON"
	}
	return "OFF"
}
