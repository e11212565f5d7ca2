package repair

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// C++17 removed constructs that C++14 only deprecated, and GCC 11 and later (and
// Clang 16 and later) compile C++ as gnu++17 by default, so old C++ that built for
// years stops with an error that names C++17. No warning flag relaxes these: the
// porter's smallest change is the standard the code was written for, -std=gnu++14
// (every one of them is still accepted there, with a deprecation warning at most).
// The messages, verbatim, as GCC and Clang print them (older releases said "C++1z"):
//
//   - GCC:   use of an operand of type 'bool' in 'operator++' is forbidden in C++17
//   - Clang: ISO C++17 does not allow incrementing expression of type bool
//   - both:  ISO C++17 does not allow dynamic exception specifications
//   - Clang: ISO C++17 does not allow 'register' storage class specifier (an error
//     there; GCC prints the same words as a [-Wregister] warning, which stops
//     nothing and so is matched only on an error line)
//
// GCC writes the quotes as ‘ and ’ in a UTF-8 locale, as plain apostrophes in the C locale.
var cxx17RemovedError = re(`(?m)^([^\s:]+:\d+:\d+): error: (` +
	`use of an operand of type [‘']bool[’'] in [‘']operator\+\+[’'] is forbidden in C\+\+(?:17|1z)` +
	`|ISO C\+\+(?:17|1z) does not allow (?:incrementing expression of type bool|dynamic exception specifications|[‘']register[’'] storage class specifier))`)

// cxx17Std is the standard the flag selects: GNU dialect, as GCC's default is, so the
// GNU extensions the code may use stay on.
const cxx17Std = "-std=gnu++14"

// makeCXXInCC finds a makefile that compiles C++ with CC (ea-utils' CC=g++ and
// $(CC) $(CFLAGS) for its .cpp files): the compiler it names.
var makeCXXInCC = re(`(?m)^[ \t]*CC[ \t]*:{0,2}=[ \t]*((?:\S+/)?(?:[\w.-]+-)?(?:g\+\+|c\+\+|clang\+\+)(?:-[\d.]+)?)[ \t]*$`)

func cxx17Rule() Rule {
	return Rule{
		Name: "cxx17-removed",
		Doc: "C++ that C++17 removed (operator++ on bool, dynamic exception specifications, register) and GCC's default gnu++17 rejects: " +
			"-std=gnu++14 through the build's own variables (CMAKE_CXX_FLAGS of the build type, CXXFLAGS at configure time, meson's cpp_args, " +
			"or make's command line: CC when the makefile compiles C++ with CC, else CXXFLAGS or CXX)",
		// Any category: a parallel make's log may end on another target's error
		// (ea-utils' "No rule to make target", a configuration error) while the
		// compiler's C++17 error is the one that stops the build; the signature
		// names the compiler's words, which no other failure prints.
		Categories: nil,
		Signatures: []*regexp.Regexp{cxx17RemovedError},
		Make:       makeCXX17,
	}
}

func makeCXX17(ctx context.Context, f Failure, env Env) (*Fix, string) {
	m := cxx17RemovedError.FindStringSubmatch(f.text() + "\n" + f.Message)
	if m == nil {
		return nil, "no compiler error that names a construct C++17 removed"
	}
	if env.Plan == nil {
		return nil, "no build plan to pass the flag through"
	}
	if planHas(*env.Plan, cxx17Std) {
		// The flag is there and the error still shows: the project's own -std (which
		// comes after ours) or a compiler that does not see our variable; another
		// round of the same flag would change nothing.
		return nil, "the plan already passes " + cxx17Std
	}
	plan, where, ok := withCXXFlags(*env.Plan, f.Phase, []string{cxx17Std})
	if !ok {
		plan, where, ok = editPlan(*env.Plan, f.Phase, []planEdit{makeCXXStdEdit(ctx, env)})
	}
	if !ok {
		return nil, "no cmake, configure, meson or make command in the plan takes C++ flags"
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s: %s: C++17 removed this, and GCC compiles C++ as gnu++17 by default; the code was written for an older "+
			"standard, so %s goes through %s and the sources are not changed.", m[1], m[2], cxx17Std, where),
		Strategy: "pass " + cxx17Std + " through " + where,
		Plan:     &plan,
	}, ""
}

// makeCXXStdEdit is the edit that passes the standard to a plain make. A makefile that
// compiles C++ with CC (CC=g++) never reads CXXFLAGS or CXX, and its CFLAGS often
// carries the include paths (ea-utils' CFLAGS?=-O3 -I.), which a CFLAGS from outside
// would drop: the flag goes with its compiler in CC on make's command line. Any other
// makefile gets it as makeFlagsEdit passes C++ flags.
func makeCXXStdEdit(ctx context.Context, env Env) planEdit {
	for _, mk := range plannedMakefiles(ctx, env) {
		if cc := makeCXXInCC.FindSubmatch(mk); cc != nil {
			comp := string(cc[1])
			return planEdit{where: "CC on make's command line (the makefile compiles C++ with CC=" + comp + ")", do: func(line string) (string, bool) {
				if strings.Contains(line, "configure") || strings.Contains(line, "cmake") {
					return line, false
				}
				return editWord(line, makeWord, func(word string) string {
					return word + " CC=" + shellQuote(comp+" "+cxx17Std)
				}, ccArg, cxx17Std)
			}}
		}
	}
	return makeFlagsEdit("CXX", cxx17Std, makefileSetsFlags(ctx, env, "CXX"))
}
