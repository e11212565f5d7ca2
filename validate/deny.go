package validate

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxNesting bounds how deep sh -c, eval and env -S strings are parsed.
const maxNesting = 4

// DenyRules applies the deny rules of [FixCommand] to every simple command of a shell
// line, parsed with a real shell parser: commands chained with && || ; |, inside
// subshells, blocks, command substitutions, sh -c / bash -c / eval / env -S strings, find
// -exec, and behind wrappers (sudo, doas, env, nice, nohup, timeout, xargs, busybox, ...).
// It rejects:
//
//   - rm (and cmake -E rm, find -delete) of /, of a top-level or system directory, of the
//     home directory, of the whole repository, of anything outside the repository and
//     /tmp, with --no-preserve-root, or of a target only known at run time;
//   - git push, git reset --hard, git clean, git filter-branch, and git aliases set
//     with -c;
//   - touch of a source file (an empty source file is a stub);
//   - writes to system files: redirections, cp, mv, install, ln, tee, sed -i, chmod,
//     chown, truncate, dd, mkdir, patch, tar -C and unzip -d into /etc, /usr (except
//     /usr/local), /bin, /lib, /boot, /dev, /var, ...;
//   - package removal: apt-get/apt remove, purge, autoremove, "apt-get install pkg-",
//     apk del, dpkg -r/-P, rpm -e, yum/dnf remove, pacman -R;
//   - disk, power and process-killing tools, function definitions, and program names
//     only known at run time;
//   - cd, pushd, env -C and cmake -E chdir into /, a system directory or a directory only
//     known at run time (relative paths after it would name system files), and build
//     tools run with -C in a system directory;
//   - code the rules cannot read: a shell fed from a pipe or a file (curl ... | sh; a
//     here-document is parsed like sh -c), python -c, perl -e and other inline
//     interpreter code, awk programs that call system() or pipes, variables that inject
//     code (LD_PRELOAD, BASH_ENV, GIT_SSH_COMMAND, ...), and shell syntax inside the
//     VAR=value of make and ./configure, which recipes run through sh (parsed and checked);
//   - git settings that run commands (-c, git config, GIT_CONFIG_KEY_n, clone -c),
//     --upload-pack and friends, and git checkout/restore of the whole tree, -f and git
//     stash, which throw away earlier fixes like git reset --hard;
//   - package files and unverified installs (apt-get install ./x.deb, dpkg -i,
//     --allow-unauthenticated, apk --allow-untrusted, apt -o hooks).
//   - programs that run a command in another root or namespace, under a debugger or from
//     their input (chroot, unshare, nsenter, gdb, parallel, script without -c), and
//     wrapper options the rules do not know;
//   - toolchain hooks: compiler and linker response files, -specs, -wrapper, -B, plugins,
//     outputs outside the repository in every spelling, go -toolexec and go env -w of
//     settings that name programs, GOFLAGS, RUSTC_WRAPPER, CARGO_* configuration,
//     APT_CONFIG, MAKEFILES, MAKEFLAGS --eval, and archives unpacked outside the
//     repository (tar -C, dpkg-deb -x, unzip -d);
//   - code from outside the distro archive: go run/install/get of remote modules, cargo
//     install, pip, npm, gem and friends;
//   - a file an earlier command of the same line wrote, decoded or downloaded, run as a
//     program or script; a write through a link the line made to outside the repository;
//     a build of a repository the line cloned; writes to the home directory's dotfiles.
//
// cmake -P scripts, make, ./configure and other build code of the repository run
// arbitrary code by design: the rules keep the model's own commands from destroying the
// sandbox, they do not sandbox the package's build.
//
// The sandbox runs every executed line (plan, fix and investigation) through it.
func DenyRules(line string) error {
	f, err := parseLine(line)
	if err != nil {
		return err
	}
	return denyNode(f, 0, false, newFlow())
}

func denyNode(n syntax.Node, depth int, strict bool, fx *flow) error {
	return denyNodeWith(n, depth, strict, fx, nil)
}

