package repair

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// heraTree is Debian's hera 2.0.0+git20221115.8bfdd4b+dfsg as the rules read it: its
// real CMakeLists.txt files (extern/ holds opts/ only: the repack stripped Catch2).
func heraTree(t testing.TB) memTree {
	t.Helper()
	return memTree{
		"CMakeLists.txt":                   readLog(t, "cmake/hera-2.0.0.txt"),
		"bottleneck/CMakeLists.txt":        readLog(t, "cmake/hera-2.0.0-bottleneck.txt"),
		"bottleneck/tests/CMakeLists.txt":  readLog(t, "cmake/hera-2.0.0-bottleneck-tests.txt"),
		"wasserstein/CMakeLists.txt":       readLog(t, "cmake/hera-2.0.0-wasserstein.txt"),
		"wasserstein/tests/CMakeLists.txt": readLog(t, "cmake/hera-2.0.0-wasserstein-tests.txt"),
		"matching/CMakeLists.txt":          readLog(t, "cmake/hera-2.0.0-matching.txt"),
		"extern/opts/include/opts/opts.h":  "",
	}
}

// heraCase is the real failed verification of hera's offline port (nothing installed,
// the tree's project declares only add_library(hera INTERFACE)) and the plan it built.
func heraCase(t testing.TB) (atesor.ErrorRecord, *atesor.BuildPlan) {
	t.Helper()
	var doc struct {
		Error atesor.ErrorRecord `json:"error"`
		Plan  atesor.BuildPlan   `json:"plan"`
	}
	if err := json.Unmarshal([]byte(readLog(t, "headeronly-hera.json")), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Error, &doc.Plan
}

// TestHeaderOnlyTestsHera: hera's tests sit under if(HERA_BUILD_EXAMPLES), an
// examples option, and HERA_BUILD_TESTS (declared option(HERA_BUILD_TESTS OFF): its
// help text is "OFF", its default OFF) turns the examples on with a plain set(), so
// -DHERA_BUILD_TESTS=ON alone builds them; a set() inside a block no test option opens
// does not count, and an earlier fix's OFF is not turned back.
func TestHeaderOnlyTestsHera(t *testing.T) {
	rec, plan := heraCase(t)
	tree := heraTree(t)
	gui := maps.Clone(tree)
	gui["CMakeLists.txt"] = strings.Replace(tree["CMakeLists.txt"], "if(HERA_BUILD_TESTS)\n    # TODO", "option(WITH_GUI \"gui\" OFF)\nif(WITH_GUI)\n    # TODO", 1)
	off := atesor.FixAttempt{Source: atesor.FixSourceScripted, Rule: "cmake-missing-subdir", Strategy: "configure with -DHERA_BUILD_TESTS=OFF"}
	tests := []struct {
		name     string
		tree     memTree
		fixes    []atesor.FixAttempt
		dist     *Distribution
		planLine string
		setup    string
		why      string
	}{
		{name: "the tests option, which turns the examples on",
			tree:     tree,
			planLine: "cmake -DHERA_BUILD_TESTS=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "Build-Depends bring catch2",
			tree: tree, dist: &Distribution{Package: "hera", Version: "2.0.0+git20221115.8bfdd4b+dfsg-1", BuildDepends: []string{"debhelper-compat", "cmake", "catch2", "libboost-dev"}},
			planLine: "cmake -DHERA_BUILD_TESTS=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf libboost-dev catch2"},
		{name: "the examples set on only in a block no test option opens",
			tree: gui, why: "only when a condition no test option sets holds"},
		{name: "an earlier fix configured the tests off",
			tree: tree, fixes: []atesor.FixAttempt{off}, why: "an earlier fix (cmake-missing-subdir) configured -DHERA_BUILD_TESTS=OFF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: rec.Category, Message: rec.Message, Phase: PhaseVerify}
			if got := Claims(f, nil); !slices.Equal(got, []string{headerOnlyRuleName}) {
				t.Fatalf("claims %v, want only %s", got, headerOnlyRuleName)
			}
			env := Env{Platform: atesor.Platform{Name: "debian", PackageManager: "apt-get", InstallCommand: "apt-get install -y"},
				Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Fixes: tt.fixes}
			if tt.dist != nil {
				env.Distribution = distOf(tt.dist)
			}
			fix, notes := Propose(context.Background(), f, env, nil)
			if tt.why != "" {
				if fix != nil || len(notes) != 1 || !strings.Contains(notes[0], tt.why) {
					t.Fatalf("fix %+v, notes %q; want none saying %q", fix, notes, tt.why)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %v", notes)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("plan refused: %v", err)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build %q, want %q", got, tt.planLine)
			}
			setup := cmp.Or(tt.setup, plan.Phases[0].Commands[0])
			if got := fix.Plan.Phases[0].Commands[0]; got != setup {
				t.Errorf("setup %q, want %q", got, setup)
			}
			if !strings.Contains(fix.Analysis, "declares only INTERFACE libraries") || strings.Contains(fix.Strategy, "HERA_BUILD_EXAMPLES") {
				t.Errorf("analysis %q, strategy %q", fix.Analysis, fix.Strategy)
			}
		})
	}
}

