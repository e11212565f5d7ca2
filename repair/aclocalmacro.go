package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// configureSyntaxError is the shell stopping in a generated configure (bash's and dash's
// wording), the script's line number in group 1.
var configureSyntaxError = re(`(?m)configure: (?:line )?(\d+): (?:syntax error near unexpected token|Syntax error:)`)

// configureQuotedLine is bash's second line of the report, quoting the line it stopped
// at; an m4 macro call left in the script starts it (AX_CXX_COMPILE_STDCXX_17(noext,
// mandatory)), the name in group 2.
var configureQuotedLine = re("(?m)configure: line (\\d+): `\\s*([A-Z][A-Z0-9_]*[A-Z0-9])\\(")

// undefinedMacro is autoconf refusing a macro name it knows is one (a forbidden
// pattern such as AX_ with m4_pattern_forbid, or A[CHMS]_), the name in group 1. A call
// from another macro's expansion is reported at the line of the configure it writes
// (guile-cairo 1.12.0's "configure:15248: error: possibly undefined macro:
// AC_LIB_LINKFLAGS_FROM_LIBS").
var undefinedMacro = re(`(?m)configure(?:\.(?:ac|in))?:\d+: error: possibly undefined macro: ([A-Z][A-Z0-9_]*[A-Z0-9])`)

// macroCall is a configure line that is an m4 macro call autoconf did not expand.
var macroCall = regexp.MustCompile(`^\s*([A-Z][A-Z0-9_]*[A-Z0-9])\(`)

// aclocalMacro is a family of autoconf macros, by name prefix, and the Debian package
// that installs its definitions in /usr/share/aclocal, as trixie's Contents lists them
// (ax_*.m4 in autoconf-archive, pkg.m4 in pkgconf, gtk-doc.m4 in gtk-doc-tools, ...).
// apk names the alpine package where it has the same macros.
type aclocalMacro struct {
	prefix, deb, apk string
}

// aclocalMacros is the table, longest prefixes first where two share a start.
var aclocalMacros = []aclocalMacro{
	{"AX_", "autoconf-archive", "autoconf-archive"},
	{"PKG_", "pkgconf", "pkgconf"},
	{"GTK_DOC_", "gtk-doc-tools", ""},
	{"IT_PROG_INTLTOOL", "intltool", "intltool"},
	{"AC_PROG_INTLTOOL", "intltool", "intltool"},
	{"GOBJECT_INTROSPECTION_", "gobject-introspection-bin", ""},
	{"AM_PATH_GLIB_2_0", "libglib2.0-dev", "glib-dev"},
	{"GLIB_GSETTINGS", "libglib2.0-dev", "glib-dev"},
	{"GLIB_GNU_GETTEXT", "libglib2.0-dev", "glib-dev"},
	{"AM_GNU_GETTEXT", "gettext", "gettext-dev"},
	{"AM_ICONV", "gettext", "gettext-dev"},
	{"AM_NLS", "gettext", "gettext-dev"},
	{"AC_LIB_", "gettext", "gettext-dev"},
	{"XORG_", "xutils-dev", "util-macros"},
	{"AM_PATH_LIBGCRYPT", "libgcrypt20-dev", "libgcrypt-dev"},
	{"AM_PATH_GPG_ERROR", "libgpg-error-dev", "libgpg-error-dev"},
	{"AM_PATH_GPGME", "libgpgme-dev", "gpgme-dev"},
	{"AM_PATH_LIBASSUAN", "libassuan-dev", "libassuan-dev"},
	{"AM_PATH_KSBA", "libksba-dev", "libksba-dev"},
	{"AM_PATH_SDL", "libsdl1.2-dev", ""},
	{"AM_PATH_CHECK", "check", "check-dev"},
	{"AM_PATH_ALSA", "libasound2-dev", "alsa-lib-dev"},
	{"XIPH_PATH_OGG", "libogg-dev", "libogg-dev"},
	{"XIPH_PATH_VORBIS", "libvorbis-dev", "libvorbis-dev"},
	{"XIPH_PATH_AO", "libao-dev", ""},
	{"YELP_HELP_INIT", "yelp-tools", ""},
	{"VAPIGEN_", "valac", "vala"},
	{"LT_INIT", "libtool", "libtool"},
	{"AC_PROG_LIBTOOL", "libtool", "libtool"},
}

