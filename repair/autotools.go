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

// configScriptSignatures are config.guess and config.sub that predate riscv64.
var configScriptSignatures = []*regexp.Regexp{
	re(`unable to guess system type`),
	re(`cannot guess build type; you must specify one`),
	re(`(?i)machine [‘'` + "`" + `]?riscv64[^'’\s]*['’]? not recognized`),
	re(`(?i)invalid configuration [‘'` + "`" + `]?riscv64`),
	re(`config\.sub: .*riscv64.*not recognized`),
}

// sharedConfigScripts is where the distro keeps current copies (autotools-dev on Debian,
// the same path on Alpine's automake).
const sharedConfigScripts = "/usr/share/misc"

func configScriptsRule() Rule {
	return Rule{
		Name:       "config-scripts",
		Doc:        "config.guess/config.sub older than riscv64: replace the shipped copies with the distro's current ones",
		Signatures: configScriptSignatures,
		Make:       makeConfigScripts,
	}
}

func makeConfigScripts(_ context.Context, _ Failure, env Env) (*Fix, string) {
	var targets []string
	for _, p := range env.Files {
		if b := path.Base(p); (b == "config.guess" || b == "config.sub") && !noiseDir(p) {
			targets = append(targets, p)
		}
	}
	if len(targets) == 0 {
		return nil, "the tree has no config.guess or config.sub to replace"
	}
	slices.Sort(targets)
	pkg := "autotools-dev"
	if env.Platform.PackageManager == "apk" {
		pkg = "automake"
	}
	actions := []atesor.Action{{Type: atesor.ActionCommand, Command: installCommand(env) + " " + pkg}}
	for _, t := range targets {
		actions = append(actions, atesor.Action{Type: atesor.ActionCommand,
			Command: fmt.Sprintf("cp %s/%s %s", sharedConfigScripts, path.Base(t), quoteArg(t))})
	}
	return &Fix{
		Analysis: "The shipped config.guess/config.sub do not know riscv64; the distro's current copies do (the shipped configure is kept).",
		Strategy: "replace " + strings.Join(targets, ", ") + " with current copies from " + sharedConfigScripts,
		Actions:  actions,
	}, ""
}

// noConfigure is a plan running a configure the tree does not have yet.
var noConfigure = re(`(?:\./configure|configure): (?:\d+: )?(?:No such file or directory|not found)|sh: \d+: \./configure: not found|can't open (?:file )?\./configure`)

// staleAutomake is the missing script's report that make wanted a versioned autotools
// program the system does not have.
var staleAutomake = re(`(?:(?:aclocal|automake)-\d+\.\d+: (?:command not found|not found)|WARNING: '(?:aclocal|automake)-\d+\.\d+' is missing on your system)`)

func autoreconfRule() Rule {
	return Rule{
		Name: "autoreconf",
		Doc:  "an autotools tree without a generated configure, or with one its libtool files disagree with: autoreconf -fi with the autotools installed",
		Signatures: []*regexp.Regexp{noConfigure, re(`(?m)^configure\.(?:ac|in):\d+: error: possibly undefined macro`),
			// make's rebuild rules ran automake on a tree that lacks its helper files.
			re(`error: required file '[^']+' not found`),
			// make's rebuild rules asked for the exact automake version that generated the
			// tree (aclocal-1.16), which the distro no longer ships: regenerating with the
			// installed one makes the tree consistent again.
			staleAutomake,
			// A configure generated with an old libtool checks that its ltmain.sh is the
			// same version, and today's grep rejects the check's pattern (zthreads'
			// libtool 1.5.10): the check's own advice is libtoolize, which autoreconf -fi
			// runs. libtool's own mismatch between ltmain.sh and aclocal.m4 is the same.
			libtoolMismatch},
		Make: makeAutoreconf,
	}
}

// libtoolMismatch is a tree whose libtool files are of different versions.
var libtoolMismatch = re(`libtool\.m4 and ltmain\.sh have a version mismatch|(?m)^libtool: Version mismatch error\.  This is libtool`)

func makeAutoreconf(_ context.Context, f Failure, env Env) (*Fix, string) {
	dir, found := autoconfDir(env.Files)
	if !found {
		return nil, "the tree has no configure.ac or configure.in"
	}
	if env.Plan != nil && libtoolMismatch.MatchString(f.text()) {
		// Regenerated in the plan, before its ./configure, rather than once by a fix
		// command: a tree this old often needs more for autoreconf (a macro directory
		// of its own, a package's macros), and a failing autoreconf in the build is an
		// error the rules after this one answer (zthreads' AM_ACLOCAL_INCLUDE, defined
		// in its share/acinclude.m4).
		if plan, regen, ok := withAutoreconf(*env.Plan, f.Phase, env); ok && regen {
			return &Fix{
				Analysis: "The shipped configure was generated with a libtool whose files disagree with the tree's (or whose version check today's grep rejects): " +
					"its own advice is libtoolize, which autoreconf -fi runs, regenerating configure and the libtool files with the installed autotools.",
				Strategy: "run autoreconf -fi before ./configure, with the autotools in the setup",
				Plan:     &plan,
			}, ""
		}
	}
	pkgs := strings.Join(autoconfPackages(env), " ")
	cmd := "autoreconf -fi"
	if dir != "." {
		cmd += " " + quoteArg(dir)
	}
	return &Fix{
		Analysis: "The tree is an autotools source without a generated configure (or with macros of tools not installed); autoreconf generates it.",
		Strategy: "install the autotools and run " + cmd,
		Actions: []atesor.Action{
			{Type: atesor.ActionCommand, Command: installCommand(env) + " " + pkgs},
			{Type: atesor.ActionCommand, Command: cmd},
		},
	}, ""
}

func installCommand(env Env) string {
	if c := strings.TrimSpace(env.Platform.InstallCommand); c != "" {
		return c
	}
	return "apt-get install -y"
}

var plainArg = regexp.MustCompile(`^[A-Za-z0-9._/+-]+$`)

// quoteArg quotes a repository path for a command when it needs it.
func quoteArg(s string) string {
	if plainArg.MatchString(s) {
		return s
	}
	return shellQuote(s)
}
