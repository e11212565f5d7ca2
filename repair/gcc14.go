package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/staleobj"
)

// gcc14Diagnostics are the warnings GCC 14 made errors by default for C. Each is
// relaxed back to a warning by its own -Wno-error= flag, the smallest change that
// restores the old behaviour.
var gcc14Diagnostics = []string{"implicit-function-declaration", "implicit-int", "int-conversion",
	"incompatible-pointer-types", "return-mismatch", "declaration-missing-parameter-type"}

var (
	gcc14Tag = re(`\[-W(?:error=)?(` + strings.Join(gcc14Diagnostics, "|") + `)\]`)
	// An old configure whose test programs no longer compile fails before any tag shows.
	configureCompiler = re(`C compiler cannot create executables|C compiler .* not found|error: cannot run C compiled programs`)
	// configCheck and configLogError are a check's first line in config.log and
	// configure's error there.
	configCheck    = regexp.MustCompile(`(?m)^configure:\d+: checking `)
	configLogError = regexp.MustCompile(`(?m)^configure:\d+: error: `)
)

// lastConfigureCheck is the part of config.log from its last check before configure's
// error to that error: the test that failed; "" when config.log records no error.
func lastConfigureCheck(log string) string {
	errs := configLogError.FindAllStringIndex(log, -1)
	if len(errs) == 0 {
		return ""
	}
	end := errs[len(errs)-1][0]
	checks := configCheck.FindAllStringIndex(log[:end], -1)
	if len(checks) == 0 {
		return ""
	}
	return log[checks[len(checks)-1][0]:end]
}

func gcc14Rule() Rule {
	return Rule{
		Name:       "gcc14-permissive",
		Doc:        "GCC 14's new default errors in old C: the smallest -Wno-error= flags (every class once a second one shows) through the build system's own variables (configure's CFLAGS, CMAKE_C_FLAGS, meson's c_args, make's CFLAGS or CC)",
		Categories: nil,
		Signatures: []*regexp.Regexp{gcc14Tag, configureCompiler, configureError},
		Make:       makeGCC14,
	}
}

// gcc14Flags returns the -Wno-error= flags for the GCC 14 diagnostics text reports as
// errors, in the table's order. The same diagnostics as warnings (after the flags took
// effect) do not count.
func gcc14Flags(text string) []string {
	var found []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "error:") && !strings.Contains(line, "[-Werror=") {
			continue
		}
		for _, m := range gcc14Tag.FindAllStringSubmatch(line, -1) {
			if !slices.Contains(found, m[1]) {
				found = append(found, m[1])
			}
		}
	}
	var flags []string
	for _, d := range gcc14Diagnostics {
		if slices.Contains(found, d) {
			flags = append(flags, "-Wno-error="+d)
		}
	}
	return flags
}

func makeGCC14(ctx context.Context, f Failure, env Env) (*Fix, string) {
	flags := gcc14Flags(f.text() + "\n" + f.Message)
	compilerFailed := configureCompiler.MatchString(f.text())
	if len(flags) == 0 && (compilerFailed || configureError.MatchString(f.text())) && env.ReadFile != nil {
		// configure hides the compiler's words in config.log: all of it when the
		// compiler itself failed its checks, else the last check before the error,
		// since a configure's other checks fail on purpose. That check's program may be
		// old C GCC 14 no longer compiles (jnettop 0.13.0's "localhost resolves" calls
		// exit() without <stdlib.h>: "can't figure out gethostbyname_r() since
		// localhost doesn't resolve").
		for _, logFile := range configLogs(f, env) {
			if b, err := env.ReadFile(ctx, logFile); err == nil {
				text := string(b)
				if !compilerFailed {
					text = lastConfigureCheck(text)
				}
				flags = gcc14Flags(text)
				if len(flags) > 0 {
					break
				}
			}
		}
	}
	if env.Plan != nil {
		flags = slices.DeleteFunc(flags, func(fl string) bool { return planHas(*env.Plan, fl) })
		if len(flags) > 0 && relaxedBefore(*env.Plan) {
			// A second class of GCC 14 errors after the first was relaxed: the tree is
			// old C throughout, and the compiler shows one class at a time (a build per
			// class, minutes each under emulation, against an attempt limit of 5). Relax
			// every class the plan does not relax yet in one step.
			flags = nil
			for _, d := range gcc14Diagnostics {
				if fl := "-Wno-error=" + d; !planHas(*env.Plan, fl) {
					flags = append(flags, fl)
				}
			}
		}
	}
	if len(flags) == 0 {
		return nil, "no GCC 14 error in the output or config.log that the plan's flags do not already relax"
	}
	if p, content, ok := djbCompilerFile(ctx, env); ok {
		return djbFlagsFix(p, content, flags, "GCC 14 turned old C warnings into errors (%s restores them as warnings); the sources are not changed.")
	}
	if env.Plan == nil {
		return nil, "no build plan to pass the flags through"
	}
	plan, where, ok := withCFlags(*env.Plan, f.Phase, flags, makefileSetsCFlags(ctx, env))
	if !ok {
		return nil, "no configure, cmake, meson setup or make command in the plan takes C flags"
	}
	return &Fix{
		Analysis: "GCC 14 turned old C warnings into errors (" + strings.Join(flags, " ") + " restores them as warnings); the sources are not changed.",
		Strategy: fmt.Sprintf("pass %s through %s", strings.Join(flags, " "), where),
		Plan:     &plan,
	}, ""
}

