package validate

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// investigationPrograms are the first words an investigation command may have.
var investigationPrograms = map[string]bool{
	"cat": true, "head": true, "tail": true, "ls": true, "find": true, "grep": true,
	"egrep": true, "file": true, "stat": true, "wc": true, "pkg-config": true, "readelf": true,
	"nm": true, "ldd": true, "go": true, "which": true,
}

// InvestigationCommands returns the first words an investigation command may have.
func InvestigationCommands() []string {
	return []string{"cat", "head", "tail", "ls", "find", "grep", "egrep", "file", "stat", "wc",
		"pkg-config", "readelf", "nm", "ldd", "go", "which"}
}

// InvestigationCommand checks one command of the fixer's investigation round: exactly one
// simple command (no chaining, pipes, substitutions, subshells or variable assignments),
// no < or > redirection (a quoted < or > inside a grep pattern is text, not a
// redirection), and the first word is one of cat, head, tail, ls, find, grep, egrep, file,
// stat, wc, pkg-config, readelf, nm, ldd, go, which. find may not -exec, -execdir, -ok,
// -delete or write files; tail may not follow; go may only run subcommands that do not
// build or run code (env without -w/-u, list, version, doc, help, mod graph, mod why).
func InvestigationCommand(cmd string) error {
	const instead = "use one read-only command such as cat, grep -rn, ls or find -name"
	stmt, err := oneStatement(cmd)
	if err != nil {
		return err
	}
	ce, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return reject(ruleInvestigate, cmd, "there is nothing to run", instead)
	}
	if len(ce.Assigns) > 0 {
		return reject(ruleInvestigate, cmd, "variable assignments are not allowed", instead)
	}
	c := evalCall(ce)
	prog := c.prog()
	if !c.args[0].static() || !investigationPrograms[prog] {
		return reject(ruleInvestigate, cmd, "the program "+shown(prog)+" is not a read-only investigation tool", "start with one of "+strings.Join(InvestigationCommands(), ", "))
	}
	args := c.args[1:]
	switch prog {
	case "find":
		if err := checkFindReadOnly(c, args); err != nil {
			return err
		}
	case "tail":
		if err := checkTail(c, args); err != nil {
			return err
		}
	case "go":
		return checkGoReadOnly(c, args)
	case "file":
		if parseArgs(args, fileSpec, false).has("C", "--compile") {
			return reject(ruleInvestigate, c.text(), "file -C writes a compiled magic file", "use file <path> to read a file's type")
		}
	}
	for _, a := range args {
		if v := a.val(); strings.HasPrefix(v, "@") && prog != "grep" && prog != "egrep" {
			return reject(ruleInvestigate, c.text(), "the response file "+shown(v)+" holds options the rules cannot read", instead)
		}
	}
	if p, _ := hookProblem(prog, argValues(args)); p != "" {
		return reject(ruleInvestigate, c.text(), p, instead)
	}
	return nil
}

// fileSpec is the option table of file(1).
var fileSpec = optSpec{short: "mfFeP", long: []string{"--magic-file", "--files-from", "--separator", "--exclude", "--exclude-quiet", "--parameter"},
	flags: []string{"--compile", "--brief", "--mime", "--mime-type", "--mime-encoding", "--dereference", "--no-dereference", "--special-files", "--uncompress", "--uncompress-noreport", "--keep-going", "--list", "--raw", "--print0", "--preserve-date", "--debug", "--extension", "--apple", "--no-buffer", "--no-pad", "--help", "--version"}}

func argValues(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.val()
	}
	return out
}

func checkGoReadOnly(c call, args []arg) error {
	for _, a := range args {
		v := strings.TrimLeft(a.val(), "-")
		if strings.HasPrefix(a.val(), "-") && (strings.HasPrefix(v, "toolexec") || strings.HasPrefix(v, "exec")) {
			return reject(ruleInvestigate, c.text(), "-toolexec and -exec run programs", "use go env, go list or go version")
		}
	}
	pa := parseArgs(args, optSpec{short: "C"}, true)
	sub := ""
	if len(pa.operands) > 0 {
		sub = pa.operands[0].val()
	}
	switch sub {
	case "version", "doc", "help":
		return nil
	case "list":
		for _, a := range pa.operands[1:] {
			n := strings.TrimLeft(a.val(), "-")
			n, _, _ = strings.Cut(n, "=")
			if strings.HasPrefix(a.val(), "-") && (n == "export" || n == "compiled" || n == "overlay" || n == "pgo" || n == "cover") {
				return reject(ruleInvestigate, c.text(), "go list -"+n+" compiles the package", "use go list without -export or -compiled")
			}
		}
		return nil
	case "env":
		for _, a := range pa.operands[1:] {
			if v := a.val(); v == "-w" || v == "-u" {
				return reject(ruleInvestigate, c.text(), "go env "+v+" changes the configuration", "read it with go env")
			}
		}
		return nil
	case "mod":
		if len(pa.operands) > 1 && (pa.operands[1].val() == "graph" || pa.operands[1].val() == "why") {
			return nil
		}
	}
	return reject(ruleInvestigate, c.text(), "go "+sub+" builds or runs code, or changes files", "use go env, go list, go version, go doc, go mod graph or go mod why")
}

