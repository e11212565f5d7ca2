package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// A Makefile written before distributions linked with --as-needed often puts its
// libraries in LDFLAGS, which its link rule expands before the objects (dares 0.6.5:
// "LDFLAGS = -Wall -lncurses -lmagic" and "$(CC) $(LDFLAGS) -o dares $(OBJ)"). Debian's
// GCC passes --as-needed, so ld drops each library before any object needs it, and the
// link stops at undefined references to symbols those very libraries define: functions
// (wmove, magic_open) and data (ncurses' LINES and stdscr, which live in libtinfo,
// reached through the ld script libncurses.so). Installing or naming a library changes
// nothing; what restores the link the Makefile was written for is keeping the
// libraries its variable names, with --no-as-needed around that variable's value.

// linkDriver is a compiler driver's link command as make echoes it: gcc, cc, g++, c++,
// clang, clang++, with a target prefix or a version suffix, or libtool's "libtool:
// link:" echo of it.
var linkDriver = re(`^\s*(?:libtool: link: )?(?:\S*/)?(?:[A-Za-z0-9_.]+-)*(?:gcc|cc|g\+\+|c\+\+|clang|clang\+\+)(?:-[0-9.]+)?\s`)

// linkInput is a word of a link line that is an input the libraries must follow: an
// object, an archive or a source compiled and linked in one step.
var linkInput = re(`\.(?:o|lo|a|c|cc|cpp|cxx|C)$`)

// Bounds: the lines searched back from the first undefined reference for the link
// line, and the Makefiles read for the variable.
const (
	linkLineBack      = 400
	linkOrderMakefile = 64
)

func linkOrderRule() Rule {
	return Rule{
		Name: "link-as-needed-order",
		Doc: "undefined references, data or functions, that the libraries the link line names before its objects define every one of " +
			"(dares' LDFLAGS = -lncurses -lmagic before $(OBJ), dropped by --as-needed): make's command line sets the Makefile's variable " +
			"to its own value inside -Wl,--push-state,--no-as-needed ... -Wl,--pop-state",
		Signatures: []*regexp.Regexp{undefinedRef},
		Make:       makeLinkOrder,
	}
}

// earlyLibraries finds the link line of the first undefined reference in a build
// output (the last compiler-driver line before it that is not a compile) and returns
// the -l libraries it names before its first input, by name (ncurses for -lncurses),
// with the line itself.
func earlyLibraries(text string) (libs []string, line string) {
	lines := strings.Split(text, "\n")
	first := slices.IndexFunc(lines, func(l string) bool { return undefinedRef.MatchString(l) })
	if first < 0 {
		return nil, ""
	}
	for i := first - 1; i >= 0 && i >= first-linkLineBack; i-- {
		l := strings.TrimRight(lines[i], "\r")
		if !linkDriver.MatchString(l) {
			continue
		}
		words := strings.Fields(l)
		if slices.Contains(words, "-c") || slices.Contains(words, "-E") || slices.Contains(words, "-S") {
			continue // a compile, not the link
		}
		var early []string
		for j := 1; j < len(words); j++ {
			w := words[j]
			if words[j-1] == "-o" {
				continue // the output, not an input
			}
			if linkInput.MatchString(w) && !strings.HasPrefix(w, "-") {
				return early, l
			}
			name := strings.TrimPrefix(w, "-l")
			if w == "-l" && j+1 < len(words) {
				j++
				name = words[j]
			} else if name == w || name == "" {
				continue
			}
			if !slices.Contains(early, name) {
				early = append(early, name)
			}
		}
		return nil, l // a link line whose libraries follow its inputs, or without inputs
	}
	return nil, ""
}

