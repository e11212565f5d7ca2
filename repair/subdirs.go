package repair

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

var (
	// cmakeSubdirMissing is CMake's report of an add_subdirectory() of a directory that
	// is not there, or has no CMakeLists.txt (a repacked tarball keeps the empty
	// third_party/googletest): raw, or as buildlog joins it into one line.
	cmakeSubdirMissing = []*regexp.Regexp{
		re(`The source directory\s+\S+\s+does not contain a CMakeLists\.txt file`),
		re(`add_subdirectory given source\s+"[^"]*"\s+which is not an\s+existing\s+directory`),
		// A build that downloads its test framework at configure time (jsonnet's
		// googletest through a sub-build), which the offline sandbox cannot.
		re(`Build step for \S+ failed|\S+ download failed: \d`),
		// A framework's file(DOWNLOAD) at configure time (cli11's catch.hpp, fetched
		// when find_package() finds no installed Catch2), which fails offline.
		re(`file DOWNLOAD cannot compute hash on failed download`),
		// A FetchContent population's download, in the configuring process.
		re(`Each download failed!`),
	}
	// cmakeSubdirAt is the same report with the calling file and line.
	cmakeSubdirAt = re(`CMake Error at ([^\n:]+):(\d+) \((add_subdirectory|message)\):\s+(?:The source directory\s+(\S+)\s+does not contain a CMakeLists\.txt file|add_subdirectory given source\s+"([^"]+)"\s+which is not an\s+existing\s+directory|Build step for (\S+) failed|(\S+) download failed)`)
	// cmakeDownloadAt is a failed file(DOWNLOAD) with the calling file and line.
	cmakeDownloadAt = re(`CMake Error at ([^\n:]+):(\d+) \(file\):\s+file DOWNLOAD cannot compute hash on failed download`)
)

func cmakeSubdirRule() Rule {
	return Rule{
		Name: "cmake-missing-subdir",
		Doc: "add_subdirectory() of a directory the tarball lacks (a repacked source without its vendored googletest or benchmark, " +
			"or a bundled library the distribution packages, imported under the target names the project links), " +
			"or a configure-time download of such a framework offline (a FetchContent population too): the distro's copy through the build's switch for a system copy " +
			"or FetchContent's own settings, else the option that gates it off",
		Signatures: cmakeSubdirMissing,
		Make:       makeCMakeSubdir,
	}
}

// missingSubdir is one add_subdirectory() CMake could not enter.
type missingSubdir struct {
	file string // the calling CMakeLists.txt, repository-relative
	cmd  string // add_subdirectory, or the message() reporting a framework's download
	line int
	dir  string // as CMake reported it
	rel  string // repository-relative, when the reader resolves the call's argument
	// failed is the compile error in a directory that is there (failing-part-off):
	// the file and the error; "" for a directory the tarball lacks.
	failed string
}

// decision is how one missing directory is dealt with: -D settings and packages.
type decision struct {
	sub      missingSubdir
	settings []leaf
	packages []string
	system   bool // the distro's copy replaces the vendored one
	purpose  string
	fw       string
	// inner is the missing directory itself when the decision gates off the directory
	// whose CMakeLists.txt adds it unconditionally (fmt's test/ adds gtest/ on its
	// first line; FMT_TEST gates test/).
	inner *missingSubdir
	// create is the CMakeLists.txt written into the missing directory when the distro's
	// copy of the framework stands in for it.
	create *atesor.Action
	// lib is the stripped vendored library whose distro copy create imports.
	lib *libraryImport
	// patch comments out the call of a tests, docs or examples directory the tarball
	// lacks and nothing gates off (see leaveOutDecision).
	patch *atesor.Action
}

func makeCMakeSubdir(ctx context.Context, f Failure, env Env) (*Fix, string) {
	return makeCMakePart(ctx, f, env, subdirsIn)
}

