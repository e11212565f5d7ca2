package repair

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Trees built the way D. J. Bernstein's packages are (qmail, daemontools, and bglibs,
// bcron and the other packages written in that style) have no configure and take no
// CFLAGS: the first line of conf-cc is the compile command, which the Makefile writes
// into a ./compile (or ./ltcompile) script every object is built with. A flag in make's
// environment or on its command line never reaches the compiler there (the twelfth
// held-back round's bglibs 2.04 ran into GCC 14's implicit sigpause with CFLAGS set, three
// times); the flags go on conf-cc's first line, as the packages' own instructions say.

// djbCompiler is the file whose first line is such a tree's compile command.
const djbCompiler = "conf-cc"

// djbCompilerFile returns the top-level conf-cc and its content when the top-level
// Makefile builds its compile script from it.
func djbCompilerFile(ctx context.Context, env Env) (string, string, bool) {
	if env.ReadFile == nil || !slices.Contains(env.Files, djbCompiler) {
		return "", "", false
	}
	mk, err := env.ReadFile(ctx, "Makefile")
	if err != nil || len(mk) > 4*maxAutotoolsFile || !bytes.Contains(mk, []byte(djbCompiler)) {
		return "", "", false
	}
	b, err := env.ReadFile(ctx, djbCompiler)
	if err != nil || len(b) > maxAutotoolsFile {
		return "", "", false
	}
	return djbCompiler, string(b), true
}

// djbFlagsFix is the fix that appends flags to the compile command of conf-cc (p, with
// content), those it has not already; analysis is the fix's analysis, with %s for the
// flags.
func djbFlagsFix(p, content string, flags []string, analysis string) (*Fix, string) {
	first, _, _ := strings.Cut(content, "\n")
	have := strings.Fields(first)
	add := slices.DeleteFunc(slices.Clone(flags), func(fl string) bool { return slices.Contains(have, fl) })
	if len(add) == 0 {
		return nil, fmt.Sprintf("%s's compile command has %s already", p, strings.Join(flags, " "))
	}
	diff, ok := linesDiff(p, content, false, func(i int, body string) (string, bool) {
		if i != 0 || strings.TrimSpace(body) == "" {
			return "", false
		}
		return strings.TrimRight(body, " \t") + " " + strings.Join(add, " "), true
	})
	if !ok {
		return nil, p + " has no compile command on its first line"
	}
	return &Fix{
		Analysis: fmt.Sprintf(analysis, strings.Join(add, " ")) + " The tree is built in D. J. Bernstein's style: the first line of " + p +
			" is the compile command the Makefile writes into its compile script, and no CFLAGS reaches the compiler any other way.",
		Strategy: fmt.Sprintf("append %s to the compile command in %s", strings.Join(add, " "), p),
		Actions:  []atesor.Action{{Type: atesor.ActionPatch, File: p, Diff: diff}},
	}, ""
}
