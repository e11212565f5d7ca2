package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A repacked tarball drops the files upstream generated and shipped, and a build system
// added beside the package's own Makefile may not know how to make them again: Debian's
// cubature 1.0.4+ds lacks clencurt.h (a table upstream's Makefile writes with
// "./clencurt_gen 19 > clencurt.h"), and its CMakeLists.txt compiles pcubature.c, which
// includes it, without generating it. The tree's Makefile still has the rule, so the
// porter runs it: make with the header as its goal, in the directory where the compiler
// looks for a quoted include first (beside the file that includes it), before the build.

const makeGeneratedHeaderRuleName = "make-generated-header"

func makeGeneratedHeaderRule() Rule {
	return Rule{
		Name: makeGeneratedHeaderRuleName,
		Doc: "a missing #include that a Makefile of the tree, beside the file that includes it, has a rule with a recipe to make " +
			"(cubature's clencurt.h, written by clencurt_gen, which the repack strips and its CMake build does not generate): make that goal before the build",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: includeMissing,
		Make:       makeGeneratedHeader,
	}
}

func makeGeneratedHeader(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the sources cannot be read"
	}
	text := f.Message + "\n" + f.Output
	return firstIncludeFix(text, func(name string) (*Fix, string) { return makeHeaderGoal(ctx, f, env, text, name) })
}

// firstIncludeFix returns the first fix try makes for the missing includes text names,
// in order, or the reasons it made none.
func firstIncludeFix(text string, try func(name string) (*Fix, string)) (*Fix, string) {
	names := missingIncludes(text)
	if len(names) == 0 {
		return nil, "no missing include named"
	}
	var reasons []string
	for _, name := range names {
		fix, why := try(name)
		if fix != nil {
			return fix, ""
		}
		reasons = append(reasons, why)
	}
	return nil, strings.Join(reasons, "; ")
}

// makeHeaderGoal finds the Makefile beside the file that includes name whose rule makes
// it, and returns the fix that runs it.
func makeHeaderGoal(ctx context.Context, f Failure, env Env, text, name string) (*Fix, string) {
	if p, ok := locateFile(env.Files, name); ok && strings.HasSuffix("/"+p, "/"+name) {
		return nil, fmt.Sprintf("%s is in the tree at %s: its include directory, not a generated file, is what the compiler misses", name, p)
	}
	includer := regexp.MustCompile(`(?m)^(\S+?):\d+(?::\d+)?: fatal error: ` + regexp.QuoteMeta(name) + `: No such file or directory`)
	m := includer.FindStringSubmatch(text)
	if m == nil {
		return nil, "the compiler did not say which file includes " + name
	}
	src, ok := locateFile(env.Files, m[1])
	if !ok {
		return nil, m[1] + ", which includes " + name + ", is not in the tree"
	}
	dir := path.Dir(src)
	mf, ok := makefileIn(env.Files, dir)
	if !ok {
		return nil, "no Makefile beside " + src + " to make " + name
	}
	b, err := env.ReadFile(ctx, mf)
	if err != nil || len(b) > maxMakefile {
		return nil, fmt.Sprintf("%s, beside %s, cannot be read", mf, src)
	}
	_, recipe, found := makefileRule(string(b), name)
	if !found {
		return nil, fmt.Sprintf("%s, beside %s, has no rule for %s", mf, src, name)
	}
	if !recipe {
		return nil, fmt.Sprintf("%s's rule for %s has no recipe to make it", mf, name)
	}
	cmd := "make " + quoteArg(name)
	if dir != "." {
		cmd = "make -C " + quoteArg(dir) + " " + quoteArg(name)
	}
	if env.Plan == nil {
		return nil, "no build plan to run " + cmd + " in"
	}
	// In the plan, before the failing command, rather than once by a fix command:
	// the Makefile's recipe needs what the build needs (cubature's clencurt_gen links
	// libfftw3l), and a plan step that fails is an error the later rules answer.
	plan, _, edited := editPlan(*env.Plan, f.Phase, []planEdit{{where: "the failing command", do: func(line string) (string, bool) {
		if line != f.Command || strings.HasPrefix(line, cmd+" && ") {
			return line, false
		}
		return cmd + " && " + line, true
	}}})
	if !edited {
		return nil, "the plan has no failing command to run " + cmd + " before"
	}
	return &Fix{
		Analysis: fmt.Sprintf("The compiler could not find %s, which %s includes. The tree does not ship it (a repacked tarball drops what upstream generated), "+
			"but %s, beside the file, has the rule that makes it, which the build that ran does not use. %s generates it where a quoted include looks first, before the build.",
			name, src, mf, cmd),
		Strategy: "run " + cmd + " before the build",
		Plan:     &plan,
	}, ""
}
