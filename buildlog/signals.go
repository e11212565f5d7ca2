package buildlog

import (
	"path"
	"regexp"
	"strings"
)

// Strength ranks what a log line says about a failure. A higher strength always wins
// over a lower one, wherever the lines stand in the log.
type Strength int

// The strengths, weakest first.
const (
	// None: the line says nothing about the failure.
	None Strength = iota
	// Weak: a hint a porter reads last ("not found", "warning:", "checking for ... no").
	Weak
	// Summary: a tool reporting that something failed without saying what
	// ("make: *** [all] Error 2", ninja's "FAILED:", "could not compile").
	Summary
	// Medium: an error message of no known tool ("Error: ...", a Python exception).
	Medium
	// Strong: a diagnostic of a known tool (compiler, linker, shell, configure, CMake,
	// meson, go, cargo, make's own errors).
	Strong
)

// String names the strength.
func (s Strength) String() string {
	switch s {
	case Weak:
		return "weak"
	case Summary:
		return "summary"
	case Medium:
		return "medium"
	case Strong:
		return "strong"
	}
	return "none"
}

// Kind names the tool or kind of a diagnostic.
type Kind string

// The kinds of diagnostic.
const (
	KindCompiler       Kind = "compiler"        // a compiler or assembler error at file:line, or the driver's own error
	KindLinker         Kind = "linker"          // undefined reference, cannot find -l, multiple definition
	KindMissingProgram Kind = "missing_program" // the shell or make could not run a program
	KindConfigure      Kind = "configure"       // configure: error:
	KindCMake          Kind = "cmake"           // CMake Error
	KindMeson          Kind = "meson"           // meson's ERROR:
	KindGo             Kind = "go"              // the go command or the Go compiler
	KindCargo          Kind = "cargo"           // cargo or rustc error blocks
	KindMake           Kind = "make"            // make's own errors and failure lines
	KindNinja          Kind = "ninja"           // ninja's errors and FAILED: lines
	KindPkgConfig      Kind = "pkg_config"      // pkg-config could not find a module
	KindEmulator       Kind = "emulator"        // qemu reported a signal of the target program
	KindError          Kind = "error"           // an error message of another tool
	KindHint           Kind = "hint"            // a weak signal
	KindTail           Kind = "tail"            // no signal at all: the end of the output
)

// signal is what one line says.
type signal struct {
	strength Strength
	kind     Kind
	file     string // the source file a compiler diagnostic is about
	target   string // the target a make or ninja failure line names
	ignored  bool   // make ignored this failure ("Error 1 (ignored)")
}

