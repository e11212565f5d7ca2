package validate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// StripTestCommands removes the package's test steps from a build plan: ctest, make/ninja
// check and test targets, meson test, go test, cargo test/nextest/bench, pytest, npm test,
// cmake --build --target test. Inside an && list or a ;-list only the test part goes
// ("make && make check" keeps "make"; "make all check" keeps "make all"); a test whose
// list first changes directory keeps that cd in what is returned ("cd build && ctest"), so
// the removed commands can run later from the repository root, as finish does. Phases
// left without commands are dropped; a plan with only test commands comes back with no
// phases, which the scout treats as a failure. The input plan is not modified.
func StripTestCommands(p atesor.BuildPlan) (atesor.BuildPlan, []string) {
	out := atesor.BuildPlan{Reasoning: p.Reasoning, Phases: []atesor.Phase{}}
	var removed []string
	for _, ph := range p.Phases {
		np := atesor.Phase{Name: ph.Name, Commands: []string{}}
		for _, line := range ph.Commands {
			kept, rm := stripLine(line)
			removed = append(removed, rm...)
			if kept != "" {
				np.Commands = append(np.Commands, kept)
			}
		}
		if len(np.Commands) > 0 {
			out.Phases = append(out.Phases, np)
		}
	}
	return out, removed
}

// stripLine returns the line without its test commands ("" when nothing is left) and the
// removed test commands.
func stripLine(line string) (string, []string) {
	f, err := parseLine(line)
	if err != nil {
		return line, nil
	}
	kept, removed, changed := stripList(f.Stmts, nil)
	if !changed {
		return line, nil
	}
	if len(kept) == 0 {
		return "", removed
	}
	return printNode(&syntax.File{Stmts: kept}), removed
}

// stripList strips a list of statements run in order; a cd in it applies to the rest.
func stripList(stmts []*syntax.Stmt, prefix []string) (kept []*syntax.Stmt, removed []string, changed bool) {
	prefix = append([]string(nil), prefix...)
	useful := false
	for _, s := range stmts {
		ns, rm, ch := stripStmt(s, prefix)
		removed = append(removed, rm...)
		changed = changed || ch
		if ns != nil {
			kept = append(kept, ns)
			if d, ok := cdTarget(ns); ok {
				prefix = append(prefix, d)
			} else {
				useful = true
			}
		}
	}
	if changed && !useful {
		return nil, removed, true
	}
	if changed {
		// A cd left at the end only served the removed tests.
		for len(kept) > 0 {
			if _, ok := cdTarget(kept[len(kept)-1]); !ok {
				break
			}
			kept = kept[:len(kept)-1]
		}
	}
	return kept, removed, changed
}

func cdTarget(s *syntax.Stmt) (string, bool) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(s.Redirs) > 0 {
		return "", false
	}
	if n := base(evalWord(ce.Args[0]).val()); n == "cd" || n == "pushd" {
		return printNode(ce), true
	}
	return "", false
}

func withPrefix(prefix []string, cmd string) string {
	if len(prefix) == 0 {
		return cmd
	}
	return strings.Join(prefix, " && ") + " && " + cmd
}

func stripStmt(s *syntax.Stmt, prefix []string) (*syntax.Stmt, []string, bool) {
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		keep, test := splitTestCall(x)
		if test == nil {
			return s, nil, false
		}
		rm := []string{withPrefix(prefix, printNode(test))}
		if keep == nil {
			return nil, rm, true
		}
		ns := *s
		ns.Cmd = keep
		return &ns, rm, true
	case *syntax.BinaryCmd:
		if x.Op == syntax.AndStmt {
			chain := flattenAnd(x)
			kept, removed, changed := stripList(chain, prefix)
			if !changed {
				return s, nil, false
			}
			if len(kept) == 0 {
				return nil, removed, true
			}
			ns := *s
			ns.Cmd = joinAnd(kept).Cmd
			return &ns, removed, true
		}
		if hasTest(s) {
			return nil, []string{withPrefix(prefix, printNode(s))}, true
		}
	case *syntax.Subshell:
		return stripGroup(s, x.Stmts, prefix, func(st []*syntax.Stmt) syntax.Command { return &syntax.Subshell{Stmts: st} })
	case *syntax.Block:
		return stripGroup(s, x.Stmts, prefix, func(st []*syntax.Stmt) syntax.Command { return &syntax.Block{Stmts: st} })
	}
	return s, nil, false
}

// stripGroup strips the test commands of a ( ... ) or { ...; } group, rebuilding the
// group around what is kept.
func stripGroup(s *syntax.Stmt, stmts []*syntax.Stmt, prefix []string, group func([]*syntax.Stmt) syntax.Command) (*syntax.Stmt, []string, bool) {
	kept, removed, changed := stripList(stmts, prefix)
	if !changed {
		return s, nil, false
	}
	if len(kept) == 0 {
		return nil, removed, true
	}
	ns := *s
	ns.Cmd = group(kept)
	return &ns, removed, true
}

