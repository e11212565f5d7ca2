package validate

import (
	"path"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// deniedEnv are variables a leading assignment must not set: they change which program
// runs or inject code into every program.
var deniedEnv = map[string]bool{
	"PATH": true, "LD_PRELOAD": true, "LD_AUDIT": true, "BASH_ENV": true, "ENV": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "IFS": true, "PROMPT_COMMAND": true,
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EXEC_PATH": true, "GIT_EXTERNAL_DIFF": true,
	"GIT_PAGER": true, "GIT_EDITOR": true, "GIT_ASKPASS": true, "PAGER": true, "EDITOR": true,
	"VISUAL": true, "GCONV_PATH": true, "HOSTALIASES": true, "MAKESHELL": true, "SHELL": true,
}

// refusedPrograms are programs SingleCommand names explicitly, with what to do instead.
var refusedPrograms = map[string]string{
	"sudo":    "commands already run as root in the sandbox; drop sudo",
	"doas":    "commands already run as root in the sandbox; drop doas",
	"su":      "commands already run as root in the sandbox; run the command directly",
	"docker":  "the sandbox is the build machine; run the build command directly",
	"podman":  "the sandbox is the build machine; run the build command directly",
	"eval":    "write the command directly",
	"exec":    "write the command directly",
	"source":  "set variables as VAR=value before the command",
	".":       "set variables as VAR=value before the command",
	"env":     "set variables as VAR=value before the command",
	"xargs":   "write each command out",
	"cd":      "each command starts in the repository root; use make -C dir, cmake -S/-B, meson -C or ninja -C",
	"export":  "set variables as VAR=value before the command",
	"curl":    "install packages with the package manager; config.guess and config.sub are in /usr/share/misc",
	"wget":    "install packages with the package manager; config.guess and config.sub are in /usr/share/misc",
	"python":  "run the package's own scripts as ./script, or use the build system",
	"python3": "run the package's own scripts as ./script, or use the build system",
	"perl":    "run the package's own scripts as ./script, or use the build system",
	"awk":     "use sed for text edits",
	"chroot":  "run the command directly",
}

// checker checks the arguments of an allowed program. nil means any arguments.
type checker func(c call, args []arg) error

// allowed is the allow list of SingleCommand.
func allowed(name string) (checker, bool) {
	switch name {
	case "make", "gmake":
		return checkMake, true
	case "cmake":
		return checkCMake, true
	case "meson":
		return checkMeson, true
	case "go":
		return checkGo, true
	case "gcc", "g++", "cc", "c++", "clang", "clang++", "cpp", "gfortran", "ld", "as":
		return checkCompiler, true
	case "apt-get", "apt":
		return checkAptSingle, true
	case "apk":
		return checkApkSingle, true
	case "dpkg":
		return checkDpkg, true
	case "sed":
		return checkSedSingle, true
	case "rm":
		return checkRmSingle, true
	case "git":
		return checkGitSingle, true
	case "find":
		return checkFindReadOnly, true
	case "tail":
		return checkTail, true
	case "ldconfig":
		return checkLdconfig, true
	case "sh", "bash", "dash":
		return checkShellScript, true
	case "ctest", "ninja", "samu", "cargo", "rustc", "ar", "ranlib", "strip", "objcopy",
		"autoreconf", "autoconf", "automake", "aclocal", "autoheader", "autopoint", "autoupdate",
		"libtoolize", "glibtoolize", "libtool", "gettextize", "intltoolize", "gtkdocize",
		"pkg-config", "pkgconf", "bison", "flex", "yacc", "lex", "m4", "gperf", "scons",
		"apt-cache", "dpkg-query", "dpkg-architecture",
		"cp", "mv", "mkdir", "ln", "chmod", "touch", "rmdir", "install", "tar", "unzip",
		"gzip", "gunzip", "xz", "unxz", "bzip2", "bunzip2", "zstd", "unzstd", "patch",
		"cat", "head", "ls", "grep", "egrep", "fgrep", "file", "stat", "wc", "readelf", "nm",
		"objdump", "ldd", "which", "echo", "printf", "pwd", "diff", "cmp", "sha256sum",
		"md5sum", "uname", "nproc", "getconf", "true":
		return nil, true
	}
	return nil, false
}

func allowedNames() string {
	names := []string{"make", "cmake", "ninja", "meson", "cargo", "go", "gcc", "g++", "cc", "c++",
		"autoreconf", "autoconf", "automake", "aclocal", "libtoolize", "pkg-config", "./configure",
		"./<script>", "apt-get install", "apk add", "sed", "cp", "mv", "mkdir", "ln", "chmod",
		"patch", "tar", "git", "rm <repo path>", "touch <non-source file>"}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// SingleCommand checks that cmd is exactly one simple command that Atesor may run for a
// fix: no &&, ||, ;, |, redirections, $(...), backticks, subshells, background jobs or
// several lines; leading VAR=value assignments are fine (not PATH, LD_PRELOAD and the
// like); plain $NAME expansions are fine in arguments; the program is a literal name on
// the allow list of build, file and package tools (make, cmake, ninja, meson, cargo, go,
// gcc, g++, autotools, pkg-config, ./configure and other ./ scripts, apt-get/apt/apk for
// installs, sed, cp, mv, mkdir, ln, chmod, patch, tar, git for reading and local changes,
// rm of repository paths, touch of non-source files, read-only tools such as ls and cat),
// with per-program argument rules; and the deny rules of [DenyRules] hold, where a target
// only known at run time counts as forbidden. sudo, doas, su, docker, eval, exec, env,
// xargs and shells running -c strings are refused. The command is parsed with a real
// shell parser, never matched by prefix.
func SingleCommand(cmd string) error {
	stmt, err := oneStatement(cmd)
	if err != nil {
		return err
	}
	ce, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return reject(ruleSingle, cmd, "there is nothing to run", "write one command such as make -j4")
	}
	c := evalCall(ce)
	for name := range c.assigns {
		if deniedEnv[name] || strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "GIT_CONFIG") {
			return reject(ruleShellSyntax, cmd, "setting "+name+" changes which programs run", "set only build variables such as CC, CFLAGS or LDFLAGS")
		}
	}
	if err := denyAssigns(c, maxNesting, true); err != nil {
		return err
	}
	p := c.args[0]
	if !p.static() || p.glob {
		return reject(ruleLiteralProgram, cmd, "the program name is not a literal word", "write the program name literally, such as make")
	}
	prog := p.val()
	if strings.Contains(prog, "/") {
		if err := checkScriptPath(cmd, prog); err != nil {
			return err
		}
		if err := crossCompile(c, cmd); err != nil {
			return err
		}
	} else {
		if why, ok := refusedPrograms[prog]; ok {
			return reject(ruleAllowList, cmd, prog+" is not allowed", why)
		}
		if shells[prog] && !isAllowedShell(prog) {
			return reject(ruleAllowList, cmd, prog+" is not allowed", "run scripts as ./script")
		}
		chk, ok := allowed(prog)
		if !ok {
			return reject(ruleAllowList, cmd, "the program "+prog+" is not on the allow list", "use one of "+allowedNames())
		}
		if err := denyProgram(c, maxNesting, true); err != nil {
			return err
		}
		if err := denyHooks(c, true); err != nil {
			return err
		}
		if err := crossCompile(c, cmd); err != nil {
			return err
		}
		if chk != nil {
			if err := chk(c, c.args[1:]); err != nil {
				return err
			}
		}
	}
	return nil
}

