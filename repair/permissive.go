package repair

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// GCC tags the C++ errors it accepts, with a warning, under -fpermissive: old code that
// newer compilers reject (assembly-stats 1.0.1's unit tests take the address of an
// rvalue ostringstream). The flag is the porter's smallest change; the sources stay.
var (
	permissiveError = re(`(?m)^([^\s:]+:\d+:\d+): error: ([^\n]*?)\s*\[-fpermissive\]`)
	cmakeBuildType  = re(`-DCMAKE_BUILD_TYPE(?::STRING)?=(\w+)`)
	cxxflagsArg     = re(`\bCXXFLAGS=(?:'([^']*)'|"([^"]*)"|(\S*))`)
)

// cmakeConfigFlags are CMake's default per-configuration C++ flags for GCC, kept when
// the flag goes into CMAKE_CXX_FLAGS_<CONFIG>.
var cmakeConfigFlags = map[string]string{"RELEASE": "-O3 -DNDEBUG", "RELWITHDEBINFO": "-O2 -g -DNDEBUG",
	"MINSIZEREL": "-Os -DNDEBUG", "DEBUG": "-g"}

func permissiveRule() Rule {
	return Rule{
		Name: "gxx-permissive",
		Doc: "C++ errors GCC accepts under -fpermissive (old code newer compilers reject): -fpermissive through the build's own variables " +
			"(CMAKE_CXX_FLAGS of the build type, which a CMakeLists.txt that sets CMAKE_CXX_FLAGS outright still keeps; CXXFLAGS at configure time)",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{re(`error: [^\n]*\[-fpermissive\]`)},
		Make:       makePermissive,
	}
}

func makePermissive(_ context.Context, f Failure, env Env) (*Fix, string) {
	m := permissiveError.FindStringSubmatch(f.text() + "\n" + f.Message)
	if m == nil {
		return nil, "no compiler error tagged [-fpermissive]"
	}
	if env.Plan == nil {
		return nil, "no build plan to pass the flag through"
	}
	if planHas(*env.Plan, "-fpermissive") {
		return nil, "the plan already passes -fpermissive"
	}
	plan, where, ok := withCXXFlags(*env.Plan, f.Phase, []string{"-fpermissive"})
	if !ok {
		return nil, "no cmake or configure command in the plan takes C++ flags"
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s: %s is an error GCC accepts with a warning under -fpermissive (old C++ a newer compiler rejects); "+
			"the flag goes through %s and the sources are not changed.", m[1], m[2], where),
		Strategy: "pass -fpermissive through " + where,
		Plan:     &plan,
	}, ""
}

// withCXXFlags returns the plan with C++ flags added through the build system's
// variables, as withLangFlags does.
func withCXXFlags(plan atesor.BuildPlan, failedPhase string, flags []string) (atesor.BuildPlan, string, bool) {
	return withLangFlags(plan, failedPhase, "CXX", flags)
}

// withLangFlags returns the plan with flags for lang (C or CXX) added through the build
// system's variables in the first phase, from the failing one back, that configures the
// build: cmake gets CMAKE_<LANG>_FLAGS_<CONFIG> of the build type, with CMake's defaults
// for it kept (it comes after the project's CMAKE_<LANG>_FLAGS, which a CMakeLists.txt
// may set outright and so hide a -DCMAKE_<LANG>_FLAGS), or CMAKE_<LANG>_FLAGS with no
// build type; a configure gets CFLAGS or CXXFLAGS in its environment, keeping
// autoconf's -g -O2; meson setup gets its c_args or cpp_args option (which the
// project's own arguments come after).
func withLangFlags(plan atesor.BuildPlan, failedPhase, lang string, flags []string) (atesor.BuildPlan, string, bool) {
	add := strings.Join(flags, " ")
	envVar, envArg, mesonOpt := "CXXFLAGS", cxxflagsArg, "cpp_args"
	if lang == "C" {
		envVar, envArg, mesonOpt = "CFLAGS", cflagsArg, "c_args"
	}
	return editPlan(plan, failedPhase, []planEdit{
		{where: "CMAKE_" + lang + "_FLAGS of the build type", do: func(line string) (string, bool) {
			name, val := "CMAKE_"+lang+"_FLAGS", add
			if bt := cmakeBuildType.FindStringSubmatch(line); bt != nil {
				cfg := strings.ToUpper(bt[1])
				name, val = "CMAKE_"+lang+"_FLAGS_"+cfg, strings.TrimSpace(cmakeConfigFlags[cfg]+" "+add)
			}
			existing := re(`-D` + name + `(?::STRING)?=(?:'([^']*)'|"([^"]*)"|(\S*))`)
			return editWord(line, cmakeConfig, func(word string) string {
				return word + " -D" + name + "=" + shellQuote(val)
			}, existing, add)
		}},
		{where: envVar + " at configure time", do: func(line string) (string, bool) {
			return editWord(line, configureWord, func(word string) string {
				return envVar + "=" + shellQuote("-g -O2 "+add) + " " + word
			}, envArg, add)
		}},
		{where: "meson's -D" + mesonOpt, do: func(line string) (string, bool) {
			existing := re(`-D` + mesonOpt + `=(?:'([^']*)'|"([^"]*)"|(\S*))`)
			return editWord(line, mesonSetupCmd, func(word string) string {
				return word + " -D" + mesonOpt + "=" + shellQuote(add)
			}, existing, add)
		}},
	})
}
