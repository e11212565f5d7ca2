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

// A tarball exported from a version-control tree without its m4/ directory (libmpc
// 0.1~r495, musepack's svn export) still calls the project's own macro in configure.ac
// (CHECK_VISIBILITY) and uses the automake conditional that macro defines in every
// Makefile.am ("if HAVE_VISIBILITY"). Nothing defines the macro, so m4 leaves its name
// as text, the AM_CONDITIONAL inside it never happens, and automake refuses each
// Makefile.am: "HAVE_VISIBILITY does not appear in AM_CONDITIONAL". There is no
// configure to fall back on (the export has none), so autoreconf must run.
//
// What a porter does (Debian's 05_visibility.patch) is to replace the call with the
// conditional it would have defined. The rule does the same for every conditional
// automake names, when configure.ac calls a macro the tree defines nowhere whose name
// shares a word with the conditional's (CHECK_VISIBILITY and HAVE_VISIBILITY share
// VISIBILITY): that ties the conditional to the missing macro. The value is false, the
// result of a check that did not run: a Makefile.am's "if" block adds something
// optional (here -fvisibility=hidden), and every platform the check fails on builds
// without it. A conditional tied to no missing macro gets no fix.

// amUndefinedConditional is automake's refusal of a conditional: the Makefile.am, and
// the conditional's name.
var amUndefinedConditional = re(`([A-Za-z0-9_./+-]+\.am):\d+: error: ([A-Za-z_][A-Za-z0-9_]*) does not appear in AM_CONDITIONAL`)

var (
	// m4CallLine is a configure.ac line that is one macro call and nothing else: a
	// bare name, or a name with arguments closed on the same line.
	m4CallLine = re(`^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\(.*\))?[ \t]*(?:dnl.*|#.*)?$`)
	// m4Define is a macro definition in an m4 file: AC_DEFUN, AU_DEFUN,
	// AC_DEFUN_ONCE, m4_define, m4_defun, quoted or not.
	m4Define = re(`(?:AC_DEFUN(?:_ONCE)?|AU_DEFUN|m4_define|m4_defun|define)\(\s*\[?([A-Za-z_][A-Za-z0-9_]*)\]?`)
	// autotoolsMacro are the prefixes of the macros autoconf, automake, libtool,
	// pkg-config and m4 themselves define: those are installed wherever autoreconf runs.
	autotoolsMacro = re(`^(?:_?A[CHMSTU]_|_?LT_|m4_|PKG_|dnl$)`)
)

// conditionalWords are the words of a conditional or macro name that say nothing of
// what it is about (HAVE_, CHECK_, ENABLE_, gnulib's gl_, autoconf-archive's AX_).
var conditionalWords = []string{"have", "check", "use", "enable", "with", "gl", "ax", "is", "has", "build", "support", "can", "want", "do", "find", "test", "c", "cc"}

const maxConditionals = 32

func automakeConditionalRule() Rule {
	return Rule{
		Name: "automake-undefined-conditional",
		Doc: "automake's \"X does not appear in AM_CONDITIONAL\" for a conditional that a macro configure.ac calls but the tarball does not " +
			"ship would define (libmpc's CHECK_VISIBILITY and HAVE_VISIBILITY): the call is replaced by AM_CONDITIONAL([X], [false]), a recorded patch",
		Signatures: []*regexp.Regexp{amUndefinedConditional},
		Make:       makeAutomakeConditional,
	}
}