// macroPackage is the package that defines macro on the platform, "" when the table
// has none.
func macroPackage(macro string, env Env) string {
	for _, m := range aclocalMacros {
		if strings.HasPrefix(macro, m.prefix) {
			if env.Platform.PackageManager == "apk" {
				return m.apk
			}
			return m.deb
		}
	}
	return ""
}

func aclocalMacroRule() Rule {
	return Rule{
		Name: "aclocal-macro-package",
		Doc: "configure stops at an m4 macro call autoconf left unexpanded (AX_CXX_COMPILE_STDCXX_17(noext, mandatory): syntax error), or autoconf " +
			"names a possibly undefined macro: the package that installs the macro's definition in /usr/share/aclocal (autoconf-archive for AX_, ...) " +
			"joins the setup and autoreconf -fi regenerates configure before it runs",
		Signatures: []*regexp.Regexp{configureSyntaxError, undefinedMacro},
		Make:       makeAclocalMacro,
	}
}

// unexpandedMacro returns the macro the failure stopped at and where it says so: the
// name autoconf reported, the line bash quoted, or the line of the tree's configure
// that dash gave only the number of.
func unexpandedMacro(ctx context.Context, f Failure, env Env) (macro, where string) {
	for _, text := range []string{f.Message, f.text()} {
		if m := undefinedMacro.FindStringSubmatch(text); m != nil {
			return m[1], "autoconf: possibly undefined macro " + m[1]
		}
		if m := configureQuotedLine.FindStringSubmatch(text); m != nil {
			return m[2], "configure line " + m[1] + " is the call " + m[2] + "(...)"
		}
	}
	m := configureSyntaxError.FindStringSubmatch(f.text())
	if m == nil || env.ReadFile == nil {
		return "", ""
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return "", ""
	}
	dir, _ := autoconfDir(env.Files)
	script := path.Join(dir, "configure")
	b, err := env.ReadFile(ctx, script)
	if err != nil || len(b) > 8*maxAutotoolsFile {
		return "", ""
	}
	lines := strings.Split(string(b), "\n")
	if n > len(lines) {
		return "", ""
	}
	if c := macroCall.FindStringSubmatch(lines[n-1]); c != nil {
		return c[1], fmt.Sprintf("%s line %d is the call %s(...)", script, n, c[1])
	}
	return "", ""
}

func makeAclocalMacro(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no plan to regenerate configure in"
	}
	if _, ok := autoconfDir(env.Files); !ok {
		return nil, "the tree has no configure.ac or configure.in: configure cannot be regenerated"
	}
	macro, where := unexpandedMacro(ctx, f, env)
	if macro == "" {
		return nil, "the syntax error is not at an m4 macro call"
	}
	plan, regen, ok := withAutoreconf(*env.Plan, f.Phase, env)
	if !ok {
		return nil, "no ./configure command in the plan to regenerate before"
	}
	treeNote := "no .m4 file of the tree defines it"
	if def, found := treeMacroFile(ctx, env, macro); found {
		fix, why := treeMacroFix(plan, macro, def, where)
		if fix != nil {
			return fix, ""
		}
		treeNote = why // the tree's copy is searched already: a package's may be the one that works
	}
	pkg := macroPackage(macro, env)
	if pkg == "" {
		return nil, "no package known to define " + macro + ", and " + treeNote
	}
	next := withPackages(plan, env, []string{pkg})
	installs := !samePlan(next, plan)
	if !regen && !installs {
		return nil, pkg + " is in the setup and the plan regenerates configure already: " + macro + " is undefined for another reason"
	}
	strategy := "install " + pkg + " in the setup"
	if regen {
		strategy += " and run autoreconf -fi before ./configure"
	} else {
		strategy += " for the plan's autoreconf -fi"
	}
	return &Fix{
		Analysis: fmt.Sprintf("configure was generated without the definition of %s (%s): autoconf copies a macro it does not know into the script as text, "+
			"where the shell stops at it. %s installs the definition in /usr/share/aclocal, where aclocal finds it, so autoreconf -fi expands the call.", macro, where, pkg),
		Strategy: strategy,
		Plan:     &next, // the changed setup installs pkg when the plan runs again
	}, ""
}

