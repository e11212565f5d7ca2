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

// A repacked tarball drops the files whose licence the distribution does not accept,
// and the Windows-only ones are among the first to go: iperf 2.2.1+dfsg lacks
// src/service.c and its service.h (the Windows service wrapper), which src/Makefile.am
// still lists in iperf_SOURCES, so make stops at "No rule to make target 'service.c',
// needed by 'service.o'". Nothing outside Windows uses it: the tree includes service.h
// only under #ifdef WIN32. The porter drops the file from the list, as Debian's patch
// does, and regenerates the Makefile.in files. When any include of its header is
// outside a Windows conditional, or nothing includes it at all, the rule does not know
// that the build can do without the file, and leaves it (inventing it would be a stub).

const windowsSourceRuleName = "automake-windows-source"

// windowsMacro is a macro only a Windows compiler or environment defines.
var windowsMacro = re(`\b(?:_?WIN32|_WIN64|__WIN32__|__WINDOWS__|_WINDOWS|_MSC_VER|__MINGW32__|__MINGW64__|__CYGWIN__)\b`)

// maxIncluderFiles and maxIncluderBytes bound the C and C++ files the rule reads for
// the includes of a stripped source's header.
const (
	maxIncluderFiles = 4096
	maxIncluderBytes = 64 << 20
)

func windowsSourceRule() Rule {
	return Rule{
		Name: windowsSourceRuleName,
		Doc: "make has no rule for a C or C++ source a Makefile.am lists and the tarball lacks, whose header the tree includes only under a Windows conditional " +
			"(iperf's repack strips src/service.c, the Windows service wrapper): drop it from the _SOURCES list, as the distribution's patch does, then autoreconf",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryDependency, atesor.CategoryConfiguration, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{makeNoRuleSource},
		Make:       makeWindowsSource,
	}
}

func makeWindowsSource(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil || len(env.Files) == 0 {
		return nil, "no build files, no file list or no plan"
	}
	if kind, ok := planConfigureKind(*env.Plan, f.Phase); !ok || kind.name != autotoolsKind.name {
		return nil, "the plan does not build with the autotools"
	}
	m := makeNoRuleSource.FindStringSubmatch(f.Message)
	if m == nil {
		m = makeNoRuleSource.FindStringSubmatch(f.text())
	}
	if m == nil {
		return nil, "no missing source named"
	}
	missing := path.Clean(m[1])
	am, src, a, w, ok := strippedSource(ctx, env, missing)
	if !ok {
		return nil, "no Makefile.am lists " + missing + " in a _SOURCES variable while the tree lacks it"
	}
	if len(a.words) < 2 {
		return nil, fmt.Sprintf("%s:%d %s lists %s alone: without it the target has no sources", am, a.line, a.name, missing)
	}
	stem := strings.TrimSuffix(path.Base(missing), path.Ext(missing))
	guarded, why := windowsIncludes(ctx, env, stem)
	if why != "" {
		return nil, why
	}
	next := dropSpans(src, []span{w.at})
	diff, ok := changedLinesDiff(am, src, next)
	if !ok {
		return nil, "dropping " + missing + " changes no line of " + am
	}
	plan, regen, ok := withAutoreconf(*env.Plan, f.Phase, env)
	if !ok {
		return nil, "no ./configure command in the plan to regenerate before"
	}
	fix := &Fix{
		Analysis: fmt.Sprintf("make has no rule for %s: the tarball lacks it (a repacked source strips files whose licence the distribution does not accept), yet %s:%d %s still lists it. "+
			"Only Windows uses it: the tree includes its header only under a Windows conditional (%s). The build drops it from the list, as the distribution's own patch does, "+
			"and regenerates the Makefile.in files; no other source changes, and a link that still needs it fails and says so.",
			missing, am, a.line, a.name, strings.Join(guarded, "; ")),
		Strategy: fmt.Sprintf("drop %s from %s's %s", missing, am, a.name),
		Actions:  []atesor.Action{{Type: atesor.ActionPatch, File: am, Diff: diff}},
	}
	if regen {
		fix.Strategy += ", and run autoreconf -fi before ./configure"
		fix.Plan = &plan
	}
	return fix, ""
}

// strippedSource finds the Makefile.am that lists missing (as make named it, relative
// to the Makefile.am's directory) in a _SOURCES variable while the tree lacks it: the
// file, its text, the assignment and the word.
func strippedSource(ctx context.Context, env Env, missing string) (am, src string, a amAssign, w m4Word, ok bool) {
	read := 0
	for _, p := range env.Files {
		if path.Base(p) != "Makefile.am" || noiseDir(p) {
			continue
		}
		if read++; read > maxAMFiles {
			break
		}
		if slices.Contains(env.Files, path.Join(path.Dir(p), missing)) {
			continue
		}
		b, err := env.ReadFile(ctx, p)
		if err != nil || len(b) > maxAutotoolsFile {
			continue
		}
		if a, w, ok := sourcesWord(string(b), missing); ok {
			return p, string(b), a, w, true
		}
	}
	return "", "", amAssign{}, m4Word{}, false
}