// makeLibsVar finds the Makefile variable whose value holds every one of the flags
// (the early -l flags as written): its name, value and Makefile. The Makefile of the
// directory make was in first (dir, relative), then the tree's others.
func makeLibsVar(ctx context.Context, env Env, dir string, flags []string) (name, value, file string) {
	var names []string
	for _, f := range env.Files {
		if base := path.Base(f); (base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk")) && !noiseDir(f) {
			names = append(names, f)
		}
	}
	slices.SortStableFunc(names, func(a, b string) int {
		ad, bd := path.Dir(a) == dir, path.Dir(b) == dir
		switch {
		case ad && !bd:
			return -1
		case bd && !ad:
			return 1
		}
		return strings.Count(a, "/") - strings.Count(b, "/")
	})
	for _, f := range names[:min(len(names), linkOrderMakefile)] {
		b, err := env.ReadFile(ctx, f)
		if err != nil || len(b) > maxAutotoolsFile {
			continue
		}
		for _, m := range anyMakeAssign.FindAllStringSubmatch(string(b), -1) {
			val := strings.TrimSpace(stripMakeComment(m[3]))
			if m[2] == "+" || m[2] == "!" || strings.HasSuffix(val, `\`) {
				continue
			}
			words := strings.Fields(val)
			if !slices.ContainsFunc(flags, func(fl string) bool { return !slices.Contains(words, fl) }) {
				return m[1], val, f
			}
		}
	}
	return "", "", ""
}

// anyMakeAssign is a Makefile assignment of any variable: name, the operator's
// prefix (: :: ? + !), value.
var anyMakeAssign = re(`(?m)^[ \t]*(?:override[ \t]+|export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*(::?|\?|\+|!)?=[ \t]*(.*)$`)

// stripMakeComment cuts a comment off an assignment's value.
func stripMakeComment(v string) string {
	if i := strings.IndexByte(v, '#'); i >= 0 && (i == 0 || v[i-1] != '\\') {
		return v[:i]
	}
	return v
}

// enteringDir is make's report of the directory a recursive make works in.
var enteringDir = re(`make(?:\[\d+\])?: Entering directory [` + "`" + `'‘]([^'’\n]+)['’]`)

// linkDir is the directory, relative to the repository, that make was in at the link
// line; "." when make did not say or the directory is outside the repository.
func linkDir(text, line, repoDir string) string {
	i := strings.Index(text, line)
	if i < 0 || repoDir == "" {
		return "."
	}
	ms := enteringDir.FindAllStringSubmatch(text[:i], -1)
	if len(ms) == 0 {
		return "."
	}
	rel := strings.TrimPrefix(ms[len(ms)-1][1], strings.TrimSuffix(repoDir, "/")+"/")
	if rel == ms[len(ms)-1][1] || strings.HasPrefix(rel, "..") {
		return "."
	}
	return path.Clean(rel)
}

// asNeededWrap is a variable's value with --as-needed off for it alone.
func asNeededWrap(value string) string {
	return "-Wl,--push-state,--no-as-needed " + value + " -Wl,--pop-state"
}

func makeLinkOrder(ctx context.Context, f Failure, env Env) (*Fix, string) {
	text := f.text()
	syms := UndefinedSymbols(text + "\n" + f.Message)
	if len(syms) == 0 {
		return nil, "no undefined symbol but __atomic_* libcalls in the output"
	}
	if len(syms) > linkSymbolsMax {
		return nil, fmt.Sprintf("%d undefined symbols: more than the search takes", len(syms))
	}
	early, line := earlyLibraries(text)
	if line == "" {
		return nil, "no link line before the undefined references in the output"
	}
	if len(early) == 0 {
		return nil, "the link line names no library before its objects: " + line
	}
	if env.Plan == nil || env.Libraries == nil || env.ReadFile == nil {
		return nil, "no build plan, tree or library search to work with"
	}
	if planHas(*env.Plan, "--no-as-needed") {
		return nil, "the plan already links with --no-as-needed"
	}
	pkgs, _, note := linkCandidates(ctx, env)
	if len(pkgs) == 0 {
		return nil, "no package installed by the plan, a fix or the Build-Depends to search"
	}
	libs, err := env.Libraries(ctx, pkgs, syms)
	if err != nil {
		return nil, fmt.Sprintf("searching the installed libraries: %v", err)
	}
	var defined []string
	for _, l := range libs {
		if slices.Contains(early, l.name()) {
			for _, s := range l.Defines {
				if !slices.Contains(defined, s) {
					defined = append(defined, s)
				}
			}
		}
	}
	if len(defined) < len(syms) {
		why := fmt.Sprintf("the libraries the link line names before its objects (-l%s) define %d of the %d undefined symbols",
			strings.Join(early, " -l"), len(defined), len(syms))
		if note != "" {
			why += "; " + note
		}
		return nil, why
	}
	var flags []string
	for _, l := range early {
		flags = append(flags, "-l"+l)
	}
	name, value, file := makeLibsVar(ctx, env, linkDir(text, line, env.RepoDir), flags)
	if name == "" {
		return nil, "no Makefile variable holds " + strings.Join(flags, " ") + " for make's command line to set"
	}
	val := asNeededWrap(value)
	existing := re(`(?:^|\s)` + name + `=`)
	plan, _, ok := editPlan(*env.Plan, f.Phase, []planEdit{{where: name, do: func(cmd string) (string, bool) {
		if existing.MatchString(cmd) || strings.Contains(cmd, "configure") || strings.Contains(cmd, "cmake") || strings.Contains(cmd, "meson") {
			return cmd, false
		}
		return editWord(cmd, makeCommand, func(word string) string { return word + " " + name + "=" + shellQuote(val) }, existing, "")
	}}})
	if !ok {
		return nil, "no make command in the plan to set " + name + " on"
	}
	return &Fix{
		Analysis: "The link line names " + strings.Join(flags, " ") + " before its objects (" + name + " in " + file + "), and --as-needed, " +
			"Debian's default, drops each library before an object needs it: its undefined references (" + strings.Join(firstFew(syms), ", ") +
			") are all defined by those libraries; the sources are not changed.",
		Strategy: "set " + name + " on make's command line to the Makefile's value with --as-needed off around it (" + val + ")",
		Plan:     &plan,
	}, ""
}