// TestCMakeSubdirHeraAfterTests: the configure that the header-only fix turned
// HERA_BUILD_TESTS on for stops at add_subdirectory(extern/Catch2), which the repack
// stripped (hera's real output). Gating the tests off again would undo that fix, so
// the distro's Catch2 stands in for the directory; with no such earlier fix the rule
// still gates the tests off.
func TestCMakeSubdirHeraAfterTests(t *testing.T) {
	tree := heraTree(t)
	line := "cmake -DHERA_BUILD_TESTS=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential cmake pkgconf libboost-dev"}},
		{Name: "build", Commands: []string{line}}}}
	on := atesor.FixAttempt{Source: atesor.FixSourceScripted, Rule: headerOnlyRuleName,
		Strategy: "build the test programs: install libboost-dev and configure with -DHERA_BUILD_TESTS=ON"}
	f := buildFailure(t, "cmake-subdir-hera.log", line)
	if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "cmake-missing-subdir") {
		t.Fatalf("claims %v", claims)
	}
	env := Env{Platform: debian(t), Plan: plan, Files: tree.files(), ReadFile: tree.read, Fixes: []atesor.FixAttempt{on}}
	fix, why := makeCMakeSubdir(context.Background(), f, env)
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	if got := fix.Plan.Phases[1].Commands[0]; got != line {
		t.Errorf("build %q, want it unchanged", got)
	}
	if got := fix.Plan.Phases[0].Commands[0]; !strings.HasSuffix(got, " catch2") {
		t.Errorf("setup %q, want catch2 installed", got)
	}
	if len(fix.Actions) != 1 || fix.Actions[0].Path != "extern/Catch2/CMakeLists.txt" || !strings.Contains(fix.Actions[0].Content, "find_package(Catch2 REQUIRED)") {
		t.Errorf("actions %+v", fix.Actions)
	}
	env.Fixes = nil
	fix, why = makeCMakeSubdir(context.Background(), f, env)
	if fix == nil || !strings.Contains(fix.Plan.Phases[1].Commands[0], "-DHERA_BUILD_TESTS=OFF") {
		t.Errorf("without the earlier fix: %+v %s", fix, why)
	}
	// A stripped tests directory no distro copy stands in for: gating it off is the way
	// left, even after the earlier fix turned it on.
	plain := memTree{"CMakeLists.txt": "project(p)\noption(P_BUILD_TESTS \"tests\" OFF)\nif(P_BUILD_TESTS)\nadd_subdirectory(tests)\nendif()\n"}
	env = Env{Platform: debian(t), Plan: plan, Files: plain.files(), ReadFile: plain.read,
		Fixes: []atesor.FixAttempt{{Source: atesor.FixSourceScripted, Rule: headerOnlyRuleName, Strategy: "build the test programs: configure with -DP_BUILD_TESTS=ON"}}}
	fix, why = makeCMakeSubdir(context.Background(), buildFailure(t, cmakeError("CMakeLists.txt", 4, "/workspace/p/tests", false), line), env)
	if fix == nil || fix.Plan == nil || !strings.Contains(fix.Plan.Phases[1].Commands[0], "-DP_BUILD_TESTS=OFF") {
		t.Errorf("no other way: %+v %s", fix, why)
	}
}