func isAllowedShell(p string) bool { return p == "sh" || p == "bash" || p == "dash" }

// oneStatement parses cmd and checks that it is one statement with no shell syntax
// beyond a simple command.
func oneStatement(cmd string) (*syntax.Stmt, error) {
	if strings.TrimSpace(cmd) == "" {
		return nil, reject(ruleEmpty, "", "the command is empty", "write one command such as make -j4")
	}
	f, err := parseLine(cmd)
	if err != nil {
		return nil, err
	}
	if len(f.Stmts) != 1 {
		if len(f.Stmts) == 0 {
			return nil, reject(ruleEmpty, cmd, "the command is only a comment", "write one command")
		}
		return nil, reject(ruleSingle, cmd, "it holds several commands (separated by ; or newlines)", "send one command per action")
	}
	if err := structureOnly(f, cmd); err != nil {
		return nil, err
	}
	return f.Stmts[0], nil
}

// structureOnly refuses every shell construct beyond one simple command with plain
// words and plain $NAME expansions.
func structureOnly(f *syntax.File, cmd string) error {
	var err error
	fail := func(what, instead string) {
		if err == nil {
			err = reject(ruleShellSyntax, cmd, what+" is not allowed", instead)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			switch {
			case n.Background:
				fail("a background job (&)", "run the command in the foreground")
			case n.Negated:
				fail("negation (!)", "run the command as it is")
			case n.Coprocess:
				fail("a coprocess", "run the command directly")
			}
		case *syntax.Redirect:
			fail("redirection ("+n.Op.String()+")", "run the command without redirection; Atesor captures the output")
		case *syntax.BinaryCmd:
			fail("chaining with "+n.Op.String(), "send each command as its own action")
		case *syntax.CmdSubst:
			fail("command substitution ($(...) or backticks)", "write the value literally")
		case *syntax.ProcSubst:
			fail("process substitution", "write the command without it")
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			fail("arithmetic expansion", "write the number literally")
		case *syntax.Subshell, *syntax.Block:
			fail("a subshell or block", "send one plain command")
		case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
			*syntax.TestClause, *syntax.TestDecl:
			fail("shell control flow", "send one plain command")
		case *syntax.FuncDecl:
			fail("a function definition", "send one plain command")
		case *syntax.DeclClause:
			fail(n.Variant.Value, "set variables as VAR=value before the command")
		case *syntax.TimeClause, *syntax.CoprocClause:
			fail("a time or coproc clause", "send one plain command")
		case *syntax.ExtGlob:
			fail("an extended glob", "write the paths literally")
		case *syntax.ArrayExpr:
			fail("an array", "write the values literally")
		case *syntax.SglQuoted:
			if n.Dollar {
				fail("$'...' quoting", "use plain single quotes")
			}
		case *syntax.DblQuoted:
			if n.Dollar {
				fail("$\"...\" quoting", "use plain double quotes")
			}
		case *syntax.ParamExp:
			if !simpleParam(n) {
				fail("the expansion "+printNode(n), "use only plain $NAME or ${NAME}, or write the value literally")
			}
		}
		return err == nil
	})
	return err
}

