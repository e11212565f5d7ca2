package repair

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestGettextVersionMismatch runs the rule, through Propose, on chromium-bsu
// 0.9.16.1's real po/ failure in the riscv64 sandbox (its configure.ac pins
// AM_GNU_GETTEXT_VERSION([0.18]); the port's autoreconf -fi took trixie's po.m4).
func TestGettextVersionMismatch(t *testing.T) {
	ac := readLog(t, "autotools/chromium-bsu-0.9.16.1.configure.ac")
	required := strings.Replace(ac, "AM_GNU_GETTEXT_VERSION([0.18])", "AM_GNU_GETTEXT_REQUIRE_VERSION([0.18])", 1)
	const setup = "apt-get update && apt-get install -y build-essential autoconf automake libtool pkgconf make libsdl2-dev"
	plan := func(build string, setup string) *atesor.BuildPlan {
		return &atesor.BuildPlan{Phases: []atesor.Phase{
			{Name: "setup", Commands: []string{setup}},
			{Name: "build", Commands: []string{build}},
		}}
	}
	tests := []struct {
		name        string
		log         string
		tree        memTree
		plan        *atesor.BuildPlan
		wantSetup   string // "" with wantBuild "": no new plan
		wantBuild   string
		wantPatched []string // patched files; nil: no fix
		wantDiff    string   // the configure.ac patch's changed lines
	}{
		{name: "the port's autoreconf, autopoint installed by a fix action", log: "gettext-mismatch-chromium-bsu.log",
			tree: memTree{"configure.ac": ac, "configure": "#!/bin/sh\n", "po/Makefile.in.in": ""},
			plan: plan("autoreconf -fi && ./configure && make -j$(nproc)", setup),
			// The plan keeps its autoreconf; autopoint joins its setup so the recipe has it.
			wantSetup: setup + " autopoint", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantPatched: []string{"configure.ac"},
			wantDiff:    "-AM_GNU_GETTEXT_VERSION([0.18])\n+AM_GNU_GETTEXT_REQUIRE_VERSION([0.18])\n"},
		{name: "a shipped configure: autoreconf goes before it", log: "gettext-mismatch-chromium-bsu.log",
			tree:      memTree{"configure.ac": ac, "configure": "#!/bin/sh\n"},
			plan:      plan("./configure && make -j$(nproc)", setup),
			wantSetup: setup + " autopoint pkg-config", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantPatched: []string{"configure.ac"},
			wantDiff:    "-AM_GNU_GETTEXT_VERSION([0.18])\n+AM_GNU_GETTEXT_REQUIRE_VERSION([0.18])\n"},
		{name: "already asks for the installed gettext, plan without autoreconf", log: "gettext-mismatch-chromium-bsu.log",
			tree:      memTree{"configure.ac": required, "configure": "#!/bin/sh\n"},
			plan:      plan("./configure && make -j$(nproc)", setup),
			wantSetup: setup + " autopoint pkg-config", wantBuild: "autoreconf -fi && ./configure && make -j$(nproc)",
			wantPatched: []string{}},
		{name: "already asks for it and regenerates with autopoint: another cause", log: "gettext-mismatch-chromium-bsu.log",
			tree: memTree{"configure.ac": required, "configure": "#!/bin/sh\n"},
			plan: plan("autoreconf -fi && ./configure && make -j$(nproc)", setup+" autopoint")},
		{name: "no AM_GNU_GETTEXT_VERSION", log: "gettext-mismatch-chromium-bsu.log",
			tree: memTree{"configure.ac": strings.Replace(ac, "AM_GNU_GETTEXT_VERSION([0.18])\n", "\n", 1), "configure": "#!/bin/sh\n"},
			plan: plan("./configure && make -j$(nproc)", setup)},
		{name: "no ./configure in the plan", log: "gettext-mismatch-chromium-bsu.log",
			tree: memTree{"configure.ac": ac},
			plan: plan("sh autogen.sh && make -j$(nproc)", setup)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.plan.Phases[1].Commands[0])
			env := Env{Platform: debian(t), Plan: tt.plan, Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, notes := Propose(context.Background(), f, env, nil)
			if tt.wantPatched == nil {
				if fix != nil && fix.Rule == "gettext-version-mismatch" {
					t.Fatalf("fix %+v, want none", fix)
				}
				if !strings.Contains(strings.Join(notes, "\n"), "gettext-version-mismatch: ") {
					t.Errorf("notes %v do not say why the rule made no fix", notes)
				}
				return
			}
			if fix == nil || fix.Rule != "gettext-version-mismatch" {
				t.Fatalf("fix %+v, notes %v", fix, notes)
			}
			got := []string{}
			for _, a := range fix.Actions {
				if a.Type != atesor.ActionPatch {
					t.Errorf("action %+v is not a patch", a)
					continue
				}
				got = append(got, a.File)
				var changed strings.Builder
				for _, l := range strings.SplitAfter(a.Diff, "\n") {
					if (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+")) && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "+++") {
						changed.WriteString(l)
					}
				}
				if d := cmp.Diff(tt.wantDiff, changed.String()); d != "" {
					t.Errorf("%s's patch (-want +got):\n%s", a.File, d)
				}
			}
			if d := cmp.Diff(tt.wantPatched, got); d != "" {
				t.Errorf("patched files (-want +got):\n%s", d)
			}
			if fix.Plan == nil {
				t.Fatal("no new plan")
			}
			if d := cmp.Diff([]string{tt.wantSetup, tt.wantBuild}, []string{fix.Plan.Phases[0].Commands[0], fix.Plan.Phases[1].Commands[0]}); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			p := atesor.FixProposal{RecommendedStrategyID: "1", Strategies: []atesor.Strategy{{ID: "1", Actions: fix.Actions}}}
			if len(fix.Actions) > 0 {
				if err := validate.FixProposal(&p, "/workspace/chromium-bsu"); err != nil {
					t.Errorf("the fix fails the fix validation: %v", err)
				}
			}
			if !strings.Contains(fix.Analysis, "gettext 0.18") {
				t.Errorf("the analysis does not name the Makefile.in.in's version: %s", fix.Analysis)
			}
			tried := func(rule, key string) bool { return rule == fix.Rule && key == ErrorKey(f.Message) }
			if again, _ := Propose(context.Background(), f, env, tried); again != nil && again.Rule == fix.Rule {
				t.Errorf("%s fired twice on one error", fix.Rule)
			}
		})
	}
}

// TestGettextVersionPatchApplies checks that the recorded configure.ac edit is a diff
// patch(1) applies to the real file.
func TestGettextVersionPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) is not installed")
	}
	ac := readLog(t, "autotools/chromium-bsu-0.9.16.1.configure.ac")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "configure.ac"), []byte(ac), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := memTree{"configure.ac": ac, "configure": "#!/bin/sh\n"}
	f := buildFailure(t, "gettext-mismatch-chromium-bsu.log", "./configure && make -j$(nproc)")
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan("./configure && make -j$(nproc)"), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "gettext-version-mismatch" || len(fix.Actions) != 1 {
		t.Fatalf("fix = %+v, notes %v", fix, notes)
	}
	cmd := exec.Command("patch", "--batch", "--forward", "-p1")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(fix.Actions[0].Diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, fix.Actions[0].Diff)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "configure.ac"))
	want := strings.Replace(ac, "AM_GNU_GETTEXT_VERSION([0.18])", "AM_GNU_GETTEXT_REQUIRE_VERSION([0.18])", 1)
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("patched configure.ac (-want +got):\n%s", d)
	}
}