// maxTreeM4 bounds the tree's .m4 files the rule reads for a definition.
const maxTreeM4 = 256

// bootstrapScripts are the scripts a tree's autotools build is generated with, whose
// aclocal -I options name the tree's macro directories.
var bootstrapScripts = []string{"autogen.sh", "bootstrap", "bootstrap.sh", "autogen", "buildconf", "reconf"}

// aclocalInclude is an -I option in such a script.
var aclocalInclude = regexp.MustCompile(`(?:^|\s)-I\s*([A-Za-z0-9._/+-]+)`)

// treeMacroFile returns the .m4 file of the tree that defines macro with AC_DEFUN or
// AU_DEFUN. Of several, the one in a directory the bootstrap script passes to aclocal
// wins (netperf's autogen.sh names src/missing/m4, beside an older copy in m4/m4), then
// the one among the most .m4 files (the directory likely to define the other macros
// too), then the first by path.
func treeMacroFile(ctx context.Context, env Env, macro string) (string, bool) {
	if env.ReadFile == nil {
		return "", false
	}
	def := regexp.MustCompile(`(?m)^\s*(?:AC|AU)_DEFUN\(\s*\[?` + regexp.QuoteMeta(macro) + `\]?\s*,`)
	var m4s []string
	perDir := map[string]int{}
	for _, p := range env.Files {
		if strings.HasSuffix(p, ".m4") && !noiseDir(p) && p != "aclocal.m4" {
			m4s = append(m4s, p)
			perDir[path.Dir(p)]++
		}
	}
	slices.Sort(m4s)
	var named []string
	for _, sc := range bootstrapScripts {
		if !slices.Contains(env.Files, sc) {
			continue
		}
		if b, err := env.ReadFile(ctx, sc); err == nil && len(b) <= maxAutotoolsFile {
			for _, m := range aclocalInclude.FindAllStringSubmatch(string(b), 16) {
				named = append(named, path.Clean(m[1]))
			}
		}
	}
	best, bestScore := "", -1
	for i, p := range m4s {
		if i == maxTreeM4 {
			break
		}
		b, err := env.ReadFile(ctx, p)
		if err != nil || len(b) > maxAutotoolsFile || !def.Match(b) {
			continue
		}
		score := perDir[path.Dir(p)]
		if slices.Contains(named, path.Dir(p)) {
			score += 1 << 20
		}
		if score > bestScore {
			best, bestScore = p, score
		}
	}
	return best, best != ""
}

// autoreconfCall is an autoreconf command in a plan line and its options.
var autoreconfCall = regexp.MustCompile(`\bautoreconf((?:\s+-[A-Za-z]+)*)`)

// treeMacroFix is the fix for a macro the tree defines in def, in a directory aclocal
// is not told to search (netperf's AC_CHECK_SA_LEN in src/missing/m4, which its
// autogen.sh passes to aclocal with -I): every autoreconf of the plan gets -I with it.
func treeMacroFix(plan atesor.BuildPlan, macro, def, where string) (*Fix, string) {
	dir := path.Dir(def)
	flag := "-I " + quoteArg(dir)
	changed := false
	phases := slices.Clone(plan.Phases)
	for i, ph := range phases {
		cmds := slices.Clone(ph.Commands)
		for j, c := range cmds {
			if strings.Contains(c, "autoreconf") && !strings.Contains(c, flag) {
				cmds[j] = autoreconfCall.ReplaceAllString(c, "autoreconf${1} "+flag)
				changed = changed || cmds[j] != c
			}
		}
		phases[i].Commands = cmds
	}
	if !changed {
		return nil, def + " defines " + macro + " and the plan's autoreconf already searches " + dir + ": it is undefined for another reason"
	}
	plan.Phases = phases
	return &Fix{
		Analysis: fmt.Sprintf("%s (%s) is defined in the tree's own %s, in a directory neither configure.ac's AC_CONFIG_MACRO_DIR nor "+
			"Makefile.am's ACLOCAL_AMFLAGS names, so aclocal does not read it (the project's own bootstrap script passes it with -I). "+
			"autoreconf passes -I %s on to aclocal and autoconf.", macro, where, def, dir),
		Strategy: "run autoreconf with " + flag,
		Plan:     &plan,
	}, ""
}
