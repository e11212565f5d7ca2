package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// lineSeen collects the lines of plans and fixes as the embedder's validators see them:
// after the pipeline's own rules, so exactly the lines that were validated.
type lineSeen struct {
	mu    sync.Mutex
	lines map[string]bool
}

func (l *lineSeen) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lines == nil {
		l.lines = map[string]bool{}
	}
	l.lines[s] = true
}

type seenPlan struct{ *lineSeen }

func (v seenPlan) Validate(p *atesor.BuildPlan) error {
	for _, ph := range p.Phases {
		for _, c := range ph.Commands {
			v.add(c)
		}
	}
	return nil
}

type seenFix struct{ *lineSeen }

func (v seenFix) Validate(p *atesor.FixProposal) error {
	for _, s := range p.Strategies {
		for _, a := range s.Actions {
			if a.Type == atesor.ActionCommand {
				v.add(a.Command)
			}
		}
	}
	if p.Investigate != nil {
		for _, c := range p.Investigate.Commands {
			v.add(c)
		}
	}
	return nil
}

// checkOneLine asserts that the line validated, recorded and run is one string: every
// command recorded in the state (plan lines and fix commands) and in the recipe's
// command block was run exactly so, is already corrected (correcting it again changes
// nothing) and passes the deny rules; every line run is already corrected; and when
// validated is given, every plan line and fix command recorded and every install line
// that ran is one of the validated lines.
func checkOneLine(t *testing.T, p atesor.Platform, ran []string, st atesor.State, md string, validated map[string]bool) {
	t.Helper()
	runSet := map[string]bool{}
	for _, l := range ran {
		runSet[l] = true
		if c := knowledge.CorrectInstallCommand(p, l); c != l {
			t.Errorf("the line %q ran uncorrected (corrected: %q)", l, c)
		}
	}
	recorded := append([]string(nil), st.ExecutedCommands...)
	for _, a := range st.FixAttempts {
		recorded = append(recorded, a.Commands...)
	}
	block, err := recipe.Commands(md)
	if err != nil {
		t.Fatalf("recipe: %v", err)
	}
	if d := cmp.Diff(st.ExecutedCommands, block); d != "" {
		t.Errorf("the recipe's commands are not the state's (-state +recipe):\n%s", d)
	}
	for _, l := range recorded {
		if !runSet[l] {
			t.Errorf("recorded %q, which never ran as such; ran:\n%s", l, strings.Join(ran, "\n"))
		}
		if c := knowledge.CorrectInstallCommand(p, l); c != l {
			t.Errorf("recorded %q uncorrected (corrected: %q)", l, c)
		}
		if err := validate.DenyRules(l); err != nil {
			t.Errorf("recorded %q breaks the deny rules: %v", l, err)
		}
	}
	if validated == nil {
		return
	}
	// The lines that came from answers (the plan's and the fixes'; the pipeline's own
	// lines, such as the install step, pass the deny rules above).
	var answered []string
	if st.Plan != nil {
		for _, ph := range st.Plan.Phases {
			answered = append(answered, ph.Commands...)
		}
	}
	for _, a := range st.FixAttempts {
		answered = append(answered, a.Commands...)
	}
	for _, l := range answered {
		if !validated[l] {
			t.Errorf("recorded %q, which was never validated as such", l)
		}
	}
	for _, l := range ran {
		if sandbox.IsPackageManagerCommand(l) && strings.Contains(l, " install ") && !validated[l] {
			t.Errorf("the install line %q ran but was never validated as such", l)
		}
	}
}

// TestExecutedLineIsValidatedLine: the scout's plan and the fixer's commands name
// packages by other distributions' names (zlib-dev, yaml-dev, openssl-dev); the line
// that is validated, recorded in the state and the recipe, and run by the sandbox is
// the corrected one, for every command of the port, and the uncorrected names never
// reach the sandbox.
func TestExecutedLineIsValidatedLine(t *testing.T) {
	h := newHarness(t, true)
	seen := &lineSeen{}
	h.failsOnce("main.c:3:10: fatal error: openssl/ssl.h: No such file or directory")
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RolePlanner, `{"purpose": "sums numbers", "build_system": {"type": "make", "confidence": 0.9, "reasoning": "Makefile"}, "dependencies": [], "needs_custom_plan": true}`)
	h.prov.Queue(atesor.RoleScout, `{"phases": [{"name": "deps", "commands": ["apt-get install -y --no-install-recommends zlib-dev yaml-dev=0.2.5-2 make"]}, {"name": "build", "commands": ["make -j$(nproc)"]}, {"name": "test", "commands": ["make check"]}]}`)
	h.prov.Queue(atesor.RoleFixer, `{"investigate": {"commands": ["grep -n ssl Makefile"]}}`, fixAnswer("apt-get install -y openssl-dev"))
	res := h.run(WithValidator[atesor.BuildPlan](seenPlan{seen}), WithValidator[atesor.FixProposal](seenFix{seen}))
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	st := h.state()
	recipe, err := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	ran := h.sb.Lines()
	for _, want := range []string{"apt-get install -y --no-install-recommends zlib1g-dev libyaml-dev=0.2.5-2 make", "apt-get install -y libssl-dev"} {
		if !slices.Contains(ran, want) || !seen.lines[want] || !slices.Contains(st.ExecutedCommands, want) {
			t.Errorf("%q: ran %v, validated %v, recorded %v", want, slices.Contains(ran, want), seen.lines[want], slices.Contains(st.ExecutedCommands, want))
		}
	}
	for _, l := range ran {
		for _, wrong := range []string{"zlib-dev", "yaml-dev=", "openssl-dev"} {
			if strings.Contains(l, " "+wrong) {
				t.Errorf("the sandbox ran %q, with the uncorrected %s", l, wrong)
			}
		}
	}
	if len(st.FixAttempts) != 1 || len(st.FixAttempts[0].Commands) != 1 {
		t.Fatalf("fix attempts = %+v", st.FixAttempts)
	}
	checkOneLine(t, h.platform, ran, st, string(recipe), seen.lines)
}