// subdirsIn finds CMake's reports of missing subdirectories and framework downloads.
func subdirsIn(r *subdirReader, text string) []missingSubdir {
	var subs []missingSubdir
	seen := map[string]bool{}
	for _, m := range cmakeSubdirAt.FindAllStringSubmatch(text, 64) {
		line, _ := strconv.Atoi(m[2])
		cmd, dir := m[3], m[4]+m[5]+m[6]+m[7]
		if cmd == "message" {
			if _, ok := frameworkOf(dir); !ok {
				continue // only a vendored framework's download is this rule's
			}
		}
		file, ok := r.locate(m[1], cmd, line)
		if !ok {
			continue
		}
		if key := file + ":" + m[2]; !seen[key] {
			seen[key] = true
			subs = append(subs, missingSubdir{file: file, cmd: cmd, line: line, dir: dir})
		}
	}
	for _, m := range cmakeDownloadAt.FindAllStringSubmatch(text, 64) {
		line, _ := strconv.Atoi(m[2])
		file, ok := r.locate(m[1], "file", line)
		if !ok {
			continue
		}
		s := r.script(file)
		url, ok := s.download(s.cmds[s.at("file", line)])
		if _, isFW := frameworkOfDownload(url); !ok || !isFW {
			continue // only a framework's download is this rule's
		}
		if key := file + ":" + m[2]; !seen[key] {
			seen[key] = true
			subs = append(subs, missingSubdir{file: file, cmd: "file", line: line, dir: url})
		}
	}
	return append(subs, fetchesIn(r, text)...)
}

// download returns the URL of a file(DOWNLOAD URL FILE ...) command, with the file's
// plain set() variables expanded, and whether the command is one.
func (s *cmakeScript) download(c cmakeCommand) (string, bool) {
	if len(c.Args) < 2 || c.Args[0].Text != "DOWNLOAD" {
		return "", false
	}
	url := c.Args[1].Text
	for range 8 {
		if !strings.Contains(url, "${") {
			break
		}
		url = cmakeRef.ReplaceAllStringFunc(url, func(ref string) string {
			if v, ok := s.vars[ref[2:len(ref)-1]]; ok && len(v) <= maxExpanded {
				return v
			}
			return ""
		})
		if len(url) > maxExpanded {
			return "", false // variables that expand into themselves
		}
	}
	return url, url != ""
}

// maxExpanded bounds a path or URL with its variables expanded: a variable set to many
// references to itself would otherwise grow without end.
const maxExpanded = 4096

// makeCMakePart makes the fix for the parts find reports missing: each one's system
// copy or gating option, and the blocks that need what is left out.
func makeCMakePart(ctx context.Context, f Failure, env Env, find func(*subdirReader, string) []missingSubdir) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the build files cannot be read"
	}
	if env.Plan == nil {
		return nil, "no build plan to configure differently"
	}
	text := f.text()
	if f.Output != "" {
		text += "\n" + f.Message
	}
	r := subdirReader{ctx: ctx, env: env, scripts: map[string]*cmakeScript{}}
	subs := find(&r, text)
	if len(subs) == 0 && r.err != "" {
		return nil, r.err
	}
	if len(subs) == 0 {
		return nil, "the output does not say which CMakeLists.txt line failed, or it cannot be read"
	}
	pinned := turnedOnByFixes(env.Fixes)
	settings := unpinned(pinned, nil)
	var decisions []decision
	var notes []string
	for _, sub := range subs {
		d, why := r.decide(sub, settings)
		if len(pinned) > 0 && (why != "" || !d.system) {
			// Only the distro's copy keeps on what an earlier fix turned on; without
			// one, the directory is dealt with as before that fix.
			d, why = r.decide(sub, unpinned(settings, pinned))
		}
		if why != "" {
			notes = append(notes, why)
			continue
		}
		for _, l := range d.settings {
			settings[l.name] = l.want
		}
		decisions = append(decisions, d)
	}
	if len(decisions) == 0 {
		return nil, strings.Join(notes, "; ")
	}
	decisions = append(decisions, r.dependents(decisions, settings)...)
	return subdirFix(env, f.Phase, decisions, notes)
}

// subdirReader reads and keeps the CMakeLists.txt files a fix looks at.
type subdirReader struct {
	ctx     context.Context
	env     Env
	scripts map[string]*cmakeScript
	read    int    // bytes read so far, against maxSubdirRead
	err     string // why the last file that could not be read could not
}

// maxSubdirRead bounds what one fix reads of the tree's CMake files, so a tree of many
// huge CMakeLists.txt cannot make it read without end.
const maxSubdirRead = 16 << 20