// denyNodeWith is denyNode with an extra check of every simple command (the plan rules
// use it to check each command once).
func denyNodeWith(n syntax.Node, depth int, strict bool, fx *flow, extra func(call) error) error {
	var err error
	// cwd follows the cd commands of the line, so that relative paths after cd / are
	// not taken for repository paths. A nested shell string may run after a cd ..
	// of its parent, so it starts one level up.
	cwd := repoDir
	if depth > 0 {
		cwd = path.Dir(repoDir)
	} else if fx != nil {
		fx.inClone = ""
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.FuncDecl:
			err = reject(ruleFuncDecl, printNode(n), "shell functions are not allowed in commands", "write the commands out")
		case *syntax.Redirect:
			err = denyRedirect(n, strict, fx)
		case *syntax.DeclClause:
			err = denyDecl(n, strict, fx)
		case *syntax.Stmt:
			// A line of bare assignments runs nothing itself; the command
			// substitutions in its values are statements the walk visits.
			if c, ok := stmtCall(n); ok {
				c.fx = fx
				if cwd, err = trackCd(c, cwd); err == nil {
					fx.enter(cwd)
					err = denyCall(c, depth, strict)
				}
				if err == nil && extra != nil {
					err = extra(c)
				}
			}
		}
		return err == nil
	})
	return err
}

func denyRedirect(r *syntax.Redirect, strict bool, fx *flow) error {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.DplOut:
	default:
		return nil
	}
	t := evalWord(r.Word)
	for _, v := range t.alts {
		if r.Op == syntax.DplOut && (v == "-" || isDigits(v)) {
			continue
		}
		if isSystemPath(v, strict) {
			return reject(ruleSystemWrite, printNode(r), "the redirection writes to a system file", "write only inside the repository or /tmp; install system files with the package manager")
		}
		if err := denyWriteThrough(call{src: r, fx: fx}, v); err != nil {
			return err
		}
		fx.record(v, "written by a redirection")
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// shells are the programs that run a -c string.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true,
	"csh": true, "tcsh": true, "fish": true, "busybox-sh": true,
}

// stmtCall evaluates the simple command of a statement, with the here-document or
// here-string that feeds its standard input. ok is false for other statements.
func stmtCall(s *syntax.Stmt) (call, bool) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return call{}, false
	}
	c := evalCall(ce)
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			c.stdin = r.Hdoc
		case syntax.WordHdoc:
			c.stdin = r.Word
		case syntax.RdrIn, syntax.RdrInOut:
			if r.N == nil || r.N.Value == "0" {
				c.stdin = nil
			}
		}
	}
	return c, true
}

func joinArgs(args []arg) arg {
	var parts []string
	a := arg{}
	for _, x := range args {
		if !x.static() {
			a.dynamic = true
		}
		parts = append(parts, x.val())
	}
	a.alts = []string{strings.Join(parts, " ")}
	return a
}

func denyCall(c call, depth int, strict bool) error {
	if err := denyAssigns(c, depth, strict); err != nil {
		return err
	}
	inner, nested, done, err := unwrap(c)
	if err != nil {
		return err
	}
	if inner.assigns != nil && len(inner.args) > 0 && inner.args[0].static() {
		// VAR=value words given to env: checked like leading assignments.
		if err := denyAssigns(call{assigns: inner.assigns, src: c.src, fx: c.fx}, depth, strict); err != nil {
			return err
		}
	}
	for _, s := range nested {
		if s.dynamic || len(s.alts) != 1 {
			return reject(ruleLiteralProgram, c.text(), "the shell string is only known at run time", "run the command directly, not through a shell string")
		}
		if depth >= maxNesting {
			return reject(ruleSingle, c.text(), "shell strings are nested too deeply", "run the command directly")
		}
		f, err := parseLine(s.val())
		if err != nil {
			return err
		}
		if err := denyNode(f, depth+1, strict, c.fx); err != nil {
			return err
		}
	}
	if done {
		return nil
	}
	if err := denyFlowExec(inner, execScripts(inner)); err != nil {
		return err
	}
	if err := denyProgram(inner, depth, strict); err != nil {
		return err
	}
	if err := denyHooks(inner, strict); err != nil {
		return err
	}
	recordEffects(inner)
	return nil
}
