// Package staleobj decides when a rebuild after a change of the build plan must first
// drop what the earlier build left in the tree, and how, per build system.
//
// A fix that changes how a package compiles or links (CFLAGS in configure's
// environment, a configure switch, CFLAGS or LIBS in make's environment, a cmake -D
// definition, a meson -D option) replaces a command line of the plan, and the rebuild
// runs the changed phase again over the tree the earlier build left. Each build system
// reacts differently to that, and a recipe's replay, which builds once in a fresh tree
// with the final plan, only reproduces the port's artifacts when the rebuild ends where
// a fresh build would:
//
//   - make (configure scripts, automake, plain Makefiles): a rule depends on files,
//     never on the flags its recipe expands, so objects compiled before the change are
//     kept with the old flags (genders' objects compiled before -fpermissive keep the
//     old flags in their DWARF producer string). The step is make clean where the
//     changed configure or make runs, with the Makefile the earlier build used, which
//     knows every object it made (also those of a directory the new switches leave
//     out).
//   - CMake records each target's compile flags (flags.make) and link line (link.txt)
//     and rebuilds exactly what a change touches, but its cache keeps a -D value the new
//     line no longer sets and skips what a project initialises only on a first
//     configure. The step removes the build directory's CMakeCache.txt, so the
//     configure starts as a first one; the objects stay for CMake to judge.
//   - meson: ninja records every command line and recompiles what changed, but meson
//     setup of an already configured build directory does not configure it with the
//     new line. The step removes the directory's meson-private/coredata.dat, which is
//     what makes a directory configured, so setup configures afresh; the objects stay
//     for ninja to judge.
//
// A command whose flags did not change (make -j1 for -j$(nproc)), one the earlier plan
// did not have (a build system switched for another), or one in a directory that cannot
// be told statically gets no step.
package staleobj

