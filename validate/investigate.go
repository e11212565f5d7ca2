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
	}
	return nil
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
	case "list", "version", "doc", "help":
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
// simple command that runs one of the built programs (named by its basename, by its path
// as listed, or as ./path), followed by plain arguments only: no variable assignments, no
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
	if !matchesProgram(prog, programs) {
		return reject(ruleWorkload, cmd, "the program "+prog+" is not one of the built programs ("+strings.Join(programs, ", ")+")", instead)
	}
	return nil
}

func matchesProgram(p string, programs []string) bool {
	if p == "" || strings.Contains(p, "..") {
		return false
	}
	if !strings.Contains(p, "/") {
		for _, q := range programs {
			if path.Base(q) == p {
				return true
			}
		}
		return false
	}
	cp := path.Clean(p)
	for _, q := range programs {
		cq := path.Clean(q)
		if cq == cp || strings.HasSuffix(cq, "/"+cp) {
			return true
		}
	}
	return false
}
