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

// gettextMismatch is the check-macro-version target of gettext's po/Makefile.in.in: the
// Makefile.in.in in po/ records the gettext version it came from (GETTEXT_MACRO_VERSION)
// and stops the build when configure's po.m4 is from another one. The groups are the
// two versions.
var gettextMismatch = re(`gettext infrastructure mismatch: using a Makefile\.in\.in from gettext version (\S+) but the autoconf macros are from gettext version (\S+)`)

// gettextPinned is configure.ac's AM_GNU_GETTEXT_VERSION call, with its version in group
// 2: autopoint installs the infrastructure of exactly that version.
var gettextPinned = regexp.MustCompile(`(?m)^([ \t]*)AM_GNU_GETTEXT_VERSION\(\s*\[?\s*([0-9][0-9.]*)\s*\]?\s*\)`)

// gettextRequire is the call that asks autopoint for the installed gettext's
// infrastructure, the version only a minimum (gettext 0.19.6 and later).
var gettextRequire = regexp.MustCompile(`(?m)^[ \t]*AM_GNU_GETTEXT_REQUIRE_VERSION\(`)

// maxConfigureAC bounds the configure.ac (and configure.in) files one fix reads.
const maxConfigureAC = 16

func gettextVersionRule() Rule {
	return Rule{
		Name: "gettext-version-mismatch",
		Doc: "po/Makefile.in.in from an older gettext than the autoconf macros configure was made with (AM_GNU_GETTEXT_VERSION pins autopoint to the old " +
			"infrastructure while aclocal --install takes the installed gettext's newer po.m4): configure.ac asks for the installed gettext with " +
			"AM_GNU_GETTEXT_REQUIRE_VERSION (a recorded patch), and autoreconf -fi, whose autopoint --force installs the matching po/ files, runs before ./configure",
		Signatures: []*regexp.Regexp{gettextMismatch},
		Make:       makeGettextVersion,
	}
}

// autoconfInputs lists the tree's configure.ac and configure.in files, the top one first.
func autoconfInputs(files []string) []string {
	var out []string
	for _, p := range files {
		if b := path.Base(p); (b == "configure.ac" || b == "configure.in") && !noiseDir(p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := strings.Count(a, "/") - strings.Count(b, "/"); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	if len(out) > maxConfigureAC {
		out = out[:maxConfigureAC]
	}
	return out
}

// gettextPackages are the packages autoreconf needs to install gettext's po/ files.
func gettextPackages(env Env) []string {
	if env.Platform.PackageManager == "apk" {
		return []string{"gettext-dev"}
	}
	return []string{"autopoint"}
}

func makeGettextVersion(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil || len(env.Files) == 0 {
		return nil, "no build files, no file list or no plan"
	}
	m := gettextMismatch.FindStringSubmatch(f.Message)
	if m == nil {
		m = gettextMismatch.FindStringSubmatch(f.text())
	}
	if m == nil {
		return nil, "no gettext versions named"
	}
	from, macros := m[1], m[2]
	inputs := autoconfInputs(env.Files)
	if len(inputs) == 0 {
		return nil, "the tree has no configure.ac or configure.in: not an autotools build"
	}
	var actions []atesor.Action
	var where []string
	required := false
	for _, ac := range inputs {
		b, err := env.ReadFile(ctx, ac)
		if err != nil || len(b) > maxAutotoolsFile {
			continue
		}
		src := string(b)
		if gettextRequire.MatchString(src) {
			required = true
		}
		locs := gettextPinned.FindAllStringSubmatchIndex(src, -1)
		if len(locs) == 0 {
			continue
		}
		next := gettextPinned.ReplaceAllString(src, "${1}AM_GNU_GETTEXT_REQUIRE_VERSION([${2}])")
		if diff, ok := changedLinesDiff(ac, src, next); ok {
			actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: ac, Diff: diff})
			line := strings.Count(src[:locs[0][0]], "\n") + 1
			where = append(where, fmt.Sprintf("%s:%d pins AM_GNU_GETTEXT_VERSION([%s])", ac, line, src[locs[0][4]:locs[0][5]]))
		}
	}
	plan, regen, ok := withAutoreconf(*env.Plan, f.Phase, env)
	if !ok {
		return nil, "no ./configure command in the plan to regenerate before"
	}
	if len(actions) == 0 {
		if !required {
			return nil, "no configure.ac calls AM_GNU_GETTEXT_VERSION or AM_GNU_GETTEXT_REQUIRE_VERSION: autopoint installs no po/ infrastructure for it"
		}
		if !regen {
			return nil, "configure.ac already asks for the installed gettext (AM_GNU_GETTEXT_REQUIRE_VERSION) and the plan already runs autoreconf: the mismatch has another cause"
		}
	}
	analysis := fmt.Sprintf("po/Makefile.in.in is from gettext %s, the autoconf macros configure was generated with are from gettext %s, and the po/ Makefile's check-macro-version "+
		"stops the build on the difference. ", from, macros)
	if len(actions) > 0 {
		analysis += "The pinned version (" + strings.Join(where, "; ") + ") makes autopoint install the old infrastructure while aclocal --install " +
			"takes the installed gettext's po.m4, whose serial is higher. AM_GNU_GETTEXT_REQUIRE_VERSION keeps the version as a minimum and lets autopoint --force " +
			"install the installed gettext's po/ files, so autoreconf -fi regenerates po/ and configure from one gettext; the program and its translations do not change."
	} else {
		analysis += "configure.ac already asks for the installed gettext, so autoreconf -fi (autopoint --force) regenerates po/ and configure from one gettext."
	}
	fix := &Fix{Analysis: analysis, Actions: actions}
	// autopoint must be in the setup for the plan's autoreconf to reinstall po/ (a fix
	// action that installed it is not part of the recipe).
	withPoint := withPackages(plan, env, gettextPackages(env))
	installs := !samePlan(withPoint, plan)
	var strategy []string
	if len(actions) > 0 {
		strategy = append(strategy, "replace AM_GNU_GETTEXT_VERSION with AM_GNU_GETTEXT_REQUIRE_VERSION in "+strings.Join(patchedFiles(actions), " and "))
	}
	switch {
	case regen:
		strategy = append(strategy, "run autoreconf -fi before ./configure with the autotools and "+strings.Join(gettextPackages(env), " ")+" installed")
	case installs:
		strategy = append(strategy, "install "+strings.Join(gettextPackages(env), " ")+" in the setup for the plan's autoreconf -fi")
	default:
		strategy = append(strategy, "let the plan's autoreconf -fi reinstall po/ from the installed gettext")
	}
	if regen || installs {
		fix.Plan = &withPoint
	}
	fix.Strategy = strings.Join(strategy, ", and ")
	return fix, ""
}