// sourcesWord finds missing among the words of a Makefile.am's _SOURCES variables.
func sourcesWord(src, missing string) (amAssign, m4Word, bool) {
	for _, a := range amAssignments(src) {
		if !strings.HasSuffix(a.name, "_SOURCES") {
			continue
		}
		for _, w := range a.words {
			if path.Clean(w.text) == missing {
				return a, w, true
			}
		}
	}
	return amAssign{}, m4Word{}, false
}

// windowsIncludes returns where the tree includes the header of stem (stem.h, .hh,
// .hpp or .hxx, in any directory), each inside a Windows conditional; or why the
// stripped source may be needed elsewhere: an include outside one, or none at all.
func windowsIncludes(ctx context.Context, env Env, stem string) ([]string, string) {
	include := regexp.MustCompile(`^[ \t]*#[ \t]*include[ \t]*[<"](?:[^<>"]*/)?` + regexp.QuoteMeta(stem) + `\.(?:h|hh|hpp|hxx)[>"]`)
	var guarded []string
	files, bytes := 0, 0
	for _, p := range env.Files {
		if !cxxSourceFile(p) || noiseDir(p) {
			continue
		}
		if files++; files > maxIncluderFiles || bytes > maxIncluderBytes || ctx.Err() != nil {
			return nil, "the tree has more C and C++ files than the rule reads for the includes of " + stem + "'s header"
		}
		b, err := env.ReadFile(ctx, p)
		if err != nil {
			continue
		}
		bytes += len(b)
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			if !include.MatchString(l) {
				continue
			}
			cond, ok := windowsBranch(lines, i)
			if !ok {
				return nil, fmt.Sprintf("%s:%d includes %s's header outside a Windows conditional, so the build may need what the stripped source defines", p, i+1, stem)
			}
			guarded = append(guarded, fmt.Sprintf("%s:%d, under %s", p, i+1, cond))
		}
	}
	if len(guarded) == 0 {
		return nil, "nothing in the tree includes " + stem + "'s header, so nothing says the build can do without the stripped source"
	}
	return guarded, ""
}

// windowsBranch reports whether line at of a C file is inside a branch of a #if that
// only Windows takes (#ifdef WIN32, #if defined(_WIN32), the #else of #ifndef _WIN32),
// and that branch's directive.
func windowsBranch(lines []string, at int) (string, bool) {
	type frame struct {
		windows bool   // the current branch is Windows-only
		elseWin bool   // the #else of this #if is Windows-only (#ifndef WIN32)
		text    string // the current branch's directive
	}
	var stack []frame
	for _, l := range lines[:at] {
		d := ppDirective.FindStringSubmatch(l)
		if d == nil {
			continue
		}
		cond := strings.TrimSpace(d[2])
		if c := strings.Index(cond, "//"); c >= 0 {
			cond = strings.TrimSpace(cond[:c])
		}
		if c := strings.Index(cond, "/*"); c >= 0 {
			cond = strings.TrimSpace(cond[:c])
		}
		text := "#" + d[1] + " " + cond
		switch d[1] {
		case "ifdef":
			stack = append(stack, frame{windows: windowsMacro.MatchString(cond), text: text})
		case "ifndef":
			stack = append(stack, frame{elseWin: windowsMacro.MatchString(cond), text: text})
		case "if":
			stack = append(stack, frame{windows: windowsOnlyTest(cond), elseWin: notWindowsTest(cond), text: text})
		case "elif":
			if len(stack) > 0 {
				fr := &stack[len(stack)-1]
				fr.windows, fr.elseWin, fr.text = windowsOnlyTest(cond), false, text
			}
		case "else":
			if len(stack) > 0 {
				fr := &stack[len(stack)-1]
				fr.windows, fr.text = fr.elseWin, "#else of "+fr.text
			}
		case "endif":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].windows {
			return stack[i].text, true
		}
	}
	return "", false
}

// windowsOnlyTest reports whether a #if condition holds on Windows alone: it tests a
// Windows macro, negates nothing and joins no alternative with ||.
func windowsOnlyTest(cond string) bool {
	return windowsMacro.MatchString(cond) && !strings.Contains(cond, "!") && !strings.Contains(cond, "||")
}

// notWindowsTest reports whether a #if condition is the negation of one Windows macro
// (!defined(_WIN32), !_WIN32), whose #else is Windows alone.
func notWindowsTest(cond string) bool {
	c := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cond), "!"))
	return strings.HasPrefix(strings.TrimSpace(cond), "!") && windowsOnlyTest(c) && !strings.Contains(c, "&&")
}
