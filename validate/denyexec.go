package validate

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// This file holds the deny rules against code the rules cannot read: shells fed from a
// pipe, interpreters given inline code, variables that inject programs, shell
// metacharacters hidden in make and configure variables, and git settings that run
// commands.

// codeEnv are variables that make every program, or git, run other code. Setting them
// (VAR=value cmd, export VAR=...) is refused in plans and fixes alike.
var codeEnv = map[string]bool{
	"LD_PRELOAD": true, "LD_AUDIT": true, "BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true,
	"PS4": true, "SHELLOPTS": true, "BASHOPTS": true, "GCONV_PATH": true, "GIT_SSH": true,
	"GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "GIT_EDITOR": true,
	"GIT_ASKPASS": true, "GIT_PROXY_COMMAND": true, "GIT_EXEC_PATH": true,
	"GIT_TEMPLATE_DIR": true, "GIT_CONFIG_PARAMETERS": true, "GIT_ALLOW_PROTOCOL": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
}

// knownShells are the values SHELL, CONFIG_SHELL and MAKESHELL may take in a fix.
var knownShells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "/bin/sh": true, "/bin/bash": true, "/bin/dash": true,
	"/usr/bin/sh": true, "/usr/bin/bash": true, "/usr/bin/dash": true,
}

func denyEnvName(name, subject string) error {
	if codeEnv[name] || strings.HasPrefix(name, "BASH_FUNC_") {
		return reject(ruleShellSyntax, subject, "setting "+name+" makes programs run other code", "set only build variables such as CC, CFLAGS or LDFLAGS")
	}
	return nil
}

// denyDecl checks export, declare, local and readonly assignments.
func denyDecl(d *syntax.DeclClause, strict bool, fx *flow) error {
	for _, as := range d.Args {
		if as.Name == nil {
			continue
		}
		if err := denyEnvName(as.Name.Value, printNode(d)); err != nil {
			return err
		}
		if err := denyToolEnv(call{src: d, fx: fx}, as.Name.Value, evalWord(as.Value)); err != nil {
			return err
		}
		if err := denyGitEnv(as.Name.Value, evalWord(as.Value), printNode(d)); err != nil {
			return err
		}
	}
	return nil
}

// denyAssigns checks the leading VAR=value assignments of a command and, for make and
// ./configure-style scripts, their NAME=value arguments: both end up in recipes and
// scripts that a shell runs, so a value with shell syntax is parsed and checked like a
// command line (in a fix it is refused outright).
func denyAssigns(c call, depth int, strict bool) error {
	for name, v := range c.assigns {
		if err := denyEnvName(name, c.text()); err != nil {
			return err
		}
		if err := denyToolEnv(c, name, v); err != nil {
			return err
		}
		if err := denyGitEnv(name, v, c.text()); err != nil {
			return err
		}
		if err := denyValue(c, name, v, depth, strict); err != nil {
			return err
		}
	}
	if len(c.args) == 0 || !c.args[0].static() {
		return nil
	}
	prog := c.prog()
	switch {
	case base(prog) == "make" || base(prog) == "gmake" || strings.HasPrefix(prog, "./"):
	default:
		return nil
	}
	for _, a := range c.args[1:] {
		if !shellwords.IsAssignment(a.val()) {
			continue
		}
		name, val, _ := strings.Cut(a.val(), "=")
		if err := denyValue(c, name, arg{alts: []string{val}, dynamic: a.dynamic}, depth, strict); err != nil {
			return err
		}
	}
	return nil
}

// shellMeta are the texts that make a variable value a shell command line once a recipe
// or script expands it.
var shellMeta = []string{";", "|", "&", "`", "$(", "${", ">", "<", "\n"}

// makeCode are make functions that run shell commands or make code when a make variable
// is expanded.
var makeCode = []string{"$(shell", "${shell", "$(eval", "${eval", "$(file", "${file", "$(call", "${call"}

