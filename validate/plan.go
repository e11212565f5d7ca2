package validate

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// placeholders are texts that show a model copied an example instead of a real path.
var placeholders = []string{
	"/path/to/", "path/to/your", "your_username", "your-username", "yourusername", "<username>",
	"example.com", "example.org", "/your/", "your_repo", "your-repo", "your_project",
	"your-project", "<your",
}

// BuildPlan checks a scout build plan with the scout rules: phases is non-empty,
// each phase has a name and non-empty string commands, and no command line
//
//   - hides its failure (|| true, || :, || exit 0, || echo ..., ; true);
//   - uses a placeholder path (/path/to/, your_username, example.com) or a guessed /home/
//     path (the package is at /workspace/<repo>, HOME is /root);
//   - cross-compiles (a compiler of another machine such as aarch64-linux-gnu-gcc or the
//     riscv64-unknown-linux-gnu cross toolchain, --host= naming another machine,
//     CROSS_COMPILE=, CMAKE_TOOLCHAIN_FILE, --cross-file, GOARCH/GOOS, cargo --target,
//     clang --target): the sandbox builds natively, so the native triplet
//     (--host=riscv64-linux-gnu, CC=riscv64-linux-gnu-gcc) is allowed;
//   - runs a file that an earlier command of the plan wrote, decoded or downloaded, or
//     builds a repository it cloned (see [FixProposal] for the other flows);
//   - installs a go subcommand as a package (apt-get install -y build, apk add mod);
//   - makes a nested cmake build directory (cd build && cmake -B build ..);
//   - breaks a rule of [DenyRules], checked on every simple command of the line.
//
// Lines may chain commands (&&, ;, |) and use $(nproc). A plan that only runs tests is
// rejected too: the tests run after verification (see [StripTestCommands]).
func BuildPlan(p *atesor.BuildPlan) error {
	if p == nil || len(p.Phases) == 0 {
		return reject(rulePlanShape, "phases", "the plan has no phases", `answer {"phases": [{"name": "build", "commands": ["..."]}]}`)
	}
	builds := false
	fx := newFlow()
	for i, ph := range p.Phases {
		where := fmt.Sprintf("phase %d", i+1)
		if strings.TrimSpace(ph.Name) == "" {
			return reject(rulePlanShape, where, "the phase has no name", "give every phase a name such as configure or build")
		}
		where = fmt.Sprintf("phase %d (%s)", i+1, ph.Name)
		if len(ph.Commands) == 0 {
			return reject(rulePlanShape, where, "the phase has no commands", "give every phase at least one command")
		}
		for j, line := range ph.Commands {
			f, err := planLine(line, fx)
			if err != nil {
				return within(err, fmt.Sprintf("%s, command %d", where, j+1))
			}
			if kept, _, changed := stripList(f.Stmts, nil); !changed || len(kept) > 0 {
				builds = true
			}
		}
	}
	if !builds {
		return reject(ruleOnlyTests, "", "the plan only runs tests", "add the configure and build commands; Atesor runs the package tests itself after verification")
	}
	return nil
}

// PlanLine checks one command line of a build plan with the rules of [BuildPlan].
func PlanLine(line string) error {
	_, err := planLine(line, newFlow())
	return err
}

