package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// wrongSystemSignatures are failures of a build system's own configure step.
var wrongSystemSignatures = []*regexp.Regexp{
	re(`CMake Error`),
	re(`meson\.build:\d+:\d+: ERROR`),
	re(`(?m)^ERROR: (?:Unknown|Problem|Invalid|Meson)`),
	re(`configure: error: `),
	re(`(?i)\bcmake\b.*(?:not found|required)`),
	re(`(?i)no targets specified and no makefile found|No rule to make target '(?:all|install)'`),
}

func buildSystemRule() Rule {
	return Rule{
		Name: "next-build-system",
		Doc: "a wrongly chosen build system (a configure that only wraps CMake, a tree with both meson and CMake): the next detected system's default plan, " +
			"never one in a secondary directory (bindings, extras, examples, tests, docs, tools)",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryMissingTool,
			atesor.CategoryUnknown, atesor.CategoryDependency},
		Signatures: wrongSystemSignatures,
		Make:       makeNextBuildSystem,
	}
}

func makeNextBuildSystem(_ context.Context, f Failure, env Env) (*Fix, string) {
	det := env.Detection
	if det == nil || len(det.Alternatives) == 0 {
		return nil, "detection found no other build system"
	}
	if libs := missingLibraries(f.text() + "\n" + f.Message); len(libs) > 0 {
		// gstreamermm's shipped configure reported pkg-config modules not found, and a
		// switch to autoreconf of its configure.ac broke on macros of its own
		// toolchain: a build system that misses packages is not the wrong one, and
		// every other build of the tree needs them too.
		return nil, "the build failed for missing packages (" + strings.Join(libs, ", ") + "), which another build system needs as well"
	}
	chosen := det.BuildSystem
	var secondary []string
	for _, alt := range det.Alternatives {
		if alt.BuildSystem == chosen && !det.ShippedConfigure {
			continue
		}
		if dir, ok := secondaryDir(alt.Evidence); ok {
			secondary = append(secondary, fmt.Sprintf("%s (in %s/)", alt.Evidence, dir))
			continue
		}
		next := detectionFor(det, alt)
		plan, _, err := knowledge.DefaultPlan(&next, env.Platform)
		if err != nil || len(plan.Phases) == 0 || (env.Plan != nil && samePlan(plan, *env.Plan)) {
			continue
		}
		return &Fix{
			Analysis: fmt.Sprintf("The %s build failed in its own configure step; the tree also has a %s build (%s).", systemName(det), alt.BuildSystem, alt.Evidence),
			Strategy: fmt.Sprintf("switch to the default %s plan", alt.BuildSystem),
			Plan:     &plan,
		}, ""
	}
	if len(secondary) > 0 {
		return nil, "no other detected build system gives a different plan; not switched to the builds of secondary directories: " +
			strings.Join(secondary, ", ")
	}
	return nil, "no other detected build system gives a different plan"
}

// detectionFor is det with alt as the build it chose: alt's directory as the build
// directory, configure as shipped when alt is one, a platform makefile (makefile.unx)
// as the file make reads with -f, and no alternatives left.
func detectionFor(det *atesor.Detection, alt atesor.BuildCandidate) atesor.Detection {
	next := *det
	next.BuildSystem, next.Evidence, next.Confidence = alt.BuildSystem, alt.Evidence, alt.Confidence
	next.ShippedConfigure = alt.BuildSystem == atesor.BuildAutotools && path.Base(alt.Evidence) == "configure"
	next.BuildDir = ""
	if d := path.Dir(alt.Evidence); d != "." {
		next.BuildDir = d
	}
	next.Alternatives = nil
	next.Makefile = ""
	if b := path.Base(alt.Evidence); alt.BuildSystem == atesor.BuildMake && !slices.Contains([]string{"GNUmakefile", "Makefile", "makefile", "configure"}, b) {
		next.Makefile = b
	}
	return next
}

// secondaryDirName is a directory whose build is not the package's own: language
// bindings, extras, examples, tests, benchmarks, docs, tools, platform ports and
// vendored code. Such a build makes something else (immer's extra/js/makefile is an
// em++ build of its JavaScript bindings), so failing the package's own configure step
// is no reason to build it instead.
var secondaryDirName = regexp.MustCompile(`(?i)^(?:extras?|contrib|examples?|samples?|demos?|tutorials?|tests?|testing|unit_?tests?|` +
	`benchmarks?|bench|perf|fuzz(?:ing|ers?)?|docs?|documentation|manual|man|tools?|utils?|utilities|scripts|` +
	`bindings?|wrappers?|python\d?|py|java|jni|js|javascript|node|nodejs|npm|wasm|emscripten|ruby|perl|php|lua|guile|` +
	`ocaml|haskell|go|golang|rust|csharp|dotnet|swift|android|ios|windows|win32|win64|msvc|vs\d*|visualc|mingw|` +
	`third[_-]?party|3rd[_-]?party|vendor|external|deps|legacy|old|attic|obsolete|misc|packaging|ci|\.github)$`)

// secondaryDir reports the first directory of a repository-relative path (a build
// file's) that is a secondary one, the path up to and including it.
func secondaryDir(rel string) (string, bool) {
	dirs := strings.Split(path.Dir(path.Clean(rel)), "/")
	for i, d := range dirs {
		if d != "." && secondaryDirName.MatchString(d) {
			return strings.Join(dirs[:i+1], "/"), true
		}
	}
	return "", false
}

func systemName(det *atesor.Detection) string {
	if det.ShippedConfigure {
		return "configure"
	}
	return string(det.BuildSystem)
}

func samePlan(a, b atesor.BuildPlan) bool {
	return slices.EqualFunc(a.Phases, b.Phases, func(x, y atesor.Phase) bool {
		return x.Name == y.Name && slices.Equal(x.Commands, y.Commands)
	})
}

// missingLibraries returns the pkg-config modules, headers and libraries the output
// says are missing (programs aside: a configure that only wraps CMake misses cmake),
// and the development packages a build's own check tells the user to install.
func missingLibraries(text string) []string {
	var out []string
	for _, m := range FindMissing(text) {
		if m.Kind != KindProgram {
			out = append(out, m.Name)
		}
	}
	for _, re := range []*regexp.Regexp{namedDevPackage, configureCannotFindLib} {
		for _, m := range re.FindAllStringSubmatch(text, 8) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// configureCannotFindLib is a configure script's own check giving up on a library by
// name: cdcd 0.6.6's "configure: error: cannot find libcdaudio." after its
// libcdaudio-config probe — a missing package, which a regenerated configure misses too.
var configureCannotFindLib = re(`(?m)configure: error: (?:cannot|can't|could not|unable to) find (lib[a-z0-9][a-z0-9_.+-]*[a-z0-9])\.?\s*$`)

// namedDevPackage is a build's own check naming the development package it misses:
// cdrkit's CMake stops with "found a Linux system but no libcap header.  Install
// libcap-dev." — a missing package, which every build system of the tree needs too.
var namedDevPackage = re(`(?i)\binstall(?:\s+the)?(?:\s+package)?\s+['"]?([a-z0-9][a-z0-9.+]*-dev)\b`)