func denyValue(c call, name string, v arg, depth int, strict bool) error {
	for _, val := range v.alts {
		lower := strings.ToLower(val)
		for _, m := range makeCode {
			if strings.Contains(lower, m) {
				if strict {
					return reject(ruleShellSyntax, c.text(), "the value of "+name+" calls the make function "+strings.TrimLeft(m, "${("), "write plain flags and paths")
				}
				// $(shell cmd) runs cmd: check it as the command substitution it is.
				val = strings.NewReplacer("$(shell ", "$(", "${shell ", "$(").Replace(val)
			}
		}
		if strict {
			switch name {
			case "SHELL", "CONFIG_SHELL", "MAKESHELL":
				if !knownShells[val] {
					return reject(ruleShellSyntax, c.text(), name+"="+shown(val)+" runs another program as the shell", "use "+name+"=/bin/bash or leave it unset")
				}
			case "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS":
				if strings.Contains(val, "--eval") || strings.Contains(val, "-E") {
					return reject(ruleArgs, c.text(), name+" with --eval runs arbitrary make code", "pass variables as make VAR=value")
				}
			}
			for _, tok := range strings.Fields(val) {
				if tok == "-wrapper" || strings.HasPrefix(tok, "-fplugin") || strings.HasPrefix(tok, "-specs") || strings.HasPrefix(tok, "-B") {
					return reject(ruleArgs, c.text(), "the value of "+name+" passes "+tok+", which makes the compiler run other programs", "compile with plain flags")
				}
			}
		}
		meta := false
		for _, m := range shellMeta {
			if strings.Contains(val, m) {
				meta = true
				break
			}
		}
		if !meta || strings.Contains(val, dyn) && !strict {
			continue
		}
		if strict {
			return reject(ruleShellSyntax, c.text(), "the value of "+name+" holds shell syntax ("+clip(shown(val), 60)+"), which a recipe or script would run", "write plain flags and paths as the value")
		}
		if depth >= maxNesting {
			return reject(ruleSingle, c.text(), "shell strings are nested too deeply", "write plain flags and paths as the value")
		}
		f, err := parseLine(val)
		if err != nil {
			return reject(ruleShellSyntax, c.text(), "the value of "+name+" holds shell syntax that does not parse", "write plain flags and paths as the value")
		}
		if err := denyNode(f, depth+1, strict, c.fx); err != nil {
			return err
		}
	}
	return nil
}

// interpreters run code given on their command line (-c, -e) or on standard input,
// which the rules cannot read.
var interpreters = map[string]string{
	"python": "c", "python2": "c", "python3": "c", "pypy": "c", "pypy3": "c",
	"perl": "eE", "ruby": "e", "node": "ep", "nodejs": "ep", "php": "r", "lua": "e",
	"tclsh": "", "wish": "", "Rscript": "e", "julia": "e", "osascript": "e",
}

func denyInterpreter(c call, name string, args []arg) error {
	flags, ok := interpreters[name]
	if !ok {
		if strings.HasPrefix(name, "python3.") || strings.HasPrefix(name, "python2.") {
			flags = "c"
		} else {
			return nil
		}
	}
	instead := "run a script file of the package (./setup.py, ./tools/gen.py) or use the build system"
	if name == "perl" {
		instead = "edit text with sed -i 's/old/new/' <file>, or run a script file of the package"
	}
	takesValue := interpreterValueOpts[name]
	script := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val()
		switch {
		case v == "-" || v == "--":
			return reject(ruleDenied, c.text(), name+" reads its program from standard input, which cannot be checked", instead)
		case strings.HasPrefix(v, "--") && (strings.HasPrefix(v, "--eval") || strings.HasPrefix(v, "--print") || v == "--command"):
			return reject(ruleDenied, c.text(), name+" "+v+" runs inline code, which cannot be checked", instead)
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && len(v) > 1 && strings.ContainsAny(v[1:], flags) && flags != "":
			return reject(ruleDenied, c.text(), name+" "+v+" runs inline code, which cannot be checked", instead)
		case strings.HasPrefix(v, "-"):
			if strings.HasPrefix(name, "python") && v == "-m" {
				return nil // python -m module runs an installed module, like a program
			}
			if len(v) == 2 && strings.Contains(takesValue, v[1:]) {
				i++
			}
		default:
			script = true
		}
		if script {
			break
		}
	}
	if !script && c.stdin == nil {
		return reject(ruleDenied, c.text(), name+" without a script reads its program from standard input, which cannot be checked", instead)
	}
	if !script {
		return reject(ruleDenied, c.text(), name+" runs a here-document as its program, which cannot be checked", instead)
	}
	return nil
}

// interpreterValueOpts are the short options that take the next word as their value.
var interpreterValueOpts = map[string]string{
	"python": "WXQ", "python2": "WXQ", "python3": "WX", "pypy": "WX", "pypy3": "WX",
	"perl": "IMm", "ruby": "IrCE", "node": "r", "nodejs": "r", "php": "cdz", "lua": "l",
}