import (
	"fmt"
	"path"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// System is the build system a step cleans for.
type System string

// The build systems with a step of their own.
const (
	Make  System = "make"
	CMake System = "cmake"
	Meson System = "meson"
)

// Step is what a rebuild must drop first in one directory of the tree.
type Step struct {
	System System
	// Dir is the directory, relative to the repository ("." for its root): where the
	// Makefile is (make), the build directory (CMake, meson).
	Dir string
	// Makefile is the makefile make -f read (a platform makefile such as
	// makefile.unx), relative to Dir; "" when make found it by itself.
	Makefile string
	// Why names the commands whose change asks for the step and what changed.
	Why string
}

// Line is the shell line, run in the repository's root, that takes the step. Each one
// is a no-op where the earlier build left nothing (no Makefile, no cache).
func (s Step) Line() string {
	dir := shellwords.Quote(s.Dir)
	switch s.System {
	case Make:
		if s.Makefile != "" {
			mf := shellwords.Quote(s.Makefile)
			return "cd " + dir + " && if [ -f " + mf + " ]; then make -f " + mf + " clean; fi"
		}
		return "cd " + dir + " && if [ -f GNUmakefile ] || [ -f makefile ] || [ -f Makefile ]; then make clean; fi"
	case CMake:
		return "rm -f -- " + shellwords.Quote(path.Join(s.Dir, "CMakeCache.txt"))
	case Meson:
		return "rm -f -- " + shellwords.Quote(path.Join(s.Dir, "meson-private", "coredata.dat"))
	}
	return ""
}

// makeFlagVars are the variables of make's environment and command line through which
// compile and link flags reach the recipes.
var makeFlagVars = map[string]bool{
	"CFLAGS": true, "CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true, "LIBS": true, "LDLIBS": true,
	"CC": true, "CXX": true, "CPP": true, "FFLAGS": true, "FCFLAGS": true, "OBJCFLAGS": true,
}

// use is one command of a plan that compiles or configures, as the steps see it.
type use struct {
	system System
	dir    string
	// configure tells a configure from a make command of the same directory.
	configure bool
	// makefile is a make command's -f makefile, relative to dir; "" when make finds it.
	makefile string
	// sig is what must be equal for the command to build alike: a configure's whole
	// command (environment, program, switches), make's flag variables.
	sig []string
	// text is the command as written, for the step's reason.
	text string
}

// same reports whether two commands are the same kind in the same directory.
func (u use) same(o use) bool {
	return u.system == o.system && u.dir == o.dir && u.configure == o.configure
}

// Steps returns what a rebuild with plan next must drop first in a tree the earlier
// build ran plan before in, in the order of next's commands, one step per build system
// and directory. The commands of one kind in one directory are compared in order, the
// first of next with the first of before, and so on; one with no counterpart in before
// built nothing there. repoDir is the repository's absolute path in the sandbox, for a
// cd to an absolute path inside it.
func Steps(before, next atesor.BuildPlan, repoDir string) []Step {
	old, cur := uses(before, repoDir), uses(next, repoDir)
	var out []Step
	for i, u := range cur {
		n := 0 // how many commands of u's kind and directory come before it
		for _, p := range cur[:i] {
			if p.same(u) {
				n++
			}
		}
		var o *use
		for j := range old {
			if old[j].same(u) {
				if n == 0 {
					o = &old[j]
					break
				}
				n--
			}
		}
		if o == nil || slices.Equal(o.sig, u.sig) ||
			slices.ContainsFunc(out, func(s Step) bool { return s.System == u.system && s.Dir == u.dir }) {
			continue
		}
		out = append(out, Step{System: u.system, Dir: u.dir, Makefile: u.makefile, Why: why(*o, u)})
	}
	return out
}

// why says what changed between two commands: the words the new one adds and drops.
func why(old, next use) string {
	var added, dropped []string
	for _, w := range next.sig {
		if !slices.Contains(old.sig, w) {
			added = append(added, w)
		}
	}
	for _, w := range old.sig {
		if !slices.Contains(next.sig, w) {
			dropped = append(dropped, w)
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "adds "+strings.Join(added, " "))
	}
	if len(dropped) > 0 {
		parts = append(parts, "drops "+strings.Join(dropped, " "))
	}
	if len(parts) == 0 {
		parts = append(parts, "reorders its words")
	}
	return fmt.Sprintf("`%s` %s", next.text, strings.Join(parts, " and "))
}

// uses reads the commands of a plan that configure or compile, with the directory each
// runs in (following cd and make -C); a line that does not parse gives none.
func uses(plan atesor.BuildPlan, repoDir string) []use {
	var out []use
	for _, line := range plan.Commands() {
		f, err := shellwords.Parse(line)
		if err != nil {
			continue
		}
		cwd, known := ".", true
		for _, c := range shellwords.Commands(f) {
			prog := c.Program()
			if prog < 0 {
				continue
			}
			name := c.Name()
			args := words(line, c.Words[prog+1:])
			if name == "cd" {
				cwd, known = cd(cwd, known, args, repoDir)
				continue
			}
			if !known {
				continue
			}
			u := use{text: strings.TrimSpace(line[segmentStart(c):c.Words[len(c.Words)-1].End])}
			ok := false
			switch {
			case name == "configure":
				u.system, u.dir, u.configure, u.sig, ok = Make, cwd, true, wholeSig(line, c), true
			case name == "make" || name == "gmake":
				u.system, u.sig = Make, makeSig(line, c, prog)
				u.dir, ok = makeDir(cwd, args)
				if ok {
					u.makefile, ok = makeFile(args)
				}
			case name == "cmake" && cmakeConfigures(args):
				u.system, u.configure, u.sig = CMake, true, wholeSig(line, c)
				u.dir, ok = cmakeBuildDir(cwd, args)
			case name == "meson":
				u.system, u.configure, u.sig = Meson, true, wholeSig(line, c)
				u.dir, ok = mesonSetupDir(cwd, args)
			}
			if ok {
				out = append(out, u)
			}
		}
	}
	return out
}

// arg is a word of a command as the directory logic reads it: its value, and whether
// that value is known before the shell runs (else text is the word as written).
type arg struct {
	value, text string
	static      bool
}

func words(line string, ws []shellwords.Word) []arg {
	out := make([]arg, len(ws))
	for i, w := range ws {
		out[i] = arg{value: w.Value, text: line[w.Start:w.End], static: w.Static}
	}
	return out
}

// segmentStart is the offset of a command's first assignment or word.
func segmentStart(c shellwords.Command) int {
	if len(c.Values) > 0 {
		return max(0, c.Values[0].Start-len(c.Assigns[0])-1)
	}
	return c.Words[0].Start
}

// wordText is a word's value, or its text in the line when it is not static.
func wordText(line string, w shellwords.Word) string {
	if w.Static {
		return w.Value
	}
	return line[w.Start:w.End]
}

// wholeSig is every assignment and word of a command.
func wholeSig(line string, c shellwords.Command) []string {
	var sig []string
	for i, name := range c.Assigns {
		sig = append(sig, name+"="+wordText(line, c.Values[i]))
	}
	for _, w := range c.Words {
		sig = append(sig, wordText(line, w))
	}
	return sig
}

// makeSig is the flag variables of a make command, from its environment (leading
// assignments, env's VAR=value words) and its command line, sorted.
func makeSig(line string, c shellwords.Command, prog int) []string {
	var sig []string
	for i, name := range c.Assigns {
		if makeFlagVars[name] {
			sig = append(sig, name+"="+wordText(line, c.Values[i]))
		}
	}
	for i, w := range c.Words {
		if i == prog {
			continue
		}
		v := wordText(line, w)
		if name, _, ok := strings.Cut(v, "="); ok && shellwords.IsAssignment(v) && makeFlagVars[name] {
			sig = append(sig, v)
		}
	}
	slices.Sort(sig)
	return sig
}

// cd follows a cd command: a static relative directory, or an absolute one inside the
// repository; any other makes the directory unknown.
func cd(cwd string, known bool, args []arg, repoDir string) (string, bool) {
	if len(args) != 1 || !args[0].static || !known {
		return cwd, false
	}
	d := args[0].value
	if path.IsAbs(d) {
		root := path.Clean(repoDir)
		d = path.Clean(d)
		if repoDir == "" || d != root && !strings.HasPrefix(d, root+"/") {
			return cwd, false
		}
		return inside(strings.TrimPrefix(strings.TrimPrefix(d, root), "/"))
	}
	return inside(path.Join(cwd, d))
}

// inside is a relative directory kept inside the repository ("." for its root).
func inside(d string) (string, bool) {
	d = path.Clean(d)
	if d == ".." || strings.HasPrefix(d, "../") {
		return "", false
	}
	return d, true
}

// relDir is a directory argument relative to cwd, when it is static.
func relDir(cwd string, d string, static bool) (string, bool) {
	if !static || d == "" || path.IsAbs(d) {
		return "", false
	}
	return inside(path.Join(cwd, d))
}

// optionValue reads an option that takes a directory, spelled -X DIR, -XDIR or
// --long=DIR (long is "" for none): the value and how many words it took, 0 when
// args[i] is not the option. A word that is not static but starts like the option
// gives an unknown value.
func optionValue(args []arg, i int, short, long string) (val string, static bool, n int) {
	a := args[i]
	switch {
	case !a.static:
		if strings.HasPrefix(a.text, short) || long != "" && strings.HasPrefix(a.text, long) {
			return "", false, 1
		}
		return "", false, 0
	case a.value == short || long != "" && a.value == long:
		if i+1 < len(args) {
			return args[i+1].value, args[i+1].static, 2
		}
		return "", false, 1
	case long != "" && strings.HasPrefix(a.value, long+"="):
		return strings.TrimPrefix(a.value, long+"="), true, 1
	case strings.HasPrefix(a.value, short) && len(a.value) > len(short) && !strings.HasPrefix(a.value, "--"):
		return a.value[len(short):], true, 1
	}
	return "", false, 0
}

// makeDir is the directory make reads its Makefile in: cwd, or its -C directories
// (each relative to the one before).
func makeDir(cwd string, args []arg) (string, bool) {
	dir := cwd
	for i := 0; i < len(args); i++ {
		v, static, n := optionValue(args, i, "-C", "--directory")
		if n == 0 {
			continue
		}
		d, ok := relDir(dir, v, static)
		if !ok {
			return "", false
		}
		dir, i = d, i+n-1
	}
	return dir, true
}

// makeFile is the makefile a make command's -f FILE, -fFILE, --file=FILE or
// --makefile=FILE names (the last one), "" for none; not ok when it is not static or
// leaves the directory make reads it in.
func makeFile(args []arg) (string, bool) {
	file := ""
	for i := 0; i < len(args); i++ {
		v, static, n := optionValue(args, i, "-f", "--file")
		if n == 0 {
			v, static, n = optionValue(args, i, "-f", "--makefile")
		}
		if n == 0 {
			continue
		}
		if !static || v == "" || path.IsAbs(v) {
			return "", false
		}
		if _, ok := inside(v); !ok {
			return "", false
		}
		file, i = path.Clean(v), i+n-1
	}
	return file, true
}

// MakeRun is one make command of a plan: the directory it reads its makefile in and
// the makefile -f names ("" when make finds it by itself), relative to the repository
// and to Dir.
type MakeRun struct {
	Dir, Makefile string
}

// MakeRuns lists the make commands of the plan whose directory and makefile are known
// statically, in order, as [Steps] reads them (cd, -C and -f followed).
func MakeRuns(plan atesor.BuildPlan, repoDir string) []MakeRun {
	var out []MakeRun
	for _, u := range uses(plan, repoDir) {
		if u.system == Make && !u.configure {
			out = append(out, MakeRun{Dir: u.dir, Makefile: u.makefile})
		}
	}
	return out
}

// cmakeConfigures reports whether a cmake command configures a build (not --build,
// --install, -E, -P or another mode).
func cmakeConfigures(args []arg) bool {
	for _, a := range args {
		switch a.value {
		case "--build", "--install", "-E", "-P", "--open", "--help", "--version", "--workflow":
			return false
		}
	}
	return len(args) > 0
}

// cmakeBuildDir is the build directory of a cmake configure: its -B, else cwd.
func cmakeBuildDir(cwd string, args []arg) (string, bool) {
	for i := range args {
		if v, static, n := optionValue(args, i, "-B", ""); n > 0 {
			return relDir(cwd, v, static)
		}
	}
	return cwd, true
}

// mesonSubcommands are meson's commands other than setup; the old form "meson DIR"
// configures DIR.
var mesonSubcommands = map[string]bool{
	"configure": true, "compile": true, "test": true, "install": true, "introspect": true, "dist": true, "init": true,
	"wrap": true, "subprojects": true, "rewrite": true, "devenv": true, "env2mfile": true, "format": true, "fmt": true, "help": true,
}

// mesonValueOptions are meson setup options whose value may be the next word.
var mesonValueOptions = map[string]bool{
	"-D": true, "--prefix": true, "--bindir": true, "--libdir": true, "--includedir": true, "--datadir": true,
	"--libexecdir": true, "--localstatedir": true, "--sysconfdir": true, "--mandir": true, "--infodir": true,
	"--localedir": true, "--sharedstatedir": true, "--sbindir": true, "--buildtype": true, "--backend": true,
	"--default-library": true, "--native-file": true, "--cross-file": true, "--wrap-mode": true, "--warnlevel": true,
	"--optimization": true, "--layout": true, "--unity": true, "--force-fallback-for": true, "--pkg-config-path": true,
	"--cmake-prefix-path": true,
}

// mesonSetupDir is the build directory of a meson setup (or of the old "meson DIR"):
// its first positional word.
func mesonSetupDir(cwd string, args []arg) (string, bool) {
	if len(args) == 0 || !args[0].static {
		return "", false
	}
	rest := args
	switch {
	case args[0].value == "setup":
		rest = args[1:]
	case mesonSubcommands[args[0].value]:
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.static {
			return "", false
		}
		if strings.HasPrefix(a.value, "-") {
			if mesonValueOptions[a.value] {
				i++
			}
			continue
		}
		d, ok := relDir(cwd, a.value, true)
		if !ok || d == "." {
			return "", false // meson refuses the source directory as a build directory
		}
		return d, true
	}
	return "", false
}
