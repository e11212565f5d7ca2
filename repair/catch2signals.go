package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Catch2 2's single header catch.hpp, which many projects vendor for their tests, gives
// its fatal-signal handler an alternate stack sized at compile time: before 2.13.5
// `char FatalConditionHandler::altStackMem[SIGSTKSZ]`, later `static constexpr
// std::size_t sigStackSize = 32768 >= MINSIGSTKSZ ? 32768 : MINSIGSTKSZ`. glibc 2.34
// made SIGSTKSZ and MINSIGSTKSZ calls of sysconf(), so neither is a constant
// expression and GCC stops in the translation unit that holds Catch2's implementation
// (opentracing-cpp 1.6.0's tests vendor Catch v2.0.1). CATCH_CONFIG_NO_POSIX_SIGNALS,
// Catch2's documented switch, leaves that handler out; 2.13.5 rewrote it to allocate
// the stack at run time. The rule defines the switch in the C++ flags and changes no
// source.

const (
	catch2SignalsRuleName = "catch2-sigstksz"
	// catch2NoSignals is the define the rule passes.
	catch2NoSignals = "-DCATCH_CONFIG_NO_POSIX_SIGNALS"
	// maxCatch2HeaderBytes bounds the header the rule reads (Catch2 2.13's is 650 KB).
	maxCatch2HeaderBytes = 4 << 20
)

var (
	// catch2StackError is GCC's report of either declaration, with its location: the
	// array sized by SIGSTKSZ (or by the constexpr that uses MINSIGSTKSZ), and the
	// constexpr's call of sysconf.
	catch2StackError = re(`(?m)^([^\n:]+):(\d+):(?:\d+:)? error: (size of array [‘'"]altStackMem[’'"] is not an integral constant-expression|call to non-[‘'"]constexpr[’'"] function [‘'"]long int sysconf\(int\)[’'"])`)
	// catch2VersionMacro is one of Catch2 2's version macros (2.1 and later).
	catch2VersionMacro = re(`(?m)^[ \t]*#[ \t]*define[ \t]+CATCH_VERSION_(MAJOR|MINOR|PATCH)[ \t]+(\d+)\b`)
	// catch2LibraryVersion is the version the header's libraryVersion() returns, which
	// every Catch2 2 header has (2.0 had no version macros).
	catch2LibraryVersion = re(`\bVersion\s+version\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,`)
	// catch2Banner is the first comment of a generated single header: " *  Catch v2.0.1".
	catch2Banner = re(`(?m)^\s*\*\s+Catch v(\d+)\.(\d+)\.(\d+)\b`)
	// catch2SignalsSwitch is the header honouring the switch that leaves the handler out.
	catch2SignalsSwitch = re(`defined\s*\(\s*CATCH_CONFIG_NO_POSIX_SIGNALS\s*\)`)
	// catch2StackLine is the source line of one of the two declarations.
	catch2StackLine = re(`\baltStackMem\b|\bsigStackSize\b`)
)

// catch2Fixed is the first Catch2 release whose signal handler sizes its stack at run time.
var catch2Fixed = [3]int{2, 13, 5}

func catch2SignalsRule() Rule {
	return Rule{
		Name: catch2SignalsRuleName,
		Doc: "Catch2 2 single headers before 2.13.5 whose fatal-signal handler sizes a static array with SIGSTKSZ, no constant since glibc 2.34 " +
			"(size of array 'altStackMem' is not an integral constant-expression; call to non-'constexpr' function 'long int sysconf(int)'): " +
			"-DCATCH_CONFIG_NO_POSIX_SIGNALS, Catch2's switch that leaves the handler out, through the build system's own C++ flags " +
			"(CMAKE_CXX_FLAGS of the build type, CXXFLAGS at configure time, meson's cpp_args, CXXFLAGS in a plain make's environment)",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{re(`error: size of array [‘'"]altStackMem[’'"] is not an integral constant-expression`),
			re(`error: call to non-[‘'"]constexpr[’'"] function [‘'"]long int sysconf\(int\)[’'"]`)},
		Make: makeCatch2Signals,
	}
}

// stackError is one of the compiler's errors at the handler's declarations.
type stackError struct {
	File string // as the compiler names it
	Line int
	Text string // the error's words
}

// parseStackErrors returns the errors of catch2StackError in text, each location once,
// in order, at most 16.
func parseStackErrors(text string) []stackError {
	var out []stackError
	for _, m := range catch2StackError.FindAllStringSubmatch(text, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil || n <= 0 {
			continue
		}
		e := stackError{File: path.Clean(strings.TrimSpace(m[1])), Line: n, Text: m[3]}
		if !slices.ContainsFunc(out, func(o stackError) bool { return o.File == e.File && o.Line == e.Line }) {
			out = append(out, e)
			if len(out) == 16 {
				break
			}
		}
	}
	return out
}

