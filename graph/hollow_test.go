package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// headerMark starts each header's part of the declaration listing verify runs.
const headerMark = "@@ATESOR-HEADER "

// auxVecsum is GCC's -aux-info listing of vecsum.h inside the loop checkDeclarations runs.
const auxVecsum = "\n" + headerMark + "vecsum.h\n/* compiled from: /workspace/vecsum */\n" +
	"/* vecsum.h:6:NC */ extern long int vecsum_add (const long int *, size_t);\n" +
	"/* /usr/include/stdlib.h:10:NC */ extern void free (void *);\n"

// auxMath declares the two functions the real libriscv64-math.a fixture defines.
const auxMath = "\n" + headerMark + "vecsum.h\n" +
	"/* vecsum.h:6:NC */ extern int add (int, int);\n/* vecsum.h:7:NC */ extern int mul (int, int);\n"

func (h *harness) headersDeclare(aux string) {
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.Contains(c.Line, "-aux-info") },
		Result: sandboxtest.OK(aux)})
}

// emptiesOnFix scripts the fix command to empty vecsum.c, as `cp /dev/null vecsum.c` does.
func (h *harness) emptiesOnFix(cmd string) {
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return c.Line == cmd },
		Do: func(sb *sandboxtest.Sandbox, _ atesor.Command) {
			if err := os.WriteFile(filepath.Join(sb.Root(), "workspace/vecsum/vecsum.c"), nil, 0o644); err != nil {
				h.t.Error(err)
			}
		}})
}

// TestHollowFixIsNotVerified: a fix empties the library's source; the build still makes
// a riscv64 archive (the real fixture), but it does not define the function the public
// header declares: the port ends not verified, class verify, naming the missing function
// and the removal, in the report and the recipe; nothing is learned or cached.
func TestHollowFixIsNotVerified(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.headersDeclare(auxVecsum)
	h.emptiesOnFix("cp /dev/null vecsum.c")
	h.prov.Queue(atesor.RoleFixer, fixAnswer("cp /dev/null vecsum.c"))
	res, err := h.pipeline().Run(t.Context(), atesor.Request{Source: h.src, MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified || res.FailureClass != atesor.FailureVerify {
		t.Fatalf("status %s class %s (%s), want not verified, class verify", res.Status, res.FailureClass, res.Reason)
	}
	if !strings.Contains(res.Reason, "vecsum_add") || !strings.Contains(res.Reason, "emptied: vecsum.c") {
		t.Errorf("reason %q does not name the missing function and the removal", res.Reason)
	}
	rep := h.report()
	if rep.Exports == nil || strings.Join(rep.Exports.MissingDeclared, ",") != "vecsum_add" || rep.Exports.Declared != 1 {
		t.Errorf("exports = %+v", rep.Exports)
	}
	if len(rep.Removals) != 1 || rep.Removals[0].Kind != atesor.RemovalEmptied || rep.Removals[0].Fix != 1 {
		t.Errorf("removals = %+v", rep.Removals)
	}
	if len(rep.Fixes) == 0 || strings.Join(rep.Fixes[0].Removed, ";") != "emptied: vecsum.c (8 lines)" {
		t.Errorf("fix 1 removed = %+v", rep.Fixes)
	}
	recipe, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	for _, want := range []string{"NOT VERIFIED", "fix 1 emptied: vecsum.c (8 lines)", "missing: vecsum_add"} {
		if !strings.Contains(string(recipe), want) {
			t.Errorf("recipe lacks %q:\n%s", want, recipe)
		}
	}
	if r, _ := h.mem.Recipe(t.Context(), "vecsum", "debian-riscv64"); r != nil {
		t.Error("a hollow port entered the recipe cache")
	}
	// The fixer's second prompt states the rule and the removal.
	prompts := h.promptsOf(atesor.RoleFixer)
	if len(prompts) < 2 || !strings.Contains(prompts[1], "Removal rule") || !strings.Contains(prompts[1], "emptied: vecsum.c") {
		t.Errorf("the fixer's second prompt lacks the removal rule or the removal")
	}
}

// TestRemovalNeedsPassingTests: exports complete, but the package tests were not
// counted: a port with a removal is not verified, and not learned.
func TestRemovalNeedsPassingTests(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.headersDeclare(auxMath)
	h.emptiesOnFix("cp /dev/null vecsum.c")
	h.prov.Queue(atesor.RoleFixer, fixAnswer("cp /dev/null vecsum.c"))
	res := h.run()
	if res.Verified || res.FailureClass != atesor.FailureVerify || !strings.Contains(res.Reason, "emptied: vecsum.c") {
		t.Fatalf("status %s class %s (%s), want not verified with the removal named", res.Status, res.FailureClass, res.Reason)
	}
	rep := h.report()
	if !rep.Exports.Complete() {
		t.Errorf("exports = %s, want complete", rep.Exports.Summary())
	}
	if r, _ := h.mem.Recipe(t.Context(), "vecsum", "debian-riscv64"); r != nil {
		t.Error("an unproven removal entered the recipe cache")
	}
}

// TestRealFixWithCompleteExportsVerifies: a fix that edits the Makefile removes nothing;
// the library defines what the header declares; the port verifies.
func TestRealFixWithCompleteExportsVerifies(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.headersDeclare(auxMath)
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s (%s), want verified", res.Status, res.Reason)
	}
	rep := h.report()
	if len(rep.Removals) != 0 || rep.Exports == nil || !rep.Exports.Complete() || rep.Exports.Declared != 2 {
		t.Errorf("removals %+v, exports %+v", rep.Removals, rep.Exports)
	}
}
