package repair

import (
	"os"
	"strings"
	"testing"
)

func TestArchNameChain(t *testing.T) {
	hdr, err := os.ReadFile("testdata/openarena-0.8.8-q_platform.h")
	if err != nil {
		t.Fatal(err)
	}
	const q = "code/qcommon/q_platform.h"
	t.Run("openarena: ARCH_STRING's Linux chain gets a riscv64 branch", func(t *testing.T) {
		tree := memTree{q: string(hdr), "code/cgame/cg_main.c": "", "Makefile": ""}
		// With SDL 1.2 installed: the Makefile's pkg-config calls said sdl was missing
		// too, which missing-package answers first.
		var kept []string
		for _, l := range strings.Split(readLog(t, "arch-name-chain-openarena.log"), "\n") {
			if !strings.Contains(l, "sdl") && !strings.Contains(l, "PKG_CONFIG_PATH") {
				kept = append(kept, l)
			}
		}
		fix, notes := proposeOnBuild(t, strings.Join(kept, "\n"), defaultPlan("make -j$(nproc)"), tree)
		if fix == nil || fix.Rule != archChainRuleName {
			t.Fatalf("fix %+v, notes %v", fix, notes)
		}
		want := "#elif defined __sh__\n#define ARCH_STRING \"sh\"\n#elif defined(__riscv) && __riscv_xlen == 64\n#define ARCH_STRING \"riscv64\"\n#endif\n"
		got := applyPatch(t, q, string(hdr), fix.Actions[0].Diff, want)
		if strings.Count(got, "riscv64") != 1 {
			t.Errorf("the patch adds riscv64 more than once:\n%s", fix.Actions[0].Diff)
		}
		wantSays(t, fix.Analysis, []string{q + " stops with #error \"Architecture not supported\"", "chain at line 158", "ARCH_STRING"})
		if err := check(fix, "/workspace/openarena"); err != nil {
			t.Errorf("the fix fails validation: %v", err)
		}
	})
	log := "code/qcommon/q_platform.h:20:2: error: #error \"Architecture not supported\"\n"
	refusals := []struct {
		name, header, why string
	}{
		{name: "a branch that chooses code, not only a name",
			header: "#if defined __i386__\n#define ARCH_STRING \"i386\"\n#define USE_X86_ASM 1\n#elif defined __x86_64__\n#define ARCH_STRING \"x86_64\"\n#elif defined __arm__\n#define ARCH_STRING \"arm\"\n#endif\n#if !defined( ARCH_STRING )\n#error \"Architecture not supported\"\n#endif\n",
			why:    "no #if/#elif chain of three or more architectures"},
		{name: "two architectures only",
			header: "#if defined __i386__\n#define ARCH_STRING \"i386\"\n#elif defined __x86_64__\n#define ARCH_STRING \"x86_64\"\n#endif\n#ifndef ARCH_STRING\n#error \"Architecture not supported\"\n#endif\n",
			why:    "no #if/#elif chain"},
		{name: "an #error with no macro test",
			header: "#if defined __i386__\n#define A \"i386\"\n#else\n#error \"Architecture not supported\"\n#endif\n", why: "follows no #ifndef"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			tree := memTree{q: tt.header, "Makefile": ""}
			fix, notes := proposeOnBuild(t, log, defaultPlan("make -j$(nproc)"), tree)
			wantNoFix(t, archChainRuleName, fix, notes, tt.why)
		})
	}
}