// denyAwk refuses awk programs that run commands (system(), pipes) or write files.
func denyAwk(c call, args []arg) error {
	for _, a := range args {
		v := a.val()
		if strings.Contains(v, "system") || strings.Contains(strings.ReplaceAll(v, "||", ""), "|") || strings.Contains(v, dyn) && strings.Contains(v, "{") {
			return reject(ruleDenied, c.text(), "the awk program runs commands", "use awk only to print text; edit files with sed -i")
		}
	}
	return nil
}

// stdinScript returns the here-document a shell reads as its script.
func stdinScript(c call) (arg, error) {
	const instead = "run the package's script as sh ./script, or write the commands out"
	if c.stdin == nil {
		return arg{}, reject(ruleDenied, c.text(), "a shell reading commands from a pipe or a file runs code that cannot be checked (curl ... | sh)", instead)
	}
	w := evalWord(c.stdin)
	if !w.static() {
		return arg{}, reject(ruleLiteralProgram, c.text(), "the here-document expands variables or commands", "quote the delimiter (<<'EOF') or "+instead)
	}
	return w, nil
}

// scriptOperand checks the script a shell, source or . runs: a file, not a stream.
func scriptOperand(c call, s arg) error {
	if !s.static() {
		return reject(ruleLiteralProgram, c.text(), "the script is only known at run time (a variable or <(...))", "run a script of the repository, such as sh ./autogen.sh")
	}
	if err := denyFlowExec(c, []arg{s}); err != nil {
		return err
	}
	p := path.Clean(s.val())
	if p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/") {
		return reject(ruleDenied, c.text(), "the script is a stream that cannot be checked", "run a script of the repository, such as sh ./autogen.sh")
	}
	return nil
}

// toolEnv are variables that make a tool run another program, read a configuration
// file, or load code: setting them is refused in plans and fixes alike.
var toolEnv = map[string]string{
	"APT_CONFIG":    "makes apt read another configuration, which can run hooks",
	"RUSTC_WRAPPER": "makes cargo run another program around rustc", "RUSTC_WORKSPACE_WRAPPER": "makes cargo run another program around rustc",
	"RUSTC": "makes cargo run another compiler", "RUSTDOC": "makes cargo run another program", "RUSTDOC_WRAPPER": "makes cargo run another program",
	"MAKEFILES": "makes make read other makefiles", "GOENV": "makes go read another configuration file",
	"GOTOOLDIR": "makes go run other tools", "GOROOT": "makes go run another toolchain",
	"TAR_OPTIONS": "adds tar options, which can run commands", "PERL5OPT": "loads Perl code into every perl",
	"PERL5DB": "runs Perl code", "RUBYOPT": "loads Ruby code into every ruby", "NODE_OPTIONS": "loads code into every node",
	"PYTHONSTARTUP": "runs Python code", "PYTHONHOME": "makes python load another library tree",
	"LESSOPEN": "runs a program on every file less opens", "LESSCLOSE": "runs a program", "MANPAGER": "runs a program",
	"BROWSER": "runs a program", "CCACHE_PREFIX": "makes ccache run another program", "SUDO_ASKPASS": "runs a program",
	"SSH_ASKPASS": "runs a program", "HOME": "moves every tool's configuration to files the commands may have written",
	"XDG_CONFIG_HOME": "moves every tool's configuration to files the commands may have written",
	"CARGO_HOME":      "moves cargo's configuration and binaries",
}

// cargoSafeEnv are the CARGO_* variables that select no program, registry or target.
var cargoSafeEnv = regexp.MustCompile(`^CARGO_(BUILD_JOBS|TERM_[A-Z_]+|INCREMENTAL|NET_OFFLINE|NET_RETRY|NET_GIT_FETCH_WITH_CLI|HTTP_TIMEOUT|HTTP_MULTIPLEXING|HTTP_LOW_SPEED_LIMIT|HTTP_CHECK_REVOKE|REGISTRIES_CRATES_IO_PROTOCOL|TARGET_DIR|BUILD_TARGET_DIR|PROFILE_[A-Z_]+_(OPT_LEVEL|DEBUG|LTO|CODEGEN_UNITS|PANIC|INCREMENTAL|STRIP|DEBUG_ASSERTIONS|OVERFLOW_CHECKS|SPLIT_DEBUGINFO)|LOG|BUILD_TARGET|BUILD_INCREMENTAL|FEATURE_[A-Z0-9_]+|PKG_[A-Z_]+|MANIFEST_DIR|ENCODED_RUSTFLAGS|BUILD_RUSTFLAGS)$`)