func (r *subdirReader) script(file string) *cmakeScript {
	if s, ok := r.scripts[file]; ok {
		return s
	}
	var s *cmakeScript
	if r.read < maxSubdirRead && r.ctx.Err() == nil {
		if b, err := r.env.ReadFile(r.ctx, file); err == nil {
			r.read += len(b)
			var err error
			if s, err = readCMakeScript(file, string(b)); err != nil {
				r.err = file + ": " + err.Error()
			}
		}
	}
	r.scripts[file] = s
	if s != nil {
		r.inherit(s)
	}
	return s
}

// inherit gives a subdirectory's script the options and find_package() names of the
// CMakeLists.txt files above it: a cache variable and a package found are visible to
// every directory CMake enters after them.
func (r *subdirReader) inherit(s *cmakeScript) {
	for d := path.Dir(s.file); d != "." && d != "/"; {
		d = path.Dir(d)
		parent := path.Join(d, "CMakeLists.txt")
		if !slices.Contains(r.env.Files, parent) {
			continue
		}
		p := r.script(parent)
		if p == nil {
			continue
		}
		for k, v := range p.options {
			if _, ok := s.options[k]; !ok {
				s.options[k] = v
			}
		}
		for k := range p.findPackage {
			s.findPackage[k] = true
		}
		return // the parent inherited from its own parents
	}
}

// locate finds the repository file CMake's error names (relative to the configured
// source directory, or absolute in the sandbox): the file in the tree whose command on
// that line is an add_subdirectory(), the shortest path of those.
func (r *subdirReader) locate(name, cmd string, line int) (string, bool) {
	name = strings.TrimSpace(name)
	var cands []string
	for _, p := range r.env.Files {
		if p == name || strings.HasSuffix("/"+p, "/"+name) || strings.HasSuffix(name, "/"+p) {
			cands = append(cands, p)
		}
	}
	slices.SortFunc(cands, func(a, b string) int { return len(a) - len(b) })
	for _, c := range cands[:min(len(cands), 8)] {
		if s := r.script(c); s != nil && s.at(cmd, line) >= 0 {
			return c, true
		}
	}
	return "", false
}

// sourceRoot is the top CMakeLists.txt's directory among the loaded ones' ancestors:
// the directory of the shortest CMakeLists.txt path above file.
func (r *subdirReader) sourceRoot(file string) string {
	dir := path.Dir(file)
	root := dir
	for d := dir; ; d = path.Dir(d) {
		if slices.Contains(r.env.Files, path.Join(d, "CMakeLists.txt")) {
			root = d
		}
		if d == "." || d == "/" {
			return root
		}
	}
}

// settable says whether the fix can set a condition's leaf: a -D of an option or cache
// variable (BUILD_TESTING is CTest's option), or, for <Pkg>_FOUND and TARGET of a
// framework the file looks for with find_package(), installing its package.
func (s *cmakeScript) settable(l leaf) bool {
	if l.op == "var" {
		if _, ok := s.options[l.name]; ok || l.name == "BUILD_TESTING" {
			return true
		}
	}
	return s.installable(l) != ""
}

// installable returns the framework whose package makes the leaf true, or "".
func (s *cmakeScript) installable(l leaf) string {
	if !l.want {
		return ""
	}
	name := l.name
	if l.op == "var" {
		base, ok := strings.CutSuffix(name, "_FOUND")
		if !ok {
			return ""
		}
		name = base
	}
	fw, ok := frameworkByFind(name)
	if !ok || !slices.ContainsFunc(fw.find, func(n string) bool { return s.findPackage[n] }) {
		return ""
	}
	return fw.name
}

// decide chooses how to deal with one missing directory, given the settings chosen for
// the others: the distro's copy of a vendored framework when the build has a switch
// for it, else an option that gates the call off when the directory or the option is
// tests, benchmarks, examples, docs or fuzzers. It returns a reason when neither fits.
func (r *subdirReader) decide(sub missingSubdir, settings map[string]bool) (decision, string) {
	return r.decideAt(sub, settings, 0)
}