// relaxedBefore reports whether the plan already relaxes a GCC 14 error class.
func relaxedBefore(p atesor.BuildPlan) bool {
	return slices.ContainsFunc(gcc14Diagnostics, func(d string) bool { return planHas(p, "-Wno-error="+d) })
}

func planHas(p atesor.BuildPlan, flag string) bool {
	for _, ph := range p.Phases {
		for _, c := range ph.Commands {
			if strings.Contains(c, flag) {
				return true
			}
		}
	}
	return false
}

// configLogs are the config.log files configure may have written: next to the failing
// command's configure, else the top-level one.
func configLogs(f Failure, env Env) []string {
	var out []string
	for _, p := range env.Files {
		if p == "config.log" || strings.HasSuffix(p, "/config.log") {
			out = append(out, p)
		}
	}
	if !slices.Contains(out, "config.log") {
		out = append([]string{"config.log"}, out...)
	}
	return out
}

var (
	configureWord = re(`(^|&&\s*|;\s*|\s)(\./configure|\.\./configure|\S+/configure)(\s|$)`)
	cmakeConfig   = re(`(^|&&\s*|;\s*)(cmake)(\s+(?:-S|-B|-G|-D|\.))`)
	makeWord      = re(`(^|&&\s*|;\s*)(make)(\s|$)`)
	cflagsArg     = re(`\bCFLAGS=(?:'([^']*)'|"([^"]*)"|(\S*))`)
	ccArg         = re(`\bCC=(?:'([^']*)'|"([^"]*)"|(\S*))`)
	makeCFlags    = re(`(?m)^\s*CFLAGS\s*:{0,2}=`)
	makeCXXFlags  = re(`(?m)^\s*CXXFLAGS\s*:{0,2}=`)
	cxxArg        = re(`\bCXX=(?:'([^']*)'|"([^"]*)"|(\S*))`)
	cmakeCFlags   = re(`-DCMAKE_C_FLAGS(?::STRING)?=(?:'([^']*)'|"([^"]*)"|(\S*))`)
)

// withCFlags returns the plan with flags added through the build system's variables in
// the first phase, from the failing one back, that configures the build: configure gets
// CFLAGS (keeping autoconf's default -g -O2), cmake gets CMAKE_C_FLAGS, meson setup gets
// its c_args option, and a plain make gets CFLAGS in its environment (which a
// Makefile's += and ?= keep), or, when the Makefile sets CFLAGS outright (setsCFlags),
// the flags with the compiler in CC.
func withCFlags(plan atesor.BuildPlan, failedPhase string, flags []string, setsCFlags bool) (atesor.BuildPlan, string, bool) {
	add := strings.Join(flags, " ")
	return editPlan(plan, failedPhase, []planEdit{
		// In configure's environment, not as an argument: configure scripts of
		// autoconf 2.13 and older, the ones GCC 14 breaks most, ignore VAR=value
		// arguments; every configure reads CFLAGS from the environment.
		{where: "CFLAGS at configure time", do: func(line string) (string, bool) {
			return editWord(line, configureWord, func(word string) string {
				return "CFLAGS=" + shellQuote("-g -O2 "+add) + " " + word
			}, cflagsArg, add)
		}},
		{where: "CMAKE_C_FLAGS", do: func(line string) (string, bool) {
			return editWord(line, cmakeConfig, func(word string) string {
				return word + " -DCMAKE_C_FLAGS=" + shellQuote(add)
			}, cmakeCFlags, add)
		}},
		// meson reads CFLAGS from the environment only when it configures a build
		// directory, and keeps the value in it: -Dc_args on the setup line is the
		// option a changed plan line carries (the rebuild drops the directory's
		// coredata.dat when a setup line changes, see internal/staleobj, so the
		// plan's own meson setup configures afresh with it, as a replay does).
		mesonCArgsEdit(add),
		makeFlagsEdit("C", add, setsCFlags),
	})
}

// mesonCArgsEdit is the edit that passes C flags to meson setup as -Dc_args, into the
// value when the line already sets the option: meson keeps only the last -D of an
// option, so a second -Dc_args would drop the first's flags.
func mesonCArgsEdit(add string) planEdit {
	return planEdit{where: "meson's -Dc_args", do: func(line string) (string, bool) {
		return editWord(line, mesonSetupCmd, func(word string) string {
			return word + " -Dc_args=" + shellQuote(add)
		}, mesonLinkArgs("-Dc_args"), add)
	}}
}