func simpleParam(p *syntax.ParamExp) bool {
	if p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil || p.Param == nil {
		return false
	}
	return shellwords.IsAssignment(p.Param.Value + "=")
}

// checkScriptPath allows ./script (a file of the repository).
func checkScriptPath(cmd, prog string) error {
	if !strings.HasPrefix(prog, "./") {
		return reject(ruleAllowList, cmd, "the program "+prog+" is a path", "call tools by name (make, gcc) and the package's scripts as ./script")
	}
	c := path.Clean(prog)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return reject(ruleAllowList, cmd, "the script "+prog+" is outside the repository", "run scripts of the repository as ./script")
	}
	return nil
}

func checkMake(c call, args []arg) error {
	for _, a := range args {
		if v := a.val(); strings.HasPrefix(v, "--eval") || v == "-E" {
			return reject(ruleArgs, c.text(), "make --eval runs arbitrary make code", "pass variables as make VAR=value")
		}
	}
	return nil
}

// cmakeTools are the cmake -E tools a single command may use.
var cmakeTools = map[string]bool{
	"make_directory": true, "copy": true, "copy_if_different": true, "copy_directory": true,
	"copy_directory_if_different": true, "rm": true, "remove": true, "remove_directory": true,
	"touch": true, "touch_nocreate": true, "create_symlink": true, "echo": true, "tar": true,
	"sha256sum": true, "md5sum": true, "capabilities": true, "cat": true, "compare_files": true,
	"rename": true, "true": true, "false": true,
}