// decideAt is decide for a call depth directories above the missing one.
func (r *subdirReader) decideAt(sub missingSubdir, settings map[string]bool, depth int) (decision, string) {
	s := r.script(sub.file)
	i := s.at(sub.cmd, sub.line)
	if rel, ok := s.subdir(s.cmds[i], r.sourceRoot(sub.file)); ok && sub.cmd == "add_subdirectory" {
		sub.rel = rel
	}
	name := sub.rel
	if name == "" {
		name = sub.dir
	}
	d := decision{sub: sub, purpose: cmp.Or(purposeOf(name), fetchPurpose(sub))}
	fw, isFW := frameworkOf(name)
	if sub.cmd == "file" {
		fw, isFW = frameworkOfDownload(name)
	}
	if !isFW && isFetch(sub.cmd) {
		fw, isFW = r.declaredFramework(sub)
	}
	if isFW {
		d.fw = fw.name
		d.purpose = "tests"
		if fw.name == "benchmark" {
			d.purpose = "benchmarks"
		}
	}
	if isFW && sub.cmd == "find_package" {
		// A required test framework: installing it keeps the tests, whatever gates it.
		if pkgs := r.frameworkPackages(fw); len(pkgs) > 0 {
			d.packages, d.system = pkgs, true
			return d, ""
		}
	}
	guards := s.guards[i]
	conflicts := func(ls []leaf) bool {
		return slices.ContainsFunc(ls, func(l leaf) bool { v, set := settings[l.name]; return set && v != l.want })
	}
	// The distro's copy first: it keeps the package's tests. The package is looked up
	// only once the build is known to have a switch for it.
	if isFW {
		for k := len(guards) - 1; k >= max(0, len(guards)-maxGuardsLooked); k-- {
			for _, way := range guards[k].cond.ways(!guards[k].want, s.settable) {
				if len(way) == 0 || conflicts(way) || slices.ContainsFunc(way, func(l leaf) bool { return !systemSwitch(s, l) }) {
					continue
				}
				pkgs := r.frameworkPackages(fw)
				if len(pkgs) == 0 {
					break
				}
				for _, l := range way {
					if l.op == "var" && !strings.HasSuffix(l.name, "_FOUND") {
						d.settings = append(d.settings, l)
					}
				}
				d.packages, d.system = pkgs, true
				return d, ""
			}
		}
	}
	if fd, ok := r.fetchFromDistro(d); ok {
		return fd, ""
	}
	for k := len(guards) - 1; k >= max(0, len(guards)-maxGuardsLooked); k-- {
		for _, way := range guards[k].cond.ways(!guards[k].want, s.settable) {
			if len(way) == 0 || conflicts(way) || slices.ContainsFunc(way, func(l leaf) bool { return !s.switchesOff(l, d.purpose) }) {
				continue
			}
			d.settings = way
			return d, ""
		}
	}
	if isFW || d.purpose != "" {
		// Nothing in this file gates the call (a vendored framework's directory, its
		// download, a documentation tool's find_package()): the directory that holds it
		// may be gated in the CMakeLists.txt above, when that directory is itself tests,
		// benchmarks, examples or docs.
		if up, ok := r.enclosing(sub.file); ok && purposeOf(up.rel) != "" && depth < maxEnclosing {
			if outer, why := r.decideAt(up, settings, depth+1); why == "" {
				if outer.inner == nil {
					inner := sub
					outer.inner, outer.fw = &inner, d.fw
				}
				return outer, ""
			}
		}
	}
	if isFW && sub.cmd == "add_subdirectory" && sub.rel != "" {
		// No option leaves the vendored framework out: the distro's copy stands in for it.
		if imp, ok := r.importDecision(d, fw); ok {
			return imp, ""
		}
	}
	if !isFW && d.purpose == "" && sub.cmd == "add_subdirectory" && sub.rel != "" && !optionGated(s, guards) {
		// A stripped bundled copy of a library the distribution packages: its copy stands
		// in under the targets the project links.
		if imp, ok := r.libraryDecision(d); ok {
			return imp, ""
		}
	}
	if !isFW && depth == 0 {
		// Nothing gates the directory off, here or above: its call is left out.
		if lo, ok := r.leaveOutDecision(d); ok {
			return lo, ""
		}
	}
	if len(guards) == 0 {
		return d, fmt.Sprintf("%s:%d calls %s(%s) unconditionally", sub.file, sub.line, sub.cmd, name)
	}
	return d, fmt.Sprintf("no option of %s gates %s:%d (%s) off as tests, benchmarks, examples or docs", sub.file, sub.file, sub.line, name)
}