func planLine(line string, fx *flow) (*syntax.File, error) {
	if strings.TrimSpace(line) == "" {
		return nil, reject(rulePlanShape, "", "the command is empty", "remove empty commands")
	}
	lower := strings.ToLower(line)
	for _, ph := range placeholders {
		if strings.Contains(lower, ph) {
			return nil, reject(rulePlaceholder, line, "it uses the placeholder "+ph, "use real paths relative to the repository root, where every command starts")
		}
	}
	if strings.Contains(line, "/home/") {
		return nil, reject(ruleHomePath, line, "it guesses a /home/ path", "use paths relative to the repository root (the package is at /workspace/<repo>, HOME is /root)")
	}
	f, err := parseLine(line)
	if err != nil {
		return nil, err
	}
	err = denyNodeWith(f, 0, false, fx, func(c call) error {
		if err := crossCompile(c, line); err != nil {
			return err
		}
		if pkg := goSubcommandPackage(c); pkg != "" {
			return reject(ruleGoSubcmdPkg, line, `"`+pkg+`" is a go subcommand, not a package`, "install real packages (golang-go, build-essential) and run go "+pkg+" as its own command")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := failureHiding(f, line); err != nil {
		return nil, err
	}
	if err := nestedBuildDir(f, line); err != nil {
		return nil, err
	}
	return f, nil
}

// benign reports whether a command does nothing that can fail: true, :, exit 0, echo.
func benign(cmd syntax.Command) bool {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		w := evalCall(c)
		switch base(w.prog()) {
		case "true", ":", "echo", "printf":
			return true
		case "exit", "return":
			return len(w.args) == 1 || w.args[1].val() == "0"
		}
	case *syntax.Block:
		return allBenign(c.Stmts)
	case *syntax.Subshell:
		return allBenign(c.Stmts)
	case *syntax.BinaryCmd:
		return benign(c.X.Cmd) && benign(c.Y.Cmd)
	}
	return false
}

func allBenign(stmts []*syntax.Stmt) bool {
	for _, s := range stmts {
		if !benign(s.Cmd) {
			return false
		}
	}
	return len(stmts) > 0
}

func noOp(cmd syntax.Command) bool {
	c, ok := cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return false
	}
	w := evalCall(c)
	switch base(w.prog()) {
	case "true", ":":
		return true
	case "exit":
		return len(w.args) == 1 || w.args[1].val() == "0"
	}
	return false
}

func failureHiding(f *syntax.File, line string) error {
	const instead = "let the step fail, so the fixer sees the real error"
	var err error
	checkList := func(stmts []*syntax.Stmt) {
		for i, s := range stmts {
			if i > 0 && noOp(s.Cmd) && err == nil {
				err = reject(ruleFailureHiding, line, "a trailing "+printNode(s)+" hides the failure of the step before it", instead)
			}
		}
	}
	checkList(f.Stmts)
	syntax.Walk(f, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.OrStmt && benign(n.Y.Cmd) {
				err = reject(ruleFailureHiding, line, "|| "+printNode(n.Y)+" hides a failed step", instead)
			}
		case *syntax.Block:
			checkList(n.Stmts)
		case *syntax.Subshell:
			checkList(n.Stmts)
		}
		return err == nil
	})
	return err
}

// nestedBuildDir finds cmake commands that make or use a build directory inside the
// directory a previous cd of the same line entered (cd build && cmake -B build ..).
func nestedBuildDir(f *syntax.File, line string) error {
	var err error
	var visit func(stmts []*syntax.Stmt, cd string) string
	var visitCmd func(cmd syntax.Command, cd string) string
	visitCmd = func(cmd syntax.Command, cd string) string {
		if err != nil {
			return cd
		}
		switch x := cmd.(type) {
		case *syntax.BinaryCmd:
			cd = visitCmd(x.X.Cmd, cd)
			return visitCmd(x.Y.Cmd, cd)
		case *syntax.Block:
			return visit(x.Stmts, cd)
		case *syntax.Subshell:
			visit(x.Stmts, cd)
			return cd
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return cd
			}
			c := evalCall(x)
			switch base(c.prog()) {
			case "cd", "pushd":
				if len(c.args) > 1 && c.args[1].static() {
					d := path.Clean(c.args[1].val())
					if d != "." && d != ".." && !strings.HasPrefix(d, "../") && !strings.HasPrefix(d, "/") && d != "-" {
						return d
					}
				}
				return ""
			case "cmake":
				if cd == "" {
					return cd
				}
				for i, a := range c.args[1:] {
					v := a.val()
					var dir string
					switch {
					case (v == "-B" || v == "--build") && i+2 < len(c.args):
						dir = c.args[i+2].val()
					case strings.HasPrefix(v, "-B") && len(v) > 2:
						dir = v[2:]
					default:
						continue
					}
					d := path.Clean(dir)
					if d != "." && d != ".." && !strings.HasPrefix(d, "../") && !strings.HasPrefix(d, "/") {
						err = reject(ruleNestedBuild, line, "after cd "+cd+", "+v+" "+dir+" makes or uses "+cd+"/"+d, "stay in the repository root and run cmake -S . -B "+cd+" then cmake --build "+cd)
						return cd
					}
				}
			}
		}
		return cd
	}
	visit = func(stmts []*syntax.Stmt, cd string) string {
		for _, s := range stmts {
			cd = visitCmd(s.Cmd, cd)
		}
		return cd
	}
	visit(f.Stmts, "")
	return err
}
