package repair

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// riscv64 has atomic instructions for 4- and 8-byte words only. GCC 14 expands 1- and
// 2-byte atomics inline (masked LR/SC loops), but a 16-byte atomic (__int128, a
// pointer-and-counter pair, std::atomic of a two-word struct) and the generic
// __atomic_load/__atomic_store of a larger object become calls into libatomic, as do
// sub-word atomics from older compilers or with -mno-inline-atomics. The compiler driver
// does not link libatomic by default, so the link fails with an undefined __atomic_*
// symbol; x86-64 and arm64 have the instructions and never need it, which is why build
// files written there do not say -latomic.

// atomicLibcall is an undefined __atomic_* libcall as GNU ld ("undefined reference to
// `__atomic_load_16'"), gold ("undefined reference to '__atomic_load_16'"), lld and
// mold ("undefined symbol: __atomic_load_16") and the dynamic loader ("symbol lookup
// error: ...: undefined symbol: __atomic_load_16") report it. Names starting with
// __atomic_ are reserved for the compiler's libcalls.
var atomicLibcall = re("(?:undefined reference to|undefined symbol:?)\\s*[`'‘\"]?(__atomic_[A-Za-z0-9_]+)")

// libatomic is the flag that links it, for variables whose value goes after the
// objects on a link line (LIBS, LDLIBS).
const libatomic = "-latomic"

// linkFlags are the flags that link the library lib (its name without lib and .so):
// plain for variables whose value goes after the objects on a link line (LIBS,
// LDLIBS), wrapped for variables whose value goes before them (linker flags): Debian's
// GCC links with --as-needed, which drops a library named before anything needs it, so
// the library is named with --no-as-needed for itself alone. Both forms contain plain.
func linkFlags(lib string) (plain, wrapped string) {
	plain = "-l" + lib
	return plain, "-Wl,--push-state,--no-as-needed," + plain + ",--pop-state"
}

func atomicsRule() Rule {
	return Rule{
		Name: "libatomic",
		Doc: "undefined __atomic_* libcalls (16-byte and generic atomics, sub-word atomics of older compilers): link libatomic " +
			"through the build system's own variables (LIBS at configure time, CMAKE_*_LINKER_FLAGS, meson's link_args, CGO_LDFLAGS, make's LDLIBS)",
		Signatures: []*regexp.Regexp{atomicLibcall},
		Make:       makeAtomics,
	}
}