var (
	ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

	// gcc, clang and the Go compiler: file:line[:col]: [fatal ]error: text; gas: file:line: Error: text.
	fileDiag = regexp.MustCompile(`^([^\s:][^:]*?):(\d+)(?::\d+)?: (?:(?:fatal |internal compiler )?error|Error): `)
	goDiag   = regexp.MustCompile(`^(\S+\.go):\d+(?::\d+)?: \S`)
	// a program's own error: "gcc: error: ...", "cc1: error: ...", "libtool:   error: ...".
	progError = regexp.MustCompile(`^(\S+?):\s+(?:fatal |internal compiler )?error: `)
	bareError = regexp.MustCompile(`^error(\[E\d+\])?: `)

	linkerDiag    = regexp.MustCompile(`undefined reference to |\bcannot find -l\S+|\bld(?:\.bfd|\.gold|\.lld)?: cannot find |multiple definition of |relocation truncated to fit|undefined symbol: |error adding symbols|hidden symbol .* is referenced by DSO|DSO missing from command line`)
	linkerSummary = regexp.MustCompile(`(?:collect2|clang(?:-\d+)?): error: (?:ld|linker command) (?:returned \d+ exit status|failed)|\bld returned \d+ exit status`)

	shellMissing = regexp.MustCompile(`^(?:\S*/)?(?:ba|da|z)?sh: (?:line )?\d+: (\S+): (?:command )?not found|^\S+: line \d+: (\S+): (?:command not found|No such file or directory)|^(?:\S*/)?env: ['‘]?([^'’:]+)['’]?: No such file or directory|exec: "([^"]+)": executable file not found`)
	makeMissing  = regexp.MustCompile(`^g?make(?:\[\d+\])?: (\S+): (?:Command not found|No such file or directory)$`)

	makeFailed  = regexp.MustCompile(`^g?make(?:\[\d+\])?: (?:\*\*\* )?(?:\[(.+?)\]|(\S+)) (?:Error \d+|Segmentation fault|Killed|Illegal instruction|Terminated|Aborted)(.*)$`)
	makeStop    = regexp.MustCompile(`^(?:g?make(?:\[\d+\])?: |\S+:\d+: )\*\*\* .*(?:Stop\.|stop\.)\s*$`)
	makeWaiting = regexp.MustCompile(`^g?make(?:\[\d+\])?: \*\*\* Waiting for unfinished jobs`)

	ninjaFailed = regexp.MustCompile(`^FAILED: (.*)$`)
	ninjaError  = regexp.MustCompile(`^ninja: error: `)
	ninjaStep   = regexp.MustCompile(`^\[\d+/\d+\] `)

	cmakeError     = regexp.MustCompile(`^CMake Error(?: at ([^:]+:\d+ \([^)]*\)))?:\s*(.*)$`)
	configureError = regexp.MustCompile(`^(?:\S*/)?(?:configure|config\.status): error: (.*)$`)
	mesonError     = regexp.MustCompile(`^(?:\S+\.build:\d+:\d+: )?ERROR: `)
	pkgConfigError = regexp.MustCompile(`^Package \S+ was not found in the pkg-config search path|^No package '[^']+' found`)
	goCmdError     = regexp.MustCompile(`^go: (\S+)`)
	goNoise        = map[string]bool{"downloading": true, "finding": true, "extracting": true, "found": true, "added": true, "upgraded": true, "creating": true, "to": true, "warning:": true}
	goStrong       = regexp.MustCompile(`build constraints exclude all Go files|cannot find (?:main )?module|verifying \S+: checksum mismatch|missing go\.sum entry|no required module provides package|^package \S+ is not in std|^-[a-z][\w=-]* (?:is )?not supported on [a-z0-9]+/[a-z0-9]+$`)
	cargoSummary   = regexp.MustCompile(`^error: (?:could not compile|aborting due to|build failed|failed to run custom build command)`)
	qemuSignal     = regexp.MustCompile(`^qemu: uncaught target signal`)
	diskFull       = regexp.MustCompile(`(?i)no space left on device`)

	mediumError = regexp.MustCompile(`^(?:Error|ERROR|FATAL|Fatal error|fatal)(?: \w+)?: |^\w+(?:\.\w+)*(?:Error|Exception): |^Traceback \(most recent call last\)|\berror: |: No such file or directory$|Permission denied`)
	weakHint    = regexp.MustCompile(`(?i)not found|warning:|^checking .*\.\.\. no$|\.\.\. no$|could not find|\bfailed\b|\berror\b|\bcannot\b|\bunable to\b|\bmissing\b|doxygen|sphinx|not generating|not building`)

	// lines that never carry a diagnostic although they match weak words: compiler and
	// libtool command lines, cmake and configure status, make's directory notes.
	commandLine = regexp.MustCompile(`^\s*(?:libtool: (?:compile|link): +|/bin/(?:ba)?sh \S*libtool |\S*ccache +)?(?:\S*/)?(?:[\w.-]+-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cpp|ld|ar|ranlib|as|go|rustc|cargo)(?:-\d+(?:\.\d+)*)? +-`)
	makeDir     = regexp.MustCompile(`^g?make(?:\[\d+\])?: (?:Entering|Leaving) directory|^g?make(?:\[\d+\])?: Nothing to be done|^g?make(?:\[\d+\])?: '[^']*' is up to date`)
	cmakeStatus = regexp.MustCompile(`^-- `)
	checkingOK  = regexp.MustCompile(`^checking .*\.\.\. (?:yes|none needed|no \(cached\) yes|\S+/\S+|\S+ \S+|[0-9].*)$`)

	includeChain = regexp.MustCompile(`^In file included from |^\s+from \S+:\d+[,:]$`)
	inFunction   = regexp.MustCompile(`^\S+: (?:In (?:function|member function|constructor|destructor|instantiation|lambda|static member function)|At (?:top level|global scope)|In substitution)|: in function ['‘\x60]`)
	chainRoot    = regexp.MustCompile(`(?:^In file included from |^\s+from )(\S+?):\d+[,:]$`)
)

