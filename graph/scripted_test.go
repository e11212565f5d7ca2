package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// mapFinder is a package index held in memory.
type mapFinder map[string]string

func (m mapFinder) Providers(kind repair.FileKind, name string) []string {
	if p, ok := m[string(kind)+":"+name]; ok {
		return []string{p}
	}
	return nil
}

// pipelineNoModel runs the harness offline (the harness adds WithoutScriptedRepairs only
// for model runs).
func TestOfflineScriptedFixVerifies(t *testing.T) {
	h := newHarness(t, false)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	res := h.run(WithPackageFinder(mapFinder{}))
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	st := h.state()
	if len(st.FixAttempts) != 1 {
		t.Fatalf("fix attempts = %+v", st.FixAttempts)
	}
	f := st.FixAttempts[0]
	if f.Source != atesor.FixSourceScripted || f.Rule != "foreign-arch-flags" || !f.Success || len(f.Files) != 1 || f.Files[0] != "Makefile" {
		t.Errorf("fix attempt = %+v", f)
	}
	if st.Attempts != 1 {
		t.Errorf("attempts = %d, want 1 (the scripted fix counts like any)", st.Attempts)
	}
	rep := h.report()
	if rep.FixesBySource["scripted"] != 1 || rep.FixesByRule["foreign-arch-flags"] != 1 || rep.LLM.Calls != 0 {
		t.Errorf("report counts: by source %v, by rule %v, calls %d", rep.FixesBySource, rep.FixesByRule, rep.LLM.Calls)
	}
	patch, err := os.ReadFile(filepath.Join(h.out, "vecsum_patches", "001-Makefile.patch"))
	if err != nil || !strings.Contains(string(patch), "+CFLAGS = -O2 -Wall") {
		t.Errorf("recorded edit = %q, %v", patch, err)
	}
	recipe, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	if !strings.Contains(string(recipe), "vecsum_patches/001-Makefile.patch") {
		t.Errorf("the recipe does not carry the scripted edit:\n%s", recipe)
	}
}

func TestOfflineMissingPackageInstallsIt(t *testing.T) {
	h := newHarness(t, false)
	h.failsOnce("main.c:3:10: fatal error: zlib.h: No such file or directory\ncompilation terminated.")
	h.builds(0, "riscv64-glibc-hello")
	res := h.run(WithPackageFinder(mapFinder{"header:zlib.h": "zlib1g-dev"}))
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	if !slices.Contains(h.sb.Lines(), "apt-get install -y zlib1g-dev") {
		t.Errorf("the package was not installed: %q", h.sb.Lines())
	}
	st := h.state()
	if len(st.FixAttempts) != 1 || st.FixAttempts[0].Rule != "missing-package" || !slices.Contains(st.ExecutedCommands, "apt-get install -y zlib1g-dev") {
		t.Errorf("fix attempts %+v, executed %q", st.FixAttempts, st.ExecutedCommands)
	}
	var scripted []atesor.Event
	for _, e := range h.events {
		if e.Kind == atesor.EventScriptedFix {
			scripted = append(scripted, e)
		}
	}
	if len(scripted) != 1 || scripted[0].Rule != "missing-package" || scripted[0].Node != NodeFix || !strings.Contains(scripted[0].Line, "zlib1g-dev") {
		t.Errorf("scripted_fix events = %+v, want one for missing-package", scripted)
	}
}

func TestOfflineUncoveredFailureEscalatesWithItsClass(t *testing.T) {
	h := newHarness(t, false)
	h.failsOnce("vecsum.c:7:1: error: expected ';' before '}' token\nmake: *** [Makefile:17: vecsum.o] Error 1")
	res := h.run(WithPackageFinder(mapFinder{}))
	if res.Verified || res.FailureClass != atesor.FailureBuild {
		t.Fatalf("status %s class %s, want failed with class build", res.Status, res.FailureClass)
	}
	if !strings.Contains(res.Reason, "expected ';'") || !strings.Contains(res.Reason, "no scripted rule") {
		t.Errorf("reason %q does not name the failure", res.Reason)
	}
	if st := h.state(); len(st.FixAttempts) != 0 {
		t.Errorf("fix attempts = %+v", st.FixAttempts)
	}
}

// A scripted rule fires once per distinct error: when its fix does not help, an offline
// run escalates instead of repeating it, and the model, when there is one, sees it.
func TestScriptedRuleFiresOncePerError(t *testing.T) {
	h := newHarness(t, false)
	h.failsOnce(m64Error)
	h.failsOnce(m64Error)
	res := h.run(WithPackageFinder(mapFinder{}))
	if res.Verified || res.FailureClass != atesor.FailureBuild {
		t.Fatalf("status %s class %s (%s)", res.Status, res.FailureClass, res.Reason)
	}
	st := h.state()
	if len(st.FixAttempts) != 1 || st.FixAttempts[0].Success {
		t.Errorf("fix attempts = %+v", st.FixAttempts)
	}

	h = newHarness(t, true)
	h.failsOnce(m64Error)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer("make clean"))
	cfg := Config{Sandbox: h.sb, Memory: h.mem, OutputDir: h.out, RunsDir: filepath.Join(h.out, "runs"), Provider: h.prov}
	p, err := New(cfg, WithPackageFinder(mapFinder{}))
	if err != nil {
		t.Fatal(err)
	}
	res = p.mustRun(t, atesor.Request{Source: h.src})
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	prompts := h.promptsOf(atesor.RoleFixer)
	if len(prompts) != 1 || !strings.Contains(prompts[0], "scripted rule foreign-arch-flags") {
		t.Errorf("the fixer prompt does not show the scripted attempt: %d prompts", len(prompts))
	}
	st = h.state()
	if len(st.FixAttempts) != 2 || st.FixAttempts[0].Source != atesor.FixSourceScripted || st.FixAttempts[1].Source != atesor.FixSourceModel {
		t.Errorf("fix attempts = %+v", st.FixAttempts)
	}
}

// An offline run whose failure a rule claims but cannot repair (no package provides the
// header) escalates after one try, with the build's error, not after the attempt limit.
func TestOfflineClaimWithoutFixEscalatesOnce(t *testing.T) {
	h := newHarness(t, false)
	h.failsOnce("main.c:3:10: fatal error: nowhere.h: No such file or directory\ncompilation terminated.")
	res := h.run(WithPackageFinder(mapFinder{}))
	if res.Verified || res.FailureClass != atesor.FailureBuild || !strings.Contains(res.Reason, "nowhere.h") {
		t.Fatalf("status %s class %s reason %q", res.Status, res.FailureClass, res.Reason)
	}
	if st := h.state(); st.Attempts != 2 {
		t.Errorf("attempts = %d, want 2 (the failed build and the fix no rule could make)", st.Attempts)
	}
}