func checkCMake(c call, args []arg) error {
	for i, a := range args {
		v := a.val()
		var script arg
		switch {
		case (v == "-P" || v == "-C") && i+1 < len(args):
			script = args[i+1]
		case (strings.HasPrefix(v, "-P") || strings.HasPrefix(v, "-C")) && len(v) > 2:
			script = arg{alts: []string{v[2:]}, dynamic: a.dynamic}
		default:
			continue
		}
		// A cmake script runs arbitrary code, as the package's own ./scripts do; like
		// them it must be a file of the repository.
		if !script.static() || repoRelative(script.val(), "") != "" {
			return reject(ruleArgs, c.text(), "cmake "+v[:2]+" runs the cmake script "+shown(script.val())+", which is not a file of the repository", "run cmake scripts of the repository only, such as cmake -P cmake/gen.cmake")
		}
	}
	if len(args) >= 2 && args[0].val() == "-E" && !cmakeTools[args[1].val()] {
		return reject(ruleArgs, c.text(), "cmake -E "+args[1].val()+" is not allowed", "use cmake to configure and build, or a plain file tool")
	}
	if len(args) >= 2 && args[0].val() == "-E" && (args[1].val() == "rm" || args[1].val() == "remove" || args[1].val() == "remove_directory") {
		return checkRmSingle(c, args[2:])
	}
	return nil
}

func checkMeson(c call, args []arg) error {
	for _, a := range args {
		if a.val() == "devenv" {
			return reject(ruleArgs, c.text(), "meson devenv opens a shell", "run meson setup, meson compile or meson install")
		}
	}
	return nil
}

func checkGo(c call, args []arg) error {
	for _, a := range args {
		v := strings.TrimLeft(a.val(), "-")
		if strings.HasPrefix(a.val(), "-") && (strings.HasPrefix(v, "toolexec") || strings.HasPrefix(v, "exec")) {
			return reject(ruleArgs, c.text(), "-toolexec and -exec run another program", "run go build, go mod or go install without them")
		}
	}
	pa := parseArgs(args, optSpec{short: "C"}, true)
	if len(pa.operands) > 0 && !IsGoSubcommand(pa.operands[0].val()) {
		return reject(ruleArgs, c.text(), "go "+pa.operands[0].val()+" is not a go subcommand", "use go build, go mod tidy, go install, ...")
	}
	return nil
}

func checkCompiler(c call, args []arg) error {
	var outs []arg
	for i, a := range args {
		v := a.val()
		switch {
		case v == "-wrapper" || strings.HasPrefix(v, "-fplugin") || strings.HasPrefix(v, "-specs") || strings.HasPrefix(v, "-B") || strings.HasPrefix(v, "--sysroot") || strings.HasPrefix(v, "-fuse-ld=/"):
			return reject(ruleArgs, c.text(), v+" loads or runs another program", "compile with plain flags")
		case v == "-o" && i+1 < len(args):
			outs = append(outs, args[i+1])
		case strings.HasPrefix(v, "-o") && len(v) > 2:
			outs = append(outs, arg{alts: []string{v[2:]}, dynamic: a.dynamic})
		}
	}
	return checkWrites(c, outs, true)
}

func checkAptSingle(c call, args []arg) error {
	pa := parseArgs(args, aptSpec, false)
	if pa.has("-o", "--option", "-c", "--config-file") {
		return reject(ruleArgs, c.text(), "apt options -o and -c can run hooks", "use apt-get install -y <packages>")
	}
	if len(pa.operands) == 0 {
		return reject(ruleArgs, c.text(), "no apt subcommand", "use apt-get install -y <packages> or apt-get update")
	}
	switch pa.operands[0].val() {
	case "install", "update", "build-dep", "source", "download", "show", "search", "policy", "list", "satisfy":
		return checkPackageNames(c, pa.operands[1:])
	}
	return reject(ruleArgs, c.text(), "apt "+pa.operands[0].val()+" is not allowed", "use apt-get install -y <packages> or apt-get update")
}