// makeFlagsEdit is the edit that passes flags for lang (C or CXX) to a plain make:
// CFLAGS or CXXFLAGS in its environment (which a Makefile's += and ?= keep), or, when
// the Makefile sets the variable outright (setsFlags), the flags with the compiler in
// CC or CXX on make's command line.
func makeFlagsEdit(lang, add string, setsFlags bool) planEdit {
	flagsVar, flagsArg, compVar, compArg, comp := "CFLAGS", cflagsArg, "CC", ccArg, "cc"
	if lang == "CXX" {
		flagsVar, flagsArg, compVar, compArg, comp = "CXXFLAGS", cxxflagsArg, "CXX", cxxArg, "c++"
	}
	where := flagsVar + " in make's environment"
	if setsFlags {
		where = compVar + " on make's command line (the makefile sets " + flagsVar + ")"
	}
	return planEdit{where: where, do: func(line string) (string, bool) {
		if strings.Contains(line, "configure") || strings.Contains(line, "cmake") {
			return line, false
		}
		if setsFlags {
			return editWord(line, makeWord, func(word string) string {
				return word + " " + compVar + "=" + shellQuote(comp+" "+add)
			}, compArg, add)
		}
		return editWord(line, makeWord, func(word string) string {
			return flagsVar + "=" + shellQuote("-g -O2 "+add) + " " + word
		}, flagsArg, add)
	}}
}

// planEdit is one way to change a plan's command lines: do edits one line, or says it
// does not apply; where names the way in the fix's strategy.
type planEdit struct {
	where string
	all   bool // edit every phase that has the command, not only the last before the failure
	do    func(string) (string, bool)
}

// editPlan applies the first of edits that changes a command line, searching back from
// the failed phase (the last phase when it is not named): the plan with the edit, and
// the edit's where.
func editPlan(plan atesor.BuildPlan, failedPhase string, edits []planEdit) (atesor.BuildPlan, string, bool) {
	phases := slices.Clone(plan.Phases)
	end := phaseEnd(plan, failedPhase)
	for _, e := range edits {
		edited := false
		start := end
		if e.all {
			start = len(phases) - 1
		}
		for i := start; i >= 0; i-- {
			cmds := slices.Clone(phases[i].Commands)
			changed := false
			for j, c := range cmds {
				if n, ok := e.do(c); ok {
					cmds[j], changed = n, true
				}
			}
			if changed {
				phases[i].Commands, edited = cmds, true
				if !e.all {
					break
				}
			}
		}
		if edited {
			plan.Phases = phases
			return plan, e.where, true
		}
	}
	return plan, "", false
}

// editWord inserts at the first match of word, or, when the line already sets the
// variable (existing), appends add inside its value.
func editWord(line string, word *regexp.Regexp, insert func(string) string, existing *regexp.Regexp, add string) (string, bool) {
	loc := word.FindStringSubmatchIndex(line)
	if loc == nil {
		return line, false
	}
	if m := existing.FindStringSubmatchIndex(line); m != nil {
		for g := 2; g <= 6; g += 2 {
			if m[g] >= 0 {
				val := strings.TrimSpace(line[m[g]:m[g+1]] + " " + add)
				name := line[m[0] : strings.IndexByte(line[m[0]:], '=')+m[0]+1]
				return line[:m[0]] + name + shellQuote(val) + line[m[1]:], true
			}
		}
	}
	start, stop := loc[4], loc[5]
	return line[:start] + insert(line[start:stop]) + line[stop:], true
}

// shellQuote quotes a value for a plan line.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// makefileSetsCFlags reports whether the top-level Makefile assigns CFLAGS with = or :=,
// which overrides CFLAGS from the environment.
func makefileSetsCFlags(ctx context.Context, env Env) bool {
	return makefileSetsFlags(ctx, env, "C")
}

// makefileSetsFlags reports whether a makefile the plan's make commands read assigns
// lang's flags (CFLAGS for C, CXXFLAGS for CXX) with = or :=, which overrides them
// from the environment (the makefiles are plannedMakefiles').
func makefileSetsFlags(ctx context.Context, env Env, lang string) bool {
	assigns := makeCFlags
	if lang == "CXX" {
		assigns = makeCXXFlags
	}
	return slices.ContainsFunc(plannedMakefiles(ctx, env), assigns.Match)
}

// plannedMakefiles returns the contents of the makefiles the plan's make commands read
// (each followed by the files it includes, see [withIncludes]):
// the one -f names (boxshade's make -f makefile.unx), in the directory cd or -C names
// (make -C src -f Makefile.linux), else the first of GNUmakefile, makefile and Makefile
// there; a plan with no make command is read as one that runs make at the top level.
func plannedMakefiles(ctx context.Context, env Env) [][]byte {
	if env.ReadFile == nil {
		return nil
	}
	var runs []staleobj.MakeRun
	if env.Plan != nil {
		runs = staleobj.MakeRuns(*env.Plan, env.RepoDir)
	}
	if len(runs) == 0 {
		runs = []staleobj.MakeRun{{Dir: "."}}
	}
	var out [][]byte
	for _, mk := range runs {
		names := makeDefaultFiles
		if mk.Makefile != "" {
			names = []string{mk.Makefile}
		}
		for _, name := range names {
			if b, err := env.ReadFile(ctx, path.Join(mk.Dir, name)); err == nil {
				out = append(out, withIncludes(ctx, env.ReadFile, mk.Dir, b)...)
				break
			}
		}
	}
	return out
}