// AtomicLibcalls returns the undefined __atomic_* symbols a build output names, first
// mention first, each once.
func AtomicLibcalls(text string) []string {
	var out []string
	for _, m := range atomicLibcall.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func makeAtomics(ctx context.Context, f Failure, env Env) (*Fix, string) {
	calls := AtomicLibcalls(f.text() + "\n" + f.Message)
	if len(calls) == 0 {
		return nil, "no undefined __atomic_* symbol in the output"
	}
	if env.Plan == nil {
		return nil, "no build plan to pass -latomic through"
	}
	if planHas(*env.Plan, libatomic) {
		return nil, "the plan already links libatomic (" + strings.Join(calls, ", ") + " is still undefined)"
	}
	plan, where, ok := withLinkLib(*env.Plan, f.Phase, linkContext(ctx, f, env), "atomic")
	if !ok {
		return nil, "no configure, cmake, meson, go or make command in the plan takes linker flags"
	}
	return &Fix{
		Analysis: "The link needs libatomic for " + strings.Join(firstFew(calls), ", ") + ": riscv64 has no instructions for these atomics, " +
			"so the compiler calls libatomic, which it does not link by default; the sources are not changed.",
		Strategy: "link libatomic (" + libatomic + ") through " + where,
		Plan:     &plan,
	}, ""
}

// linkEnv is what the rule knows of the tree to choose its variables.
type linkEnv struct {
	// cpp says the meson project declares C++.
	cpp bool
	// makeVar is the variable make's link lines read (LDLIBS, LIBS or LDFLAGS), and
	// makeValue the Makefile's own value when it assigns the variable outright (which
	// the environment cannot add to, so the command line sets it with -latomic added).
	makeVar, makeValue string
	makeAssigns        bool
	// cgo says the failing link was cgo's (go build's external link), which reads
	// CGO_LDFLAGS, not make's variables.
	cgo bool
	// customConfigure says the tree's configure is no autoconf script (netkit's
	// confgen sets LIBS= itself and writes it to MCONFIG), so LIBS in its environment
	// is lost: make's command line carries the library instead.
	customConfigure bool
}

var (
	// cgoLink is the go command's external link: its temporary directory and cgo's
	// generated objects name it.
	cgoLink       = re(`/go-link-\d+/|\$WORK/b\d+/_x\d+\.o|_cgo_[a-z_]+\.o|runtime/cgo`)
	mesonCpp      = re(`(?s)\bproject\s*\(.*?['"]cpp['"]|add_languages\s*\([^)]*['"]cpp['"]`)
	makeReference = func(name string) *regexp.Regexp { return re(`\$[({]` + name + `[)}]`) }
	makeAssign    = func(name string) *regexp.Regexp {
		return re(`(?m)^[ \t]*(?:override[ \t]+)?` + name + `[ \t]*(?::{1,2}|!)?=[ \t]*(.*)$`)
	}
)

// linkContext reads the build files the choice of variables depends on.
func linkContext(ctx context.Context, f Failure, env Env) linkEnv {
	le := linkEnv{makeVar: "LDLIBS", cgo: cgoLink.MatchString(f.text())}
	if env.ReadFile == nil {
		return le
	}
	if b, err := env.ReadFile(ctx, "meson.build"); err == nil {
		le.cpp = mesonCpp.Match(b)
	}
	if b, err := env.ReadFile(ctx, "configure"); err == nil && !autoconfScript.Match(b[:min(len(b), 8192)]) {
		le.customConfigure = true
	}
	for _, name := range makefileNames(env.Files) {
		b, err := env.ReadFile(ctx, name)
		if err != nil {
			continue
		}
		if makeVarOf(ctx, env, name, b, &le) {
			break
		}
	}
	return le
}

// autoconfScript is the head of a configure script autoconf generated.
var autoconfScript = re(`Generated by GNU Autoconf`)

// makeInclude is a Makefile's include of another file (netkit's include ../MCONFIG,
// which its configure writes).
var makeInclude = re(`(?m)^-?include[ \t]+([A-Za-z0-9_./-]+)[ \t]*$`)

// maxLinkMakefiles bounds the subdirectory Makefiles read for the link variable.
const maxLinkMakefiles = 16

// makefileNames are the top-level Makefile's names, then the Makefiles one directory
// down (a top-level Makefile that only recurses into its subdirectories links
// nothing itself).
func makefileNames(files []string) []string {
	out := slices.Clone(makeDefaultFiles)
	for _, f := range files {
		if len(out) >= 3+maxLinkMakefiles {
			break
		}
		if d, base := path.Split(f); base == "Makefile" && d != "" && !strings.Contains(strings.TrimSuffix(d, "/"), "/") {
			out = append(out, f)
		}
	}
	return out
}

// makeVarOf sets le's make variable from the first of LDLIBS, LIBS and LDFLAGS that the
// Makefile b (the tree's file name) references, with the value it or a file it
// includes assigns; false when it references none.
func makeVarOf(ctx context.Context, env Env, name string, b []byte, le *linkEnv) bool {
	for _, v := range []string{"LDLIBS", "LIBS", "LDFLAGS"} {
		if !makeReference(v).Match(b) {
			continue
		}
		le.makeVar = v
		ms := makeAssign(v).FindAllSubmatch(b, -1)
		if len(ms) == 0 {
			for _, inc := range makeInclude.FindAllSubmatch(b, 4) {
				rel := path.Join(path.Dir(name), string(inc[1]))
				if ib, err := env.ReadFile(ctx, rel); err == nil && !strings.HasPrefix(rel, "..") {
					if ms = makeAssign(v).FindAllSubmatch(ib, -1); len(ms) > 0 {
						break
					}
				}
			}
		}
		if len(ms) > 0 {
			last := strings.TrimSpace(string(ms[len(ms)-1][1]))
			if strings.HasSuffix(last, `\`) {
				// A value continued over lines is not one the rule rewrites: try the
				// next variable.
				le.makeVar = "LDLIBS"
				continue
			}
			le.makeAssigns, le.makeValue = true, last
		}
		return true
	}
	return false
}

var (
	libsArg    = re(`\bLIBS=(?:'([^']*)'|"([^"]*)"|(\S*))`)
	cgoLDFlags = re(`\bCGO_LDFLAGS=(?:'([^']*)'|"([^"]*)"|(\S*))`)
	// mesonSetupCmd is meson setup alone: mesonSetup also takes the bare "meson DIR"
	// of old meson, which cannot be told from "meson compile" without the next word.
	mesonSetupCmd = re(`(^|&&\s*|;\s*)(meson\s+setup)(\s)`)
	// makeCommand is make run as a command: at the start, after && ; || or after the
	// environment assignments of the same command.
	makeCommand = re(`(^|&&\s*|;\s*|\|\|\s*|(?:^|\s)[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)(make)(\s|$)`)
	goLinkWord  = re(`(^|&&\s*|;\s*|\|\|\s*|\s)(go)(\s+(?:build|test|install|run|vet)(?:\s|$))`)
	cmakeLinker = []string{"CMAKE_EXE_LINKER_FLAGS", "CMAKE_SHARED_LINKER_FLAGS", "CMAKE_MODULE_LINKER_FLAGS"}
)

// withLinkLib returns the plan with the library lib (libatomic: "atomic") linked
// through the build system's own variables, in the first phase from the failing one
// back that has the command: LIBS in configure's environment (after the objects on
// every link line, where a library belongs), cmake's CMAKE_{EXE,SHARED,MODULE}_LINKER_FLAGS
// (a changed configure line reconfigures), meson setup's c_link_args (and cpp_link_args
// for C++), CGO_LDFLAGS on every go command, and for a plain make the variable its link
// lines read. Linker flags get the wrapped form of [linkFlags], which --as-needed keeps
// wherever it stands.
func withLinkLib(plan atesor.BuildPlan, failedPhase string, le linkEnv, lib string) (atesor.BuildPlan, string, bool) {
	plain, wrapped := linkFlags(lib)
	mesonWhere := "meson's -Dc_link_args"
	if le.cpp {
		mesonWhere = "meson's -Dc_link_args and -Dcpp_link_args"
	}
	makeWhere := le.makeVar + " in make's environment"
	if le.cgo {
		makeWhere = "CGO_LDFLAGS in make's environment"
	} else if le.makeAssigns {
		makeWhere = le.makeVar + " on make's command line (the Makefile's value with " + plain + " added)"
	}
	return editPlan(plan, failedPhase, []planEdit{
		{where: "LIBS at configure time", do: func(line string) (string, bool) {
			if le.customConfigure {
				return line, false
			}
			return editWord(line, configureWord, func(word string) string { return "LIBS=" + plain + " " + word }, libsArg, plain)
		}},
		{where: strings.Join(cmakeLinker, ", ") + " (reconfigured)", do: func(line string) (string, bool) { return cmakeLinkFlags(line, wrapped) }},
		{where: mesonWhere, do: func(line string) (string, bool) {
			if !mesonSetupCmd.MatchString(line) {
				return line, false
			}
			// A link_args option the line already sets (libatomic's, then another
			// library's) takes the flag into its value: meson keeps the last -D of an
			// option, so a second one would drop the first's library.
			langs := []string{"c"}
			if le.cpp {
				langs = []string{"cpp", "c"} // each inserts right after meson setup: c ends up first
			}
			for _, lang := range langs {
				opt := "-D" + lang + "_link_args"
				line, _ = editWord(line, mesonSetupCmd, func(word string) string { return word + " " + opt + "=" + wrapped }, mesonLinkArgs(opt), wrapped)
			}
			return line, true
		}},
		{where: "CGO_LDFLAGS", all: true, do: func(line string) (string, bool) {
			return editAll(line, goLinkWord, func(word string) string {
				return "CGO_LDFLAGS=" + shellQuote("-g -O2 "+wrapped) + " " + word
			}, cgoLDFlags, wrapped)
		}},
		{where: makeWhere, do: func(line string) (string, bool) {
			if (strings.Contains(line, "configure") && !le.customConfigure) || strings.Contains(line, "cmake") || strings.Contains(line, "meson") {
				return line, false
			}
			if le.cgo {
				// A Makefile that runs go build: cgo's link reads CGO_LDFLAGS.
				return editWord(line, makeCommand, func(word string) string {
					return "CGO_LDFLAGS=" + shellQuote("-g -O2 "+wrapped) + " " + word
				}, cgoLDFlags, wrapped)
			}
			existing := re(`\b` + le.makeVar + `=(?:'([^']*)'|"([^"]*)"|(\S*))`)
			flag := plain
			if le.makeVar == "LDFLAGS" {
				flag = wrapped
			}
			if le.makeAssigns {
				val := strings.TrimSpace(le.makeValue + " " + flag)
				return editWord(line, makeCommand, func(word string) string { return word + " " + le.makeVar + "=" + shellQuote(val) }, existing, flag)
			}
			return editWord(line, makeCommand, func(word string) string { return le.makeVar + "=" + flag + " " + word }, existing, flag)
		}},
	})
}

// mesonLinkArgs matches a meson setup line's -Dc_link_args= (or -Dcpp_link_args=) and
// its value, as editWord's existing takes it.
func mesonLinkArgs(opt string) *regexp.Regexp {
	return re(`(?:^|\s)` + regexp.QuoteMeta(opt) + `=(?:'([^']*)'|"([^"]*)"|(\S*))`)
}

// cmakeLinkFlags adds flag (a wrapped -lNAME) to the linker flags of a cmake configure
// line, into a value the line already sets or as new -D definitions.
func cmakeLinkFlags(line, flag string) (string, bool) {
	if !cmakeConfig.MatchString(line) {
		return line, false
	}
	for _, name := range slices.Backward(cmakeLinker) {
		existing := re(`-D` + name + `(?::STRING)?=(?:'([^']*)'|"([^"]*)"|(\S*))`)
		line, _ = editWord(line, cmakeConfig, func(word string) string {
			return word + " -D" + name + "=" + flag
		}, existing, flag)
	}
	return line, true
}

// editAll is editWord at every match of word on the line (a line may run several go
// commands): a command that already sets the variable gets add inside its value.
func editAll(line string, word *regexp.Regexp, insert func(string) string, existing *regexp.Regexp, add string) (string, bool) {
	if !word.MatchString(line) {
		return line, false
	}
	if existing.MatchString(line) {
		return editWord(line, word, insert, existing, add)
	}
	return word.ReplaceAllStringFunc(line, func(m string) string {
		sub := word.FindStringSubmatch(m)
		return sub[1] + insert(sub[2]) + sub[3]
	}), true
}
