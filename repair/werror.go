package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A build that promotes warnings to errors (-Werror in its own build files) breaks when
// a newer compiler warns about code the older one passed: modest's -Wall -Werror meets
// GCC 14's -Wstringop-truncation. GCC tags each such error with the warning's name, and
// -Wno-error=NAME makes that one a warning again whatever -Werror comes later on the
// command line: the porter's smallest change, with the sources and every other warning
// left as they are.
var (
	werrorError = re(`(?m)^(\S+?\.(c|cc|cp|cpp|cxx|c\+\+|C|h|hh|hpp|hxx|ipp|tcc)):\d+(?::\d+)?: error: [^\n]*\[-Werror=([a-z0-9][a-z0-9=-]*)\]`)
	cxxFile     = re(`\.(cc|cp|cpp|cxx|c\+\+|C|hh|hpp|hxx|ipp|tcc)$`)
)

// newerWarnings are the warnings GCC 11 to 14 added or made stricter, and the
// deprecations of libraries newer than the code (OpenSSL 3's deprecated-declarations),
// which a tree's -Werror meets one file at a time: make stops at the first file that
// fails, so a second round of them shows the tree meets the family, and relaxing it
// whole saves an attempt per warning.
var newerWarnings = []string{"deprecated-declarations", "use-after-free", "dangling-pointer", "stringop-truncation", "stringop-overflow",
	"stringop-overread", "array-bounds", "maybe-uninitialized", "format-truncation", "format-overflow", "mismatched-dealloc",
	"free-nonheap-object", "array-parameter", "enum-int-mismatch", "address", "restrict", "unused-result", "calloc-transposed-args"}

// maxWerrorFlags bounds the warnings one fix relaxes: more than this many is not a new
// compiler's handful but code the build's -Werror never passed.
const maxWerrorFlags = 8

func werrorRule() Rule {
	return Rule{
		Name: "werror-new-warning",
		Doc: "warnings a build's own -Werror makes errors, which a newer compiler raises on code an older one passed: " +
			"-Wno-error=NAME for each named one (CMAKE_<LANG>_FLAGS of the build type, CFLAGS/CXXFLAGS at configure time, CFLAGS in a plain make's environment)",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{re(`error: [^\n]*\[-Werror=[a-z0-9]`)},
		Make:       makeWerror,
	}
}

// werrorFlags returns the -Wno-error= flags for the warnings text reports as errors,
// C's and C++'s apart (by the file the error names), in order of first report. GCC 14's
// new C errors are gcc14-permissive's; a warning already relaxed in plan is left out.
func werrorFlags(text string, plan *atesor.BuildPlan) (c, cxx []string) {
	for _, m := range werrorError.FindAllStringSubmatch(text, -1) {
		name := m[3]
		if i := strings.IndexByte(name, '='); i >= 0 {
			name = name[:i] // -Werror=stringop-overflow=: the level is not part of the name
		}
		if slices.Contains(gcc14Diagnostics, name) {
			continue
		}
		fl := "-Wno-error=" + name
		if plan != nil && planHas(*plan, fl) {
			continue
		}
		list := &c
		if cxxFile.MatchString(m[1]) {
			list = &cxx
		}
		if !slices.Contains(*list, fl) {
			*list = append(*list, fl)
		}
	}
	return c, cxx
}

func makeWerror(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan to pass the flags through"
	}
	c, cxx := werrorFlags(f.text()+"\n"+f.Message, env.Plan)
	if len(c)+len(cxx) == 0 {
		return nil, "no warning made an error by -Werror that the plan does not already relax"
	}
	if len(c)+len(cxx) > maxWerrorFlags {
		return nil, fmt.Sprintf("%d warnings are errors under -Werror: more than a newer compiler's few, so not relaxed one by one", len(c)+len(cxx))
	}
	again := planHas(*env.Plan, "-Wno-error=")
	if again {
		// A second round: the warnings an older compiler passed come one file at a
		// time, so the family is relaxed with the ones named.
		for _, list := range []*[]string{&c, &cxx} {
			if len(*list) == 0 {
				continue
			}
			for _, w := range newerWarnings {
				if fl := "-Wno-error=" + w; !slices.Contains(*list, fl) && !planHas(*env.Plan, fl) {
					*list = append(*list, fl)
				}
			}
			// And -Wno-error itself, which turns the build's -Werror off wherever it
			// comes after it on the command line (configure's CFLAGS follow automake's
			// AM_CFLAGS): the warnings no list names.
			if !planHas(*env.Plan, "-Wno-error ") && !planHas(*env.Plan, "-Wno-error'") {
				*list = append(*list, "-Wno-error")
			}
		}
	}
	plan := *env.Plan
	var wheres []string
	if len(c) > 0 {
		p, where, ok := withLangFlags(plan, f.Phase, "C", c)
		if !ok {
			p, where, ok = withCFlags(plan, f.Phase, c, makefileSetsCFlags(ctx, env))
		}
		if !ok {
			return nil, "no configure, cmake or make command in the plan takes CFLAGS"
		}
		plan, wheres = p, append(wheres, strings.Join(c, " ")+" through "+where)
	}
	if len(cxx) > 0 {
		p, where, ok := withCXXFlags(plan, f.Phase, cxx)
		if !ok {
			return nil, "no cmake or configure command in the plan takes C++ flags"
		}
		plan, wheres = p, append(wheres, strings.Join(cxx, " ")+" through "+where)
	}
	all := strings.Join(append(slices.Clone(c), cxx...), " ")
	analysis := "The build's own -Werror makes warnings errors, and this compiler warns where an older one did not (" + all +
		" makes each of them a warning again, whatever -Werror follows); the sources and the other warnings are not changed."
	if again {
		analysis += " An earlier fix relaxed other such warnings, and make stops at the first file that fails, so the warnings newer compilers and libraries raise are relaxed with these, " +
			"and -Wno-error turns the build's -Werror off where it comes after it (configure's CFLAGS follow automake's AM_CFLAGS)."
	}
	return &Fix{
		Analysis: analysis,
		Strategy: "pass " + strings.Join(wheres, "; "),
		Plan:     &plan,
	}, ""
}