// importDecision makes the missing framework directory of d a CMakeLists.txt that
// imports the distro's copy under the vendored targets' names (see frameworkImport),
// with the copy's packages installed; false when the framework has no such import, the
// directory already has a CMakeLists.txt or the platform does not package it.
func (r *subdirReader) importDecision(d decision, fw framework) (decision, bool) {
	content := frameworkImport(fw)
	file := path.Join(d.sub.rel, "CMakeLists.txt")
	if content == "" || slices.Contains(r.env.Files, file) || !IsFrameworkImport(file, content, true) {
		return d, false
	}
	pkgs := r.frameworkPackages(fw)
	if len(pkgs) == 0 {
		return d, false
	}
	d.packages, d.system, d.fw = pkgs, true, fw.name
	d.create = &atesor.Action{Type: atesor.ActionCreateFile, Path: file, Content: content}
	return d, true
}

// maxEnclosing bounds how many directories up a gate of the missing one is looked for.
const maxEnclosing = 4

// enclosing finds the add_subdirectory() that brings file's directory into the build:
// a call in a CMakeLists.txt above it whose directory resolves to file's.
func (r *subdirReader) enclosing(file string) (missingSubdir, bool) {
	dir := path.Dir(file)
	for d := dir; d != "." && d != "/"; {
		d = path.Dir(d)
		parent := path.Join(d, "CMakeLists.txt")
		if !slices.Contains(r.env.Files, parent) {
			continue
		}
		p := r.script(parent)
		if p == nil {
			return missingSubdir{}, false
		}
		root := r.sourceRoot(parent)
		for _, c := range p.cmds {
			if c.Name != "add_subdirectory" {
				continue
			}
			if rel, ok := p.subdir(c, root); ok && rel == dir {
				return missingSubdir{file: parent, cmd: c.Name, line: c.Line, dir: c.Args[0].Text, rel: rel}, true
			}
		}
		return missingSubdir{}, false
	}
	return missingSubdir{}, false
}

// systemSwitch reports whether setting the leaf selects a system copy: a USE_SYSTEM_X
// on, a USE_BUNDLED_X off, or a framework's package installed for find_package().
func systemSwitch(s *cmakeScript, l leaf) bool {
	if s.installable(l) != "" {
		return true
	}
	if l.op != "var" {
		return false
	}
	if _, ok := s.options[l.name]; !ok {
		return false
	}
	return (l.want && systemWords.MatchString(l.name)) || (!l.want && bundledWords.MatchString(l.name))
}

// switchesOff reports whether setting an option as the leaf says leaves out a part of
// the given purpose (or one its name and doc say): LEVELDB_BUILD_TESTS off, SKIP_TESTS on.
func (s *cmakeScript) switchesOff(l leaf, purpose string) bool {
	p, ok := s.optionPurpose(l)
	if !ok || p == "" || (purpose != "" && p != purpose && purpose != "tests" && p != "tests") {
		return false
	}
	return l.want == negativeWords.MatchString(l.name)
}

// optionPurpose is the part (tests, benchmarks, examples, docs, ...) an option leaf's
// name, else its doc, says it is about. ok is false for a leaf that is not an option of
// the script (nor CTest's BUILD_TESTING) and for a switch between a system and a bundled
// copy, whose purpose is the copy, not a part.
func (s *cmakeScript) optionPurpose(l leaf) (purpose string, ok bool) {
	if l.op != "var" {
		return "", false
	}
	doc := ""
	if o, found := s.options[l.name]; found {
		doc = o.Doc
	} else if l.name != "BUILD_TESTING" {
		return "", false
	}
	if systemWords.MatchString(l.name) || bundledWords.MatchString(l.name) {
		return "", false
	}
	if p := purposeOf(l.name); p != "" {
		return p, true
	}
	return purposeOf(doc), true
}

// frameworkPackages are the distro packages of a framework: through the Contents index
// when there is one, else the names Debian gives them; none on other platforms.
func (r *subdirReader) frameworkPackages(fw framework) []string {
	pm := r.env.Platform.PackageManager
	if pm != "" && pm != "apt-get" && pm != "apt" {
		return nil
	}
	if r.env.Packages != nil {
		if p := r.env.Packages.Providers(KindHeader, fw.header); len(p) > 0 {
			return append([]string{p[0]}, fw.packages[1:]...)
		}
	}
	return fw.packages
}