// classify says what one cleaned line says about a failure.
func classify(l string) signal {
	t := strings.TrimSpace(l)
	if t == "" {
		return signal{}
	}
	if m := makeFailed.FindStringSubmatch(t); m != nil {
		target := m[1]
		if target == "" {
			target = m[2]
		}
		// GNU make 4 prints "[Makefile:12: target]"; older makes print "[target]".
		if i := strings.LastIndex(target, ": "); i >= 0 {
			target = target[i+2:]
		}
		return signal{strength: Summary, kind: KindMake, target: target, ignored: strings.Contains(m[3], "(ignored)")}
	}
	if makeWaiting.MatchString(t) || makeDir.MatchString(t) {
		return signal{}
	}
	if makeStop.MatchString(t) {
		return signal{strength: Strong, kind: KindMake}
	}
	if m := makeMissing.FindStringSubmatch(t); m != nil {
		return signal{strength: Strong, kind: KindMissingProgram, file: m[1]}
	}
	if m := ninjaFailed.FindStringSubmatch(t); m != nil {
		return signal{strength: Summary, kind: KindNinja, target: firstTarget(m[1])}
	}
	if strings.HasPrefix(t, "ninja: build stopped") {
		return signal{strength: Summary, kind: KindNinja}
	}
	if ninjaError.MatchString(t) {
		return signal{strength: Strong, kind: KindNinja}
	}
	if cmakeError.MatchString(t) {
		return signal{strength: Strong, kind: KindCMake}
	}
	if strings.HasPrefix(t, "-- Configuring incomplete") || strings.HasPrefix(t, "-- Build files have not been written") {
		return signal{strength: Summary, kind: KindCMake}
	}
	if strings.HasPrefix(t, "CMake Warning") || strings.HasPrefix(t, "CMake Deprecation Warning") {
		return signal{strength: Weak, kind: KindHint}
	}
	if m := configureError.FindStringSubmatch(t); m != nil {
		if strings.HasPrefix(m[1], "in `") || strings.HasPrefix(m[1], "in '") {
			return signal{strength: Summary, kind: KindConfigure} // "configure: error: in `/dir':" heads the real one
		}
		return signal{strength: Strong, kind: KindConfigure}
	}
	if cmakeStatus.MatchString(t) || checkingOK.MatchString(t) || commandLine.MatchString(l) {
		if weakHint.MatchString(t) && !commandLine.MatchString(l) {
			return signal{strength: Weak, kind: KindHint}
		}
		return signal{}
	}
	if diskFull.MatchString(t) {
		return signal{strength: Strong, kind: KindError}
	}
	if strings.HasPrefix(t, "E: ") || strings.HasPrefix(t, "dpkg: error") {
		return signal{strength: Strong, kind: KindError} // apt-get and dpkg
	}
	if qemuSignal.MatchString(t) {
		return signal{strength: Strong, kind: KindEmulator}
	}
	if linkerSummary.MatchString(t) {
		return signal{strength: Summary, kind: KindLinker}
	}
	if linkerDiag.MatchString(t) {
		return signal{strength: Strong, kind: KindLinker}
	}
	if m := fileDiag.FindStringSubmatch(t); m != nil {
		return signal{strength: Strong, kind: KindCompiler, file: m[1]}
	}
	if m := goDiag.FindStringSubmatch(t); m != nil && !strings.Contains(t, "warning:") {
		return signal{strength: Strong, kind: KindGo, file: m[1]}
	}
	if m := shellMissing.FindStringSubmatch(t); m != nil {
		return signal{strength: Strong, kind: KindMissingProgram, file: firstNonEmpty(m[1:]...)}
	}
	if mesonError.MatchString(t) {
		return signal{strength: Strong, kind: KindMeson}
	}
	if pkgConfigError.MatchString(t) {
		return signal{strength: Strong, kind: KindPkgConfig}
	}
	if m := goCmdError.FindStringSubmatch(t); m != nil {
		if goNoise[m[1]] {
			return signal{}
		}
		return signal{strength: Strong, kind: KindGo}
	}
	if goStrong.MatchString(t) {
		return signal{strength: Strong, kind: KindGo}
	}
	if cargoSummary.MatchString(t) {
		return signal{strength: Summary, kind: KindCargo}
	}
	if m := bareError.FindStringSubmatch(t); m != nil {
		if m[1] != "" {
			return signal{strength: Strong, kind: KindCargo}
		}
		return signal{strength: Strong, kind: KindError}
	}
	if m := progError.FindStringSubmatch(t); m != nil && (!strings.Contains(m[1], "/") || compilerName(m[1])) {
		return signal{strength: Strong, kind: KindCompiler}
	}
	if mediumError.MatchString(t) {
		return signal{strength: Medium, kind: KindError}
	}
	if weakHint.MatchString(t) {
		return signal{strength: Weak, kind: KindHint}
	}
	return signal{}
}

var compilerBase = regexp.MustCompile(`^(?:[\w.-]+-)?(?:gcc|g\+\+|cc|c\+\+|cc1|cc1plus|clang|clang\+\+|cpp|as|ld|collect2|lto1|libtool)(?:-\d+(?:\.\d+)*)?$`)

// compilerName reports whether a program path names a compiler or binutils tool.
func compilerName(p string) bool {
	return compilerBase.MatchString(path.Base(p))
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// firstTarget is the first output of a ninja FAILED: line ("FAILED: a.o b.o" or, from
// newer ninja, "FAILED: [code=1] a.o").
func firstTarget(s string) string {
	for _, f := range strings.Fields(s) {
		if !strings.HasPrefix(f, "[code=") {
			return f
		}
	}
	return ""
}

// stem is a file or target name without directories and extensions, and without the
// per-target prefixes of automake ("libfoo_la-bar.lo") and the suffix stacking of CMake
// ("bar.c.o"), so that a target and its source compare equal.
func stem(p string) string {
	b := path.Base(strings.ReplaceAll(p, `\`, "/"))
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	if i := strings.LastIndex(b, "-"); i > 0 && (strings.Contains(b[:i], "_la") || strings.Contains(b[:i], "_a")) {
		b = b[i+1:]
	}
	return b
}

// objectTarget reports whether a make or ninja target is an object file, which only a
// compiler makes, rather than a program or library, which the linker makes.
func objectTarget(t string) bool {
	for _, ext := range []string{".o", ".lo", ".obj", ".s", ".i"} {
		if strings.HasSuffix(t, ext) {
			return true
		}
	}
	return false
}