// catch2Version reads a Catch2 header's version: its CATCH_VERSION_ macros, else the
// version its libraryVersion() returns, else its banner comment. ok is false when the
// text carries none of them, which no Catch header lacks.
func catch2Version(src string) (v [3]int, ok bool) {
	seen := 0
	for _, m := range catch2VersionMacro.FindAllStringSubmatch(src, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		i := map[string]int{"MAJOR": 0, "MINOR": 1, "PATCH": 2}[m[1]]
		if seen&(1<<i) == 0 {
			v[i], seen = n, seen|1<<i
		}
	}
	if seen == 7 {
		return v, true
	}
	for _, r := range []*regexp.Regexp{catch2LibraryVersion, catch2Banner} {
		if m := r.FindStringSubmatch(src); m != nil {
			for i := range 3 {
				n, err := strconv.Atoi(m[i+1])
				if err != nil {
					return [3]int{}, false
				}
				v[i] = n
			}
			return v, true
		}
	}
	return [3]int{}, false
}

func versionString(v [3]int) string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

func versionBefore(a, b [3]int) bool { return slices.Compare(a[:], b[:]) < 0 }

func makeCatch2Signals(ctx context.Context, f Failure, env Env) (*Fix, string) {
	errs := parseStackErrors(f.text() + "\n" + f.Message)
	if len(errs) == 0 {
		return nil, "no compiler error at a SIGSTKSZ-sized declaration with its file and line"
	}
	if env.Plan == nil {
		return nil, "no build plan to pass the define through"
	}
	if planHas(*env.Plan, catch2NoSignals) {
		return nil, "the plan already defines CATCH_CONFIG_NO_POSIX_SIGNALS: the error is not in the signal handler it leaves out"
	}
	if env.ReadFile == nil {
		return nil, "the tree cannot be read to tell a Catch2 header from other code"
	}
	// Every file the errors name must be such a header: the switch changes nothing in
	// any other code, which a porter fixes by hand.
	var headers []string
	for _, e := range errs {
		h, why := catch2Header(ctx, env, e)
		if why != "" {
			return nil, why
		}
		if !slices.Contains(headers, h) {
			headers = append(headers, h)
		}
	}
	plan, where, ok := withCXXFlags(*env.Plan, f.Phase, []string{catch2NoSignals})
	if !ok {
		plan, where, ok = editPlan(*env.Plan, f.Phase, []planEdit{makeFlagsEdit("CXX", catch2NoSignals, makefileSetsFlags(ctx, env, "CXX"))})
	}
	if !ok {
		return nil, "no cmake, configure, meson or make command in the plan takes C++ flags"
	}
	return &Fix{
		Analysis: strings.Join(headers, "; ") + ". " +
			"glibc 2.34 made SIGSTKSZ and MINSIGSTKSZ calls of sysconf(), so the handler's stack size is no constant expression; Catch2 2.13.5 allocates that stack at run time. " +
			"-DCATCH_CONFIG_NO_POSIX_SIGNALS, Catch2's documented switch, leaves the POSIX signal handler out: what is lost is Catch2's report of a test that dies by a signal " +
			"(SIGSEGV, SIGABRT, SIGFPE, ...), which names the test case and the signal; such a test still fails, by its program's exit status. The sources are not changed.",
		Strategy: "define CATCH_CONFIG_NO_POSIX_SIGNALS through " + where,
		Plan:     &plan,
	}, ""
}

// catch2Header checks that an error lies in the signal handler of a Catch2 2 header
// older than 2.13.5 that honours CATCH_CONFIG_NO_POSIX_SIGNALS, and describes it; else
// it says why not.
func catch2Header(ctx context.Context, env Env, e stackError) (string, string) {
	rel, ok := locateFile(env.Files, e.File)
	if !ok {
		return "", fmt.Sprintf("the compiler names %s:%d, which is not in the tree", e.File, e.Line)
	}
	b, err := env.ReadFile(ctx, rel)
	if err != nil {
		return "", fmt.Sprintf("%s could not be read: %v", rel, err)
	}
	if len(b) > maxCatch2HeaderBytes {
		return "", fmt.Sprintf("%s is larger than %d bytes: not read", rel, maxCatch2HeaderBytes)
	}
	src := string(b)
	v, ok := catch2Version(src)
	if !ok || v[0] != 2 {
		what := "carries no Catch2 version"
		if ok {
			what = "is Catch " + versionString(v)
		}
		return "", fmt.Sprintf("%s (error at line %d: %s) %s: the rule knows Catch2 2's single header only", rel, e.Line, e.Text, what)
	}
	if !versionBefore(v, catch2Fixed) {
		return "", fmt.Sprintf("%s is Catch2 %s, whose signal handler sizes its stack at run time: the error at line %d is not the one 2.13.5 fixed", rel, versionString(v), e.Line)
	}
	line := sourceLine(b, e.Line)
	if !catch2StackLine.MatchString(line) {
		return "", fmt.Sprintf("%s:%d (%s) is not the signal handler's stack of Catch2 %s", rel, e.Line, line, versionString(v))
	}
	if !catch2SignalsSwitch.MatchString(src) {
		return "", fmt.Sprintf("%s (Catch2 %s) does not test CATCH_CONFIG_NO_POSIX_SIGNALS, so defining it would not leave the handler out", rel, versionString(v))
	}
	return fmt.Sprintf("%s is Catch2 %s's single header (before 2.13.5), whose fatal-signal handler sizes its alternate stack at compile time: %s:%d `%s`",
		rel, versionString(v), rel, e.Line, line), ""
}