// nameWords are a macro or conditional name's meaningful words, lower case.
func nameWords(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' }) {
		if !slices.Contains(conditionalWords, w) && len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

// treeMacros are the macros the tree's own m4 files define (m4/*.m4, acinclude.m4,
// aclocal.m4 and any other .m4 file), read up to a bound.
func treeMacros(ctx context.Context, env Env) map[string]bool {
	defined := map[string]bool{}
	n := 0
	for _, f := range env.Files {
		if !strings.HasSuffix(f, ".m4") || noiseDir(f) || n >= 256 {
			continue
		}
		n++
		b, err := env.ReadFile(ctx, f)
		if err != nil || len(b) > maxAutotoolsFile {
			continue
		}
		for _, m := range m4Define.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
	}
	return defined
}

func makeAutomakeConditional(ctx context.Context, f Failure, env Env) (*Fix, string) {
	var conds []string
	for _, m := range amUndefinedConditional.FindAllStringSubmatch(f.text()+"\n"+f.Message, -1) {
		if !slices.Contains(conds, m[2]) && len(conds) < maxConditionals {
			conds = append(conds, m[2])
		}
	}
	if len(conds) == 0 {
		return nil, "no conditional named in automake's output"
	}
	if env.ReadFile == nil {
		return nil, "the tree cannot be read"
	}
	root, ok := autoconfDir(env.Files)
	if !ok {
		return nil, "the tree has no configure.ac or configure.in"
	}
	acFile := ""
	var src string
	for _, name := range []string{"configure.ac", "configure.in"} {
		p := path.Join(root, name)
		if !slices.Contains(env.Files, p) {
			continue
		}
		if b, err := env.ReadFile(ctx, p); err == nil && len(b) <= maxAutotoolsFile {
			acFile, src = p, string(b)
			break
		}
	}
	if acFile == "" {
		return nil, "configure.ac cannot be read"
	}
	for _, c := range conds {
		if re(`AM_CONDITIONAL\(\s*\[?` + regexp.QuoteMeta(c) + `\]?\s*,`).MatchString(src) {
			return nil, fmt.Sprintf("%s does define %s with AM_CONDITIONAL (in a branch or macro automake does not see); the rule leaves it", acFile, c)
		}
	}
	defined := treeMacros(ctx, env)
	lines := strings.SplitAfter(src, "\n")
	// tied: for each line of a missing macro's call, the conditionals it stands for.
	tied := map[int][]string{}
	var calls []string
	left := slices.Clone(conds)
	for i, l := range lines {
		body := strings.TrimRight(l, "\r\n")
		m := m4CallLine.FindStringSubmatch(body)
		if m == nil || autotoolsMacro.MatchString(m[1]) || defined[m[1]] || !strings.ContainsAny(m[1], "_ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			continue
		}
		words := nameWords(m[1])
		for _, c := range slices.Clone(left) {
			if slices.ContainsFunc(nameWords(c), func(w string) bool { return slices.Contains(words, w) }) {
				tied[i] = append(tied[i], c)
				left = slices.DeleteFunc(left, func(s string) bool { return s == c })
			}
		}
		if len(tied[i]) > 0 {
			calls = append(calls, fmt.Sprintf("%s:%d %s (for %s)", acFile, i+1, m[1], strings.Join(tied[i], ", ")))
		}
	}
	if len(left) > 0 {
		return nil, fmt.Sprintf("no macro %s calls that the tree leaves undefined is named like %s", acFile, strings.Join(left, ", "))
	}
	diff := replaceLinesDiff(acFile, lines, tied)
	var defs []string
	for _, c := range conds {
		defs = append(defs, "AM_CONDITIONAL(["+c+"], [false])")
	}
	return &Fix{
		Analysis: "automake refuses the Makefile.am conditionals " + strings.Join(conds, ", ") + " because nothing defines them: " +
			strings.Join(calls, "; ") + " is a macro the tarball does not ship (no m4 file of the tree defines it), so m4 leaves its name as text and the AM_CONDITIONAL in it never happens. " +
			"The call is replaced by the conditionals, false as a check that did not run would leave them: what their Makefile.am blocks add is left out.",
		Strategy: "replace the missing macro's call in " + acFile + " with " + strings.Join(defs, " "),
		Actions:  []atesor.Action{{Type: atesor.ActionPatch, File: acFile, Diff: diff}},
	}, ""
}

// replaceLinesDiff is a unified diff of lines (a file split after each newline) with
// each line in tied replaced by AM_CONDITIONAL([X], [false]) lines, one per conditional.
func replaceLinesDiff(p string, lines []string, tied map[int][]string) string {
	var idx []int
	for i := range tied {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", p, p)
	shift := 0
	for _, i := range idx {
		old := strings.TrimSuffix(lines[i], "\n")
		cr := ""
		if strings.HasSuffix(old, "\r") {
			cr = "\r"
		}
		fmt.Fprintf(&b, "@@ -%d +%d,%d @@\n-%s\n", i+1, i+1+shift, len(tied[i]), old)
		if !strings.HasSuffix(lines[i], "\n") {
			b.WriteString("\\ No newline at end of file\n")
		}
		for _, c := range tied[i] {
			fmt.Fprintf(&b, "+AM_CONDITIONAL([%s], [false])%s\n", c, cr)
		}
		shift += len(tied[i]) - 1
	}
	return b.String()
}