func flattenAnd(b *syntax.BinaryCmd) []*syntax.Stmt {
	var out []*syntax.Stmt
	if xb, ok := b.X.Cmd.(*syntax.BinaryCmd); ok && xb.Op == syntax.AndStmt && len(b.X.Redirs) == 0 && !b.X.Negated {
		out = append(out, flattenAnd(xb)...)
	} else {
		out = append(out, b.X)
	}
	return append(out, b.Y)
}

func joinAnd(stmts []*syntax.Stmt) *syntax.Stmt {
	cur := stmts[0]
	for _, s := range stmts[1:] {
		cur = &syntax.Stmt{Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, X: cur, Y: s}}
	}
	return cur
}

func hasTest(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && !found {
			if _, t := splitTestCall(ce); t != nil {
				found = true
			}
		}
		return !found
	})
	return found
}

// testTargets are make and ninja targets that run tests.
func isTestTarget(t string) bool {
	switch t {
	case "check", "test", "tests", "installcheck", "distcheck", "unittest", "unittests", "RUN_TESTS":
		return true
	}
	return strings.HasPrefix(t, "check-") || strings.HasPrefix(t, "test-") || strings.HasPrefix(t, "check_")
}

// splitTestCall splits a simple command into the part that builds (nil when none) and the
// part that tests (nil when none).
func splitTestCall(ce *syntax.CallExpr) (keep, test *syntax.CallExpr) {
	if len(ce.Args) == 0 {
		return ce, nil
	}
	c := evalCall(ce)
	name := base(c.prog())
	sub := func(i int) string {
		if i < len(c.args) {
			return c.args[i].val()
		}
		return ""
	}
	switch name {
	case "ctest", "pytest", "tox", "nosetests":
		return nil, ce
	case "meson":
		if firstOperand(c.args[1:]) == "test" {
			return nil, ce
		}
	case "go":
		if firstOperand(c.args[1:]) == "test" {
			return nil, ce
		}
	case "cargo":
		switch firstOperand(c.args[1:]) {
		case "test", "nextest", "bench":
			return nil, ce
		}
	case "npm", "yarn", "pnpm":
		if sub(1) == "test" || sub(1) == "run" && sub(2) == "test" {
			return nil, ce
		}
	case "python", "python3":
		if sub(1) == "-m" && (sub(2) == "pytest" || sub(2) == "unittest") {
			return nil, ce
		}
	case "cmake":
		for i, a := range c.args {
			if (a.val() == "--target" || a.val() == "-t") && i+1 < len(c.args) && isTestTarget(c.args[i+1].val()) {
				return nil, ce
			}
		}
	case "make", "gmake", "ninja", "samu":
		return splitTargets(ce, c)
	}
	return ce, nil
}

func firstOperand(args []arg) string {
	for _, a := range args {
		if v := a.val(); !strings.HasPrefix(v, "-") {
			return v
		}
	}
	return ""
}

// makeValueOpts are make and ninja options whose value is a separate word.
var makeValueOpts = map[string]bool{"-C": true, "-f": true, "-I": true, "-o": true, "-W": true, "-l": true, "-t": true, "-d": true, "--directory": true, "--file": true, "--makefile": true}

func splitTargets(ce *syntax.CallExpr, c call) (keep, test *syntax.CallExpr) {
	var keepArgs, testArgs []*syntax.Word
	keepArgs = append(keepArgs, ce.Args[0])
	testArgs = append(testArgs, ce.Args[0])
	hasBuild, hasTest := false, false
	for i := 1; i < len(ce.Args); i++ {
		v := c.args[i].val()
		switch {
		case makeValueOpts[v] && i+1 < len(ce.Args):
			keepArgs = append(keepArgs, ce.Args[i], ce.Args[i+1])
			testArgs = append(testArgs, ce.Args[i], ce.Args[i+1])
			i++
		case v == "-j" && i+1 < len(ce.Args) && isDigits(c.args[i+1].val()):
			keepArgs = append(keepArgs, ce.Args[i], ce.Args[i+1])
			testArgs = append(testArgs, ce.Args[i], ce.Args[i+1])
			i++
		case strings.HasPrefix(v, "-") || shellwords.IsAssignment(v):
			keepArgs = append(keepArgs, ce.Args[i])
			testArgs = append(testArgs, ce.Args[i])
		case isTestTarget(v):
			hasTest = true
			testArgs = append(testArgs, ce.Args[i])
		default:
			hasBuild = true
			keepArgs = append(keepArgs, ce.Args[i])
		}
	}
	if !hasTest {
		return ce, nil
	}
	test = &syntax.CallExpr{Assigns: ce.Assigns, Args: testArgs}
	if !hasBuild {
		return nil, test
	}
	return &syntax.CallExpr{Assigns: ce.Assigns, Args: keepArgs}, test
}