// programVars are variables whose value names a program that build tools run.
var programVars = map[string]bool{
	"CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true, "AS": true, "NM": true, "RANLIB": true, "STRIP": true,
	"OBJCOPY": true, "FC": true, "F77": true, "PKG_CONFIG": true, "SHELL": true, "CONFIG_SHELL": true, "MAKESHELL": true,
	"MAKE": true, "INSTALL": true, "YACC": true, "LEX": true, "M4": true, "PYTHON": true, "PERL": true, "CMAKE": true,
	"NINJA": true, "HOSTCC": true, "CC_FOR_BUILD": true, "CXX_FOR_BUILD": true,
}

// flagVars are variables whose value is a compiler or linker command line.
var flagVars = regexp.MustCompile(`^(CC|CXX|CPP|LD|AS|FC|F77|HOSTCC|CC_FOR_BUILD|CXX_FOR_BUILD|[A-Z_]*(CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|FFLAGS|FCFLAGS|ASFLAGS|OBJCFLAGS|LIBS)|CGO_[A-Z_]+|EXTRA_[A-Z_]*FLAGS)$`)

// denyToolEnv refuses a variable that configures a tool to run other code: the
// variables of toolEnv, CARGO_* other than plain build settings, GOFLAGS with hooks,
// MAKEFLAGS with --eval in any spelling, compiler flags with hooks, rust flags that
// select a linker, and a program variable (CC=./x) naming a file the commands wrote.
func denyToolEnv(c call, name string, v arg) error {
	const instead = "set only plain build variables (CC=gcc, CFLAGS=-O2, ...) and pass options on the command line"
	if why, ok := toolEnv[name]; ok && why != "" {
		return reject(ruleHook, c.text(), "setting "+name+" "+why, instead)
	}
	if strings.HasPrefix(name, "CARGO_") && !cargoSafeEnv.MatchString(name) {
		return reject(ruleHook, c.text(), "setting "+name+" configures cargo (a program it runs, a registry, a target or a credential provider)", instead)
	}
	for _, val := range v.alts {
		fields := strings.Fields(val)
		switch {
		case name == "GOFLAGS":
			for _, f := range fields {
				n, fv, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
				if n == "toolexec" || n == "exec" || n == "overlay" || strings.Contains(fv, "extld") || strings.Contains(f, "extld") {
					return reject(ruleHook, c.text(), "GOFLAGS "+f+" makes go run another program", instead)
				}
			}
		case name == "MAKEFLAGS" || name == "MFLAGS" || name == "GNUMAKEFLAGS":
			for i, f := range fields {
				letters := !strings.HasPrefix(f, "-") && i == 0
				if strings.HasPrefix(f, "--") {
					for _, canon := range makeSpec.resolveLong(strings.SplitN(f, "=", 2)[0]) {
						if canon == "--eval" || canon == "--file" || canon == "--makefile" || canon == "--include-dir" {
							return reject(ruleHook, c.text(), name+" "+f+" makes make read code the rules cannot see", "pass variables as make VAR=value")
						}
					}
					continue
				}
				if strings.HasPrefix(f, "-") || letters {
					if strings.ContainsAny(strings.TrimPrefix(f, "-"), "EfI") {
						return reject(ruleHook, c.text(), name+" "+f+" makes make read code the rules cannot see", "pass variables as make VAR=value")
					}
				}
			}
		case name == "RUSTFLAGS" || name == "CARGO_ENCODED_RUSTFLAGS" || name == "CARGO_BUILD_RUSTFLAGS" || name == "RUSTDOCFLAGS":
			toks := strings.Fields(strings.ReplaceAll(val, "\x1f", " "))
			for i := 0; i < len(toks); i++ {
				t := toks[i]
				o := ""
				switch {
				case t == "-C" && i+1 < len(toks):
					o = toks[i+1]
					i++
				case strings.HasPrefix(t, "-C"):
					o = t[2:]
				case strings.HasPrefix(t, "--codegen="):
					o = strings.TrimPrefix(t, "--codegen=")
				}
				if why := rustCodegenHook(o); o != "" && why != "" {
					return reject(ruleHook, c.text(), name+": "+why, instead)
				}
			}
		case flagVars.MatchString(name):
			if p, _ := hookProblem("cc", fields); p != "" {
				return reject(ruleHook, c.text(), "the value of "+name+": "+p, "compile with plain flags")
			}
		}
		if programVars[name] && len(fields) > 0 {
			if how, ok := c.fx.wrote(fields[0]); ok && strings.Contains(fields[0], "/") {
				return reject(ruleTwoStep, c.text(), name+"="+fields[0]+" runs a file that was "+how, "use the distro's tools")
			}
		}
	}
	return nil
}
