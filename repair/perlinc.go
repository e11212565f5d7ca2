package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Perl 5.26 took the current directory out of @INC, so a build script written before it
// that loads a file of its own by a bare name (libradsec 0.0.5's radius/convert.pl:
// require "common.pl", run by make from radius/) stops at "Can't locate common.pl in
// @INC". Perl's own answer for code that needs the old search is the
// PERL_USE_UNSAFE_INC=1 environment variable, which puts "." back at the end of @INC;
// the rule sets it for the build command, and only when the file the script asked for
// is in the tree beside the script, so the directory it runs in is the one it meant.

const perlDotIncRuleName = "perl-dot-inc"

// perlCannotLocate is Perl's report that require or do found no file: the file as the
// script named it, and the script.
var perlCannotLocate = re(`Can't locate ([A-Za-z0-9_.+-]+\.p[lmh]) in @INC \([^\n]*?\) at (\S+) line \d+`)

func perlDotIncRule() Rule {
	return Rule{
		Name: perlDotIncRuleName,
		Doc: "a build script that loads a file of its own by a bare name from the current directory, which Perl 5.26 took out of @INC " +
			"(libradsec's convert.pl: require \"common.pl\"): the build runs with PERL_USE_UNSAFE_INC=1, Perl's switch for such code, when the file is beside the script",
		Signatures: []*regexp.Regexp{perlCannotLocate},
		Make:       makePerlDotInc,
	}
}

func makePerlDotInc(_ context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan to edit"
	}
	m := perlCannotLocate.FindStringSubmatch(f.text())
	if m == nil {
		m = perlCannotLocate.FindStringSubmatch(f.Message)
	}
	if m == nil {
		return nil, "no file Perl could not locate"
	}
	file, script := m[1], m[2]
	if strings.Contains(f.text(), "PERL_USE_UNSAFE_INC=1") || planHas(*env.Plan, "PERL_USE_UNSAFE_INC=1") {
		return nil, "the build already runs with PERL_USE_UNSAFE_INC=1"
	}
	where := besideScript(env.Files, file, script)
	if where == "" {
		return nil, fmt.Sprintf("%s is not in the tree beside %s, so the current directory is not where it was meant to be found", file, script)
	}
	plan, _, ok := editPlan(*env.Plan, f.Phase, []planEdit{{where: "the build command", do: func(line string) (string, bool) {
		if f.Command != "" && line != f.Command {
			return line, false
		}
		return "export PERL_USE_UNSAFE_INC=1 && " + line, true
	}}})
	if !ok {
		return nil, "the plan has no command that failed to edit"
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s loads %s by a bare name, which Perl found in the current directory until 5.26 took it out of @INC; "+
			"the file is in the tree at %s, beside the script. The build runs with PERL_USE_UNSAFE_INC=1, Perl's own switch for such code, which puts . back at the end of @INC.",
			script, file, where),
		Strategy: "run the build with PERL_USE_UNSAFE_INC=1",
		Plan:     &plan,
	}, ""
}

// besideScript finds file in the directory of a tree file whose path ends with the
// script's (as Perl printed it, relative to wherever make ran it, or absolute in the
// sandbox); "" when no such pair is in the tree.
func besideScript(files []string, file, script string) string {
	s := path.Clean(strings.TrimPrefix(script, "./"))
	base := path.Base(s)
	for _, p := range files {
		if path.Base(p) != base {
			continue
		}
		if !strings.HasSuffix("/"+s, "/"+p) && !strings.HasSuffix("/"+p, "/"+s) {
			continue
		}
		if want := path.Join(path.Dir(p), file); slices.Contains(files, want) {
			return want
		}
	}
	return ""
}
