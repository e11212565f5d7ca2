package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A package's tests, benchmarks or examples often need more than its library does: belcard
// 5.3.105's tester/ includes <bctoolbox/tester.h>, which no installed package provides
// (Debian builds belcard with its unit tests off), and the build stops there although the
// library and tools compiled. When the first compile error is in a directory the
// build adds for such a part, and an option gates that directory (or one above it) off,
// the porter configures with the option off: the library and programs are what the port
// is about. The rule comes after the ones that install what the part needs (the
// missing-package rules and the distribution's Build-Depends), so a part that can be
// built keeps its evidence.

const failingPartRuleName = "failing-part-off"

// compileErrorAt is a compiler's error with the file it is in (GCC's and Clang's
// "file:line[:col]: error:" and "fatal error:").
var compileErrorAt = re(`(?m)^(\S+?\.[A-Za-z+]{1,4}):\d+(?::\d+)?: (?:fatal )?error: ([^\n]*)`)

// partCompileError is a compile error in a file below a directory named for tests,
// benchmarks, examples, docs or fuzzers: the failures the rule claims, so that a
// claim (made without reading the tree) says a fix may follow.
var partCompileError = re(`(?mi)^\S*?(?:test|bench|example|sample|demo|tutorial|fuzz|doc)[^/\s]*/\S*?\.[A-Za-z+]{1,4}:\d+(?::\d+)?: (?:fatal )?error: `)

func failingPartRule() Rule {
	return Rule{
		Name: failingPartRuleName,
		Doc: "a compile error in a directory a CMake build adds for its tests, benchmarks, examples or docs (belcard's tester/ includes bctoolbox/tester.h, which no package installs) " +
			"after the rules that install what it needs: the option that gates the directory off",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryDependency, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{partCompileError},
		Make:       makeFailingPartOff,
	}
}

func makeFailingPartOff(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if !slices.Contains(env.Files, "CMakeLists.txt") {
		return nil, "the tree has no top-level CMakeLists.txt"
	}
	pinned := turnedOnByFixes(env.Fixes)
	var why string
	fix, notes := makeCMakePart(ctx, f, env, func(r *subdirReader, text string) []missingSubdir {
		sub, reason := failingPart(r, f.Message+"\n"+text)
		if reason != "" {
			why = reason
			return nil
		}
		return []missingSubdir{sub}
	})
	if fix == nil {
		if why != "" {
			return nil, why
		}
		return nil, notes
	}
	for name, on := range pinned {
		if on && strings.Contains(fix.Strategy, "-D"+name+"=OFF") {
			return nil, "an earlier fix turned " + name + " on for the evidence the part gives; turning it off again would undo that fix"
		}
	}
	return fix, ""
}

// failingPart finds the add_subdirectory() that brings the first compile error's file
// into the build, when that directory (or one above it) is tests, benchmarks, examples,
// docs or fuzzers.
func failingPart(r *subdirReader, text string) (missingSubdir, string) {
	m := compileErrorAt.FindStringSubmatch(text)
	if m == nil {
		return missingSubdir{}, "no compile error names its file"
	}
	rel, ok := locateFile(r.env.Files, m[1])
	if !ok {
		return missingSubdir{}, m[1] + ", where the first compile error is, is not in the tree"
	}
	// The directory whose CMakeLists.txt compiles the file: the nearest above it.
	dir := path.Dir(rel)
	for dir != "." && !slices.Contains(r.env.Files, path.Join(dir, "CMakeLists.txt")) {
		dir = path.Dir(dir)
	}
	if dir == "." {
		return missingSubdir{}, fmt.Sprintf("%s is compiled by the top-level CMakeLists.txt, not a part the build can leave out", rel)
	}
	if purposeOf(dir) == "" {
		return missingSubdir{}, fmt.Sprintf("%s, where the first compile error is (%s), is not tests, benchmarks, examples or docs", dir+"/", rel)
	}
	if _, vendored := frameworkOf(dir); vendored {
		return missingSubdir{}, dir + "/ is a vendored test framework, not the package's part"
	}
	sub, ok := r.enclosing(path.Join(dir, "CMakeLists.txt"))
	if !ok {
		return missingSubdir{}, "no add_subdirectory() of the tree adds " + dir + "/"
	}
	sub.failed = fmt.Sprintf("%s: %s", rel, strings.TrimSpace(m[2]))
	return sub, ""
}
