package validate

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// MaxInvestigationCommands is how many commands one investigation round may run.
const MaxInvestigationCommands = 4

// FixCommand checks one command action of a fixer answer. It first applies the deny
// rules ([DenyRules]: rm -rf / and its variants, git push, git reset --hard, git clean,
// touch of a source file, writes to system files, package removal, ...), then refuses a
// go subcommand installed as a package (apk add mod) and cross-compilation (the sandbox
// builds natively), then requires exactly one allowed simple command ([SingleCommand]).
func FixCommand(cmd string) error {
	return fixCommand(cmd, newFlow())
}

// fixCommand is FixCommand with the flow of the fix's earlier actions.
func fixCommand(cmd string, fx *flow) error {
	if strings.TrimSpace(cmd) == "" {
		return reject(ruleEmpty, "", "the command is empty", "write one command such as apt-get install -y zlib1g-dev")
	}
	f, err := parseLine(cmd)
	if err != nil {
		return err
	}
	if err := denyNode(f, 0, true, fx); err != nil {
		return err
	}
	if err := SingleCommand(cmd); err != nil {
		return err
	}
	if c, ok := firstCall(cmd); ok {
		if err := crossCompile(c, cmd); err != nil {
			return err
		}
		if pkg := goSubcommandPackage(c); pkg != "" {
			return reject(ruleGoSubcmdPkg, cmd, `"`+pkg+`" is a go subcommand, not a package`, "install real packages (golang-go) and run go "+pkg+" as its own command")
		}
	}
	return nil
}

func firstCall(cmd string) (call, bool) {
	stmt, err := oneStatement(cmd)
	if err != nil {
		return call{}, false
	}
	ce, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return call{}, false
	}
	return evalCall(ce), true
}

// FixProposal checks a fixer answer. An investigation request needs 1 to 4 commands that
// pass [InvestigationCommand]. Otherwise: strategies are present; the recommended
// strategy exists and has actions; every action of the recommended strategy (the one
// Atesor applies) is valid: a command passes [FixCommand]; create_file has a path and
// content, and the path stays inside the repository; patch has a file and a unified diff,
// and the file and every path in the diff headers stay inside the repository. repoRoot is
// the repository's sandbox path (for example /workspace/zlib): absolute paths below it are
// accepted; with "" every absolute path is refused. Paths into .git are refused. The
// actions are also checked together: a file created or downloaded by an earlier action
// may not be run by a later one, nothing may be written or deleted through a link an
// earlier action made to outside the repository, and a repository cloned or fetched by
// an earlier action may not be built.
func FixProposal(p *atesor.FixProposal, repoRoot string) error {
	if p == nil {
		return reject(ruleFix, "", "the answer is empty", `answer {"analysis": "...", "strategies": [...], "recommended_strategy_id": 1}`)
	}
	if p.Investigate != nil {
		cmds := p.Investigate.Commands
		if len(cmds) == 0 {
			return reject(ruleInvestigate, "investigate.commands", "there are no commands", "list 1 to 4 read-only commands, or propose a fix")
		}
		if len(cmds) > MaxInvestigationCommands {
			return reject(ruleInvestigate, "investigate.commands", fmt.Sprintf("there are %d commands", len(cmds)), "list at most 4 read-only commands")
		}
		for i, c := range cmds {
			if err := InvestigationCommand(c); err != nil {
				return within(err, fmt.Sprintf("investigate command %d", i+1))
			}
		}
		if len(p.Strategies) == 0 {
			return nil
		}
	}
	if len(p.Strategies) == 0 {
		return reject(ruleFix, "strategies", "the answer has no strategies", `give at least one strategy {"id": 1, "description": "...", "actions": [...]} and set recommended_strategy_id`)
	}
	rec := p.Recommended()
	if rec == nil {
		ids := make([]string, 0, len(p.Strategies))
		for _, s := range p.Strategies {
			ids = append(ids, string(s.ID))
		}
		return reject(ruleFix, "recommended_strategy_id", fmt.Sprintf("no strategy has id %q (ids: %s)", p.RecommendedStrategyID, strings.Join(ids, ", ")), "set recommended_strategy_id to the id of one of the strategies")
	}
	if len(rec.Actions) == 0 {
		return reject(ruleFix, "strategy "+string(rec.ID), "the recommended strategy has no actions", "give it at least one command, create_file or patch action")
	}
	fx := newFlow()
	for i, a := range rec.Actions {
		if err := action(a, repoRoot, fx); err != nil {
			return within(err, fmt.Sprintf("strategy %s, action %d (%s)", rec.ID, i+1, a.Type))
		}
	}
	return nil
}

func action(a atesor.Action, repoRoot string, fx *flow) error {
	switch a.Type {
	case atesor.ActionCommand:
		return fixCommand(a.Command, fx)
	case atesor.ActionCreateFile:
		if strings.TrimSpace(a.Path) == "" {
			return reject(ruleFix, "", "create_file has no path", "give the path relative to the repository root")
		}
		if a.Content == "" {
			return reject(ruleFix, a.Path, "create_file has no content", "give the whole file content")
		}
		if why := repoRelative(a.Path, repoRoot); why != "" {
			return reject(rulePath, a.Path, why, "write files inside the repository, with a path relative to its root")
		}
		rel := strings.TrimPrefix(a.Path, strings.TrimSuffix(repoRoot, "/")+"/")
		if err := denyWriteThrough(call{fx: fx}, rel); err != nil {
			return within(err, a.Path)
		}
		fx.record(rel, "created by a create_file action")
	case atesor.ActionPatch:
		if strings.TrimSpace(a.File) == "" {
			return reject(ruleFix, "", "patch has no file", "name the file the diff changes, relative to the repository root")
		}
		if why := repoRelative(a.File, repoRoot); why != "" {
			return reject(rulePath, a.File, why, "patch files inside the repository, with a path relative to its root")
		}
		if err := denyWriteThrough(call{fx: fx}, strings.TrimPrefix(a.File, strings.TrimSuffix(repoRoot, "/")+"/")); err != nil {
			return within(err, a.File)
		}
		return diffPaths(a.Diff, repoRoot)
	default:
		return reject(ruleFix, string(a.Type), "unknown action type", "use command, create_file or patch")
	}
	return nil
}

// diffPaths checks that a unified diff has hunks and that its file headers stay inside
// the repository.
func diffPaths(diff, repoRoot string) error {
	if strings.TrimSpace(diff) == "" {
		return reject(ruleFix, "", "patch has no diff", "give a unified diff with ---, +++ and @@ lines")
	}
	if !strings.Contains(diff, "@@") {
		return reject(ruleFix, "", "the diff has no @@ hunk", "give a unified diff with ---, +++ and @@ lines")
	}
	for _, line := range strings.Split(diff, "\n") {
		var p string
		switch {
		case strings.HasPrefix(line, "--- "):
			p = strings.TrimPrefix(line, "--- ")
		case strings.HasPrefix(line, "+++ "):
			p = strings.TrimPrefix(line, "+++ ")
		default:
			continue
		}
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i]
		}
		p = strings.TrimSpace(p)
		if p == "/dev/null" {
			continue
		}
		stripped := p
		if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
			stripped = p[2:]
		}
		if why := repoRelative(stripped, repoRoot); why != "" {
			return reject(rulePath, p, "the diff header names a file where "+why, "use paths relative to the repository root (a/src/x.c, b/src/x.c)")
		}
	}
	return nil
}