// WorkloadCommand checks the command of a performance-mode program run: exactly one
// simple command that runs one of the built programs by its path (as listed, or
// relative to the repository root, such as ./build/minigzip; not a bare name, a shell,
// an interpreter or a wrapper), followed by plain arguments only: no variable assignments, no
// $ expansions, no globs, no ~, no redirections and no other shell syntax.
func WorkloadCommand(cmd string, programs []string) error {
	const instead = "run one built program with plain arguments, such as ./build/minigzip -9 -c data.txt"
	if len(programs) == 0 {
		return reject(ruleWorkload, cmd, "there are no built programs to run", "choose a harness instead of a program run")
	}
	stmt, err := oneStatement(cmd)
	if err != nil {
		return err
	}
	ce, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return reject(ruleWorkload, cmd, "there is nothing to run", instead)
	}
	if len(ce.Assigns) > 0 {
		return reject(ruleWorkload, cmd, "variable assignments are not allowed", instead)
	}
	c := evalCall(ce)
	for _, a := range c.args {
		if !a.static() || a.glob {
			return reject(ruleWorkload, cmd, "an argument uses $, a glob, ~ or braces", instead)
		}
		if v := a.val(); strings.ContainsAny(v, "\x00\n\r") {
			return reject(ruleWorkload, cmd, "an argument contains a control character", instead)
		}
	}
	for _, w := range ce.Args {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			return reject(ruleWorkload, cmd, "an argument starts with ~", instead)
		}
	}
	prog := c.prog()
	if notWorkload(base(prog)) {
		return reject(ruleWorkload, cmd, "the program "+prog+" is a shell, an interpreter, a wrapper or a file tool, not a built program", instead)
	}
	if !strings.Contains(prog, "/") {
		return reject(ruleWorkload, cmd, "the program "+prog+" is a bare name, which runs whatever PATH finds", "run the built program by its path, such as ./build/"+prog)
	}
	if !matchesProgram(prog, programs) {
		return reject(ruleWorkload, cmd, "the program "+prog+" is not one of the built programs ("+strings.Join(programs, ", ")+")", instead)
	}
	return nil
}

// matchesProgram reports whether p names one of the built programs by its path:
// the same cleaned path, or a relative path that an absolute program path in
// /workspace/<repo>/ ends with. A bare name is looked up on PATH, so it could be a
// same-named program elsewhere; it never matches.
func matchesProgram(p string, programs []string) bool {
	if p == "" || !strings.Contains(p, "/") {
		return false
	}
	cp := path.Clean(p)
	if cp == ".." || strings.HasPrefix(cp, "../") || strings.Contains(cp, "/../") {
		return false
	}
	for _, q := range programs {
		cq := path.Clean(q)
		switch {
		case cq == cp:
			return true
		case strings.HasPrefix(cq, "/") && !strings.HasPrefix(cp, "/"):
			if root := strings.TrimSuffix(cq, "/"+cp); root != cq && path.Dir(root) == "/workspace" {
				return true
			}
		case strings.HasPrefix(cp, "/") && !strings.HasPrefix(cq, "/"):
			if root := strings.TrimSuffix(cp, "/"+cq); root != cp && path.Dir(root) == "/workspace" {
				return true
			}
		}
	}
	return false
}

// notWorkload reports whether a program name is a shell, an interpreter, a wrapper or
// a file tool, which a workload may never run even when the package built one of that
// name.
func notWorkload(name string) bool {
	if shells[name] || name == "rm" || name == "env" || name == "sudo" || name == "find" || name == "xargs" {
		return true
	}
	if _, ok := wrappers[name]; ok {
		return true
	}
	_, ok := interpreters[name]
	return ok || strings.HasPrefix(name, "python") || isLoader(name)
}