func checkApkSingle(c call, args []arg) error {
	pa := parseArgs(args, apkSpec, false)
	if pa.has("-p", "--root", "--allow-untrusted") {
		return reject(ruleArgs, c.text(), "apk --root and --allow-untrusted are not allowed", "use apk add <packages>")
	}
	if pa.has("-X", "--repository", "--repositories-file", "--keys-dir") {
		return reject(ruleArgs, c.text(), "a fix may not add package repositories or keys", "install packages from the configured repositories with apk add <packages>")
	}
	if len(pa.operands) == 0 {
		return reject(ruleArgs, c.text(), "no apk subcommand", "use apk add <packages> or apk update")
	}
	switch pa.operands[0].val() {
	case "add", "update", "info", "search", "list", "policy", "fetch", "version":
		return checkPackageNames(c, pa.operands[1:])
	}
	return reject(ruleArgs, c.text(), "apk "+pa.operands[0].val()+" is not allowed", "use apk add <packages> or apk update")
}

func checkPackageNames(c call, names []arg) error {
	for _, n := range names {
		if !n.static() {
			return reject(ruleArgs, c.text(), "a package name is only known at run time", "write package names literally")
		}
	}
	return nil
}

func checkDpkg(c call, args []arg) error {
	ok := map[string]bool{"-l": true, "-L": true, "-s": true, "-S": true, "-p": true, "--list": true,
		"--listfiles": true, "--status": true, "--search": true, "--print-architecture": true,
		"--print-foreign-architectures": true, "--get-selections": true}
	if len(args) == 0 || !ok[args[0].val()] {
		return reject(ruleArgs, c.text(), "dpkg may only query", "install with apt-get install -y <package>; query with dpkg -l, -L or -S")
	}
	return nil
}

func checkSedSingle(c call, args []arg) error {
	sc := parseSed(args)
	if sc.scriptFile {
		return reject(ruleArgs, c.text(), "sed -f runs a script file", "write the sed script inline in single quotes")
	}
	if len(sc.scripts) == 0 {
		return reject(ruleArgs, c.text(), "sed has no script", "use sed -i 's/old/new/' <file>")
	}
	return nil
}

func checkRmSingle(c call, args []arg) error {
	for _, t := range parseArgs(args, optSpec{}, false).operands {
		for _, v := range t.alts {
			if strings.HasPrefix(v, "/") && !strings.HasPrefix(path.Clean(v), "/tmp/") {
				return reject(ruleRmRoot, c.text(), "rm of "+shown(v)+" is outside the repository", insteadRm)
			}
		}
	}
	return nil
}

// gitSubcommands are the git subcommands a fix may use: reading, and local changes.
var gitSubcommands = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "rev-parse": true, "describe": true,
	"ls-files": true, "ls-tree": true, "cat-file": true, "grep": true, "blame": true,
	"shortlog": true, "rev-list": true, "remote": true, "branch": true, "tag": true,
	"checkout": true, "switch": true, "restore": true, "add": true, "commit": true, "apply": true,
	"am": true, "cherry-pick": true, "revert": true, "stash": true, "mv": true, "rm": true,
	"init": true, "fetch": true, "pull": true, "clone": true, "submodule": true, "config": true,
	"reset": true, "merge": true, "version": true, "format-patch": true,
}

