package validate

import (
	"errors"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

const goodDiff = `--- a/src/cpu.c
+++ b/src/cpu.c
@@ -1,3 +1,3 @@
-#include <immintrin.h>
+#include <stdint.h>
`

func TestFixProposal(t *testing.T) {
	cmd := func(c string) atesor.Action { return atesor.Action{Type: atesor.ActionCommand, Command: c} }
	strat := func(actions ...atesor.Action) *atesor.FixProposal {
		return &atesor.FixProposal{Strategies: []atesor.Strategy{{ID: "1", Actions: actions}}, RecommendedStrategyID: "1"}
	}
	const root = "/workspace/zlib"
	tests := []struct {
		name string
		p    *atesor.FixProposal
		rule string // "" = accepted
	}{
		{"command", strat(cmd("apt-get install -y zlib1g-dev")), ""},
		{"create file", strat(atesor.Action{Type: atesor.ActionCreateFile, Path: "src/config.h", Content: "#define X 1\n"}), ""},
		{"create file absolute in repo", strat(atesor.Action{Type: atesor.ActionCreateFile, Path: root + "/src/config.h", Content: "x"}), ""},
		{"patch", strat(atesor.Action{Type: atesor.ActionPatch, File: "src/cpu.c", Diff: goodDiff}), ""},
		{"investigate", &atesor.FixProposal{Investigate: &atesor.Investigation{Commands: []string{"cat config.log", "grep -rn immintrin src"}}}, ""},
		{"nil", nil, ruleFix},
		{"no strategies", &atesor.FixProposal{Analysis: "x"}, ruleFix},
		{"unknown recommended", &atesor.FixProposal{Strategies: []atesor.Strategy{{ID: "1", Actions: []atesor.Action{cmd("make")}}}, RecommendedStrategyID: "2"}, ruleFix},
		{"no actions", strat(), ruleFix},
		{"chained command", strat(cmd("make && make install")), ruleShellSyntax},
		{"rm root", strat(cmd("rm -rf /")), ruleRmRoot},
		{"git push", strat(cmd("git push")), ruleGitHistory},
		{"touch source", strat(cmd("touch src/stub.c")), ruleTouchSource},
		{"empty command", strat(cmd("")), ruleEmpty},
		{"create file no path", strat(atesor.Action{Type: atesor.ActionCreateFile, Content: "x"}), ruleFix},
		{"create file no content", strat(atesor.Action{Type: atesor.ActionCreateFile, Path: "x.h"}), ruleFix},
		{"create file escape", strat(atesor.Action{Type: atesor.ActionCreateFile, Path: "../x.h", Content: "x"}), rulePath},
		{"create file absolute", strat(atesor.Action{Type: atesor.ActionCreateFile, Path: "/etc/x", Content: "x"}), rulePath},
		{"create file git hook", strat(atesor.Action{Type: atesor.ActionCreateFile, Path: ".git/hooks/pre-commit", Content: "x"}), rulePath},
		{"create file sneaky", strat(atesor.Action{Type: atesor.ActionCreateFile, Path: "src/../../x", Content: "x"}), rulePath},
		{"patch escape", strat(atesor.Action{Type: atesor.ActionPatch, File: "../other/x.c", Diff: goodDiff}), rulePath},
		{"patch no diff", strat(atesor.Action{Type: atesor.ActionPatch, File: "x.c"}), ruleFix},
		{"patch no hunk", strat(atesor.Action{Type: atesor.ActionPatch, File: "x.c", Diff: "--- a/x.c\n+++ b/x.c\n"}), ruleFix},
		{"patch header escape", strat(atesor.Action{Type: atesor.ActionPatch, File: "x.c", Diff: "--- a/x.c\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n"}), rulePath},
		{"unknown action", strat(atesor.Action{Type: "shell", Command: "make"}), ruleFix},
		{"investigate too many", &atesor.FixProposal{Investigate: &atesor.Investigation{Commands: []string{"ls", "ls", "ls", "ls", "ls"}}}, ruleInvestigate},
		{"investigate none", &atesor.FixProposal{Investigate: &atesor.Investigation{}}, ruleInvestigate},
		{"investigate write", &atesor.FixProposal{Investigate: &atesor.Investigation{Commands: []string{"rm -rf build"}}}, ruleInvestigate},
		{"apk add mod", strat(cmd("apk add mod")), ruleGoSubcmdPkg},
	}
	for _, tc := range tests {
		err := FixProposal(tc.p, root)
		if tc.rule == "" {
			if err != nil {
				t.Errorf("%s: FixProposal = %v, want accepted", tc.name, err)
			}
			continue
		}
		var r *Rejection
		if !errors.As(err, &r) || r.Rule != tc.rule {
			t.Errorf("%s: FixProposal = %v, want rule %s", tc.name, err, tc.rule)
		}
	}
	// Without a repository root, absolute paths are refused.
	p := strat(atesor.Action{Type: atesor.ActionCreateFile, Path: root + "/x.h", Content: "x"})
	if err := FixProposal(p, ""); err == nil {
		t.Error("absolute path accepted without a repository root")
	}
}
