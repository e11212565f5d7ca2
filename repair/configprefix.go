package repair

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A configure script that refuses the default prefix says which one to give: guile-cairo
// 1.12.0 stops at "No explicit prefix given.", because /usr/local is not in guile's load
// path, and tells the user to run "./configure --prefix=/usr". The port stages its
// install under a directory of its own whatever the prefix, so it takes the prefix the
// message names.

const configurePrefixRuleName = "configure-explicit-prefix"

// configurePrefixAdvice is configure's own error followed, within a few lines, by the
// command it says to run with an absolute prefix.
var configurePrefixAdvice = re(`configure: error: [^\n]*(?:\n[^\n]*){0,12}?\n[ \t]*\./configure --prefix=(/[A-Za-z0-9_./-]*)[ \t]*\n`)

func configurePrefixRule() Rule {
	return Rule{
		Name: configurePrefixRuleName,
		Doc: "a configure script that refuses the default prefix and says which to give (guile-cairo: \"No explicit prefix given.\" ... \"./configure --prefix=/usr\"): " +
			"configure runs with that prefix",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{configurePrefixAdvice},
		Make:       makeConfigurePrefix,
	}
}

func makeConfigurePrefix(_ context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan to configure differently"
	}
	m := configurePrefixAdvice.FindStringSubmatch(f.text())
	if m == nil {
		m = configurePrefixAdvice.FindStringSubmatch(f.Message)
	}
	if m == nil {
		return nil, "configure names no prefix to run it with"
	}
	prefix := m[1]
	if strings.Contains(prefix, "..") {
		return nil, "configure's prefix " + prefix + " is not a plain absolute path"
	}
	if planHas(*env.Plan, "--prefix=") {
		return nil, "the plan's configure already sets a prefix"
	}
	sw := "--prefix=" + prefix
	plan, ok := withSwitches(*env.Plan, f.Phase, autotoolsKind.command, []string{sw})
	if !ok || samePlan(plan, *env.Plan) {
		return nil, "no ./configure in the plan to pass " + sw + " to"
	}
	return &Fix{
		Analysis: fmt.Sprintf("configure refuses the default prefix and says to run ./configure %s; the port stages its install in a directory of its own whatever the prefix, so configure runs with the prefix it names.", sw),
		Strategy: "configure with " + sw,
		Plan:     &plan,
	}, ""
}