func checkGitSingle(c call, args []arg) error {
	l := parseGit(args)
	if len(l.top["-c"]) > 0 || len(l.top["--config-env"]) > 0 || len(l.top["--exec-path"]) > 0 {
		return reject(ruleArgs, c.text(), "git -c, --config-env and --exec-path can run other programs", "run the plain git subcommand")
	}
	if !l.hasSub {
		return reject(ruleArgs, c.text(), "no git subcommand", "use git status, git diff, git apply, ...")
	}
	sub := l.sub.val()
	if !gitSubcommands[sub] {
		return reject(ruleArgs, c.text(), "git "+sub+" is not allowed", "use git for reading and local changes: status, diff, log, apply, checkout, submodule update")
	}
	if l.args.has("--ext-diff", "--exec", "--upload-pack", "--receive-pack", "--template") {
		return reject(ruleArgs, c.text(), "git "+sub+": the options --ext-diff, --exec, --upload-pack, --receive-pack and --template run other programs", "run the plain git subcommand")
	}
	if sub == "config" {
		return checkGitConfig(c, l.args)
	}
	return nil
}

func checkGitConfig(c call, ga gitArgs) error {
	ops := ga.operands
	if len(ops) > 0 {
		switch ops[0].val() {
		case "get", "list":
			return nil
		case "set":
			ops = ops[1:]
		}
	}
	if ga.has("--list", "--get", "--get-all", "--get-regexp") {
		return nil
	}
	if len(ops) >= 1 && strings.EqualFold(ops[0].val(), "safe.directory") {
		return nil
	}
	if len(ops) == 1 && !ga.has("--unset", "--unset-all", "--add", "--replace-all", "--remove-section", "--rename-section", "--edit") {
		return nil
	}
	return reject(ruleArgs, c.text(), "git config may only read settings or add safe.directory", "leave git configuration alone")
}

func checkFindReadOnly(c call, args []arg) error {
	for _, a := range args {
		switch v := a.val(); v {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return reject(ruleArgs, c.text(), "find "+v+" runs commands or changes files", "use find only to list files, such as find . -name '*.h'")
		}
	}
	return nil
}

// tailSpec is GNU tail's option table.
var tailSpec = optSpec{short: "cns", long: []string{"--bytes", "--lines", "--sleep-interval", "--pid", "--max-unchanged-stats"},
	optLong: []string{"--follow"}, flags: []string{"--retry", "--quiet", "--silent", "--verbose", "--zero-terminated", "--help", "--version"}}

func checkTail(c call, args []arg) error {
	pa := parseArgs(args, tailSpec, false)
	if pa.has("f", "F", "--follow", "--retry", "--pid", "-s", "--sleep-interval", "--max-unchanged-stats") {
		return reject(ruleArgs, c.text(), "tail in follow mode never ends", "use tail -n 50 <file>")
	}
	for _, o := range pa.operands {
		// The obsolete form tail +10f / -10f follows too.
		if v := o.val(); (strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-")) && strings.HasSuffix(v, "f") && isDigits(strings.Trim(v[1:], "bclf")) {
			return reject(ruleArgs, c.text(), "tail "+v+" follows the file and never ends", "use tail -n 50 <file>")
		}
	}
	return nil
}

func checkLdconfig(c call, args []arg) error {
	for _, a := range args {
		if v := a.val(); v == "-r" || v == "-C" || v == "-f" || strings.HasPrefix(v, "-r") {
			return reject(ruleArgs, c.text(), "ldconfig -r, -C and -f are not allowed", "run ldconfig without options")
		}
	}
	return nil
}

func checkShellScript(c call, args []arg) error {
	pa := parseArgs(args, shellSpec, true)
	if pa.has("c", "s", "i", "--rcfile", "--init-file", "O", "o") {
		return reject(ruleAllowList, c.text(), "a shell running a command string (-c) or stdin is not allowed", "run the package's script as ./script or sh ./script")
	}
	if len(pa.operands) == 0 {
		return reject(ruleAllowList, c.text(), "the shell has no script to run", "run the package's script as sh ./script")
	}
	s := pa.operands[0]
	if !s.static() {
		return reject(ruleAllowList, c.text(), "the script name is only known at run time", "write the script path literally")
	}
	if why := repoRelative(s.val(), ""); why != "" {
		return reject(ruleAllowList, c.text(), "the script "+s.val()+" is not a file of the repository: "+why, "run a script of the repository, such as sh ./autogen.sh")
	}
	return nil
}
