package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// linkCase is a sample package that fails on riscv64 for a reason one scripted rule
// repairs, ported offline.
type linkCase struct {
	// name is the package's directory under testdata/packages.
	name string
	// rule is the rule the port must use, on a build that failed with failed (a
	// substring of the fix's recorded error).
	rule, failed string
	// before, when set, is what the port without scripted repairs fails with.
	before string
	// artifacts are the primary artifacts (base names) a verified port must have.
	artifacts []string
	// recipe is a substring of the recipe's commands the fix put there, so a replay
	// repeats it.
	recipe string
}

// TestE2ELinkRules ports sample packages offline (no model) that fail on riscv64 in a
// way build files written on x86-64 do not show:
//
//   - testdata/packages/tagstack is a lock-free stack whose head is a pointer and a
//     counter swapped with one 16-byte compare-and-swap: riscv64 has no such
//     instruction, GCC 14 calls libatomic, and the CMake build does not link it.
//     Without scripted repairs the port fails at the executable's link (undefined
//     __atomic_compare_exchange_16); with them the libatomic rule reconfigures with
//     CMAKE_*_LINKER_FLAGS and the port verifies;
//
//   - testdata/packages/wordfreq's Makefile builds its Go program with RACE ?= -race,
//     and the go command has no race detector on linux/riscv64. The setup phase
//     installs Go (the Makefile's recipes run go), then the go-no-race rule runs make
//     RACE= and takes -race out of the check target, and the port verifies.
//
// Measured (2 shared cores, load average 10-20): tagstack 170 s in all (71 s to the
// escalation without scripted repairs, 99 s to a verified port with one libatomic fix,
// ctest 1 of 1 passed); wordfreq 279 s (golang-go installed by the setup phase, one
// go-no-race fix, make check 1 of 1 passed).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run 'TestE2ELinkRules/tagstack' ./graph/
func TestE2ELinkRules(t *testing.T) {
	tier.Long(t)
	cases := []linkCase{
		{name: "tagstack", rule: "libatomic", failed: "__atomic_", before: "__atomic_compare_exchange_16",
			artifacts: []string{"libtagstack.so.1.0", "tagstack-demo"}, recipe: "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--push-state,--no-as-needed,-latomic,--pop-state"},
		{name: "wordfreq", rule: "go-no-race", failed: "-race is not supported on linux/riscv64",
			artifacts: []string{"wordfreq"}, recipe: "make RACE= "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runLinkCase(t, c) })
	}
}

func runLinkCase(t *testing.T, c linkCase) {
	e2e(t)
	src, err := filepath.Abs(filepath.Join("..", "testdata", "packages", c.name))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute}
	if c.before != "" {
		start := time.Now()
		before := newE2EEnv(t)
		res, err := before.pipeline(t, nil, WithoutScriptedRepairs()).Run(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(before.out, res.Package+"_build.log"))
		t.Logf("without scripted repairs: %s (%s) in %s: %s", res.Status, res.FailureClass, time.Since(start).Round(time.Second), res.Reason)
		if res.Verified || !strings.Contains(string(b), c.before) {
			t.Fatalf("without scripted repairs the port did not fail with %q: status %s; end of the build log:\n%s",
				c.before, res.Status, excerpt.Tail(string(b), 3000))
		}
	}
	e := newE2EEnv(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	var used bool
	var rules []string
	for _, f := range rep.Fixes {
		t.Logf("fix %d by %s/%s (%s): %s -> built %t", f.Attempt, f.Source, f.Rule, f.Error, f.Strategy, f.Success)
		rules = append(rules, f.Rule)
		if f.Source == atesor.FixSourceScripted && f.Rule == c.rule && strings.Contains(f.Error, c.failed) {
			used = true
		}
	}
	t.Logf("%s: %s in %s; fixes by rule %v", c.name, res.Status, time.Since(start).Round(time.Second), rep.FixesByRule)
	if !res.Verified {
		if b, err := os.ReadFile(filepath.Join(e.out, res.Package+"_build.log")); err == nil {
			t.Logf("end of the build log:\n%s", excerpt.Tail(string(b), 4000))
		}
	}
	checkVerified(t, e, res, c.artifacts...)
	if !used {
		t.Errorf("%s verified without %s answering %q (rules used: %v)", c.name, c.rule, c.failed, rules)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	recipe, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recipe), c.recipe) {
		t.Errorf("the recipe does not replay the fix (%q):\n%s", c.recipe, recipe)
	}
	if rep.Tests != nil {
		t.Logf("tests: %s", rep.Tests.Summary())
	}
}
