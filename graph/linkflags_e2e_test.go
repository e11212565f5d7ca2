package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// daresOrigin is Debian's dares, whose Makefile links with its libraries before the
// objects and whose default goal also builds a Qt 3 front end.
var daresOrigin = &atesor.DistroSource{Distro: "debian", Package: "dares", Version: "0.6.5+repack-2", Suite: "trixie", Component: "main"}

// TestE2EScriptedLinkAsNeededOrder ports Debian's dares 0.6.5 offline. Its
// frontend/ncurses/Makefile has "LDFLAGS = -Wall -lncurses -lmagic" and links with
// "$(CC) $(LDFLAGS) -o dares $(OBJ)": --as-needed drops both libraries, and the link
// stops at undefined references to wmove, magic_open and ncurses' data LINES and
// stdscr (libtinfo's, through the ld script libncurses.so). With every rule but
// link-as-needed-order the port escalates there (as the held-back run at 450b77e did);
// with it make's command line sets LDFLAGS to the Makefile's value inside
// --push-state,--no-as-needed ... --pop-state, make-goal-without-tool leaves out the
// Qt 3 front end the platform has no qmake for, the ncurses program verifies and the
// recipe replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedLinkAsNeededOrder$' ./graph/
func TestE2EScriptedLinkAsNeededOrder(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "dares", file: "dares_0.6.5+repack.orig.tar.gz", rule: "link-as-needed-order",
		before: "undefined reference to `LINES'", others: true,
		analysis: "The link line names -lncurses -lmagic before its objects (LDFLAGS in frontend/ncurses/Makefile)",
		recipe:   "make LDFLAGS='-Wl,--push-state,--no-as-needed -Wall -lncurses -lmagic -Wl,--pop-state' -j$(nproc) ncurses", artifact: "dares",
		built:  "gcc -Wl,--push-state,--no-as-needed -Wall -lncurses -lmagic -Wl,--pop-state -o dares ../../backend/dares.o display.o",
		origin: daresOrigin})
}

// TestE2EScriptedMakeGoalWithoutTool is the same port seen from its second failure:
// with every rule but make-goal-without-tool it escalates at the qt goal's "qmake: not
// found"; with it make builds the default goal's other prerequisite, ncurses.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedMakeGoalWithoutTool$' ./graph/
func TestE2EScriptedMakeGoalWithoutTool(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "dares", file: "dares_0.6.5+repack.orig.tar.gz", rule: "make-goal-without-tool",
		before: "qmake: not found", others: true,
		analysis: "the qt goal is left out of the port",
		recipe:   "-j$(nproc) ncurses", artifact: "dares", origin: daresOrigin})
}

// TestE2EScriptedAutomakeConditional ports Debian's libmpc 0.1~r495 offline: musepack's
// svn export without m4/, whose configure.in calls CHECK_VISIBILITY and whose
// Makefile.am files use HAVE_VISIBILITY. With every rule but
// automake-undefined-conditional the port escalates at automake's "HAVE_VISIBILITY
// does not appear in AM_CONDITIONAL" (as the dev run at 450b77e did); with it the
// recorded patch defines the conditional false, autoreconf and the build go through,
// and the recipe replays the patch.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedAutomakeConditional$' ./graph/
func TestE2EScriptedAutomakeConditional(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "libmpc", file: "libmpc_0.1~r495.orig.tar.gz", rule: "automake-undefined-conditional",
		before: "HAVE_VISIBILITY does not appear in AM_CONDITIONAL", others: true,
		analysis: "configure.in:33 CHECK_VISIBILITY (for HAVE_VISIBILITY)",
		recipe:   "patch -p1 < libmpc_patches/001-configure.in.patch", artifact: "mpcdec",
		origin: &atesor.DistroSource{Distro: "debian", Package: "libmpc", Version: "0.1~r495-3", Suite: "trixie", Component: "main"}})
}

// TestE2EDistributionConfigureArchBranches ports Debian's highway 1.2.0 offline. Its
// debian/rules sets -DHWY_CMAKE_ARM7:BOOL=ON inside an armhf-only conditional and
// -DHWY_CMAKE_RVV:BOOL=OFF inside a riscv64 one; the dev run at 450b77e read both
// branches, so distribution-configure turned on the ARM copts (-march=armv7-a ...) and
// the compiler refused them. With the conditionals read as riscv64's, the fix takes
// riscv64's switch alone and the build gets past the flags. The port does not verify
// yet: measured at 08f55da (10 min 38 s), it then stops in highway's RVV code
// ("'__riscv_vmulh_vv_i64m1' was not declared in this scope", hwy/ops/rvv-inl.h under
// GCC 14), which no rule answers; the test checks what the switches decide, and the
// verdict once that is answered.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 150m -run '^TestE2EDistributionConfigureArchBranches$' ./graph/
func TestE2EDistributionConfigureArchBranches(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := debiantest.SourceTarball(t, "highway", "highway_1.2.0.orig.tar.gz")
	req := atesor.Request{Source: src, TestTimeout: 30 * time.Minute,
		Origin: &atesor.DistroSource{Distro: "debian", Package: "highway", Version: "1.2.0-2", Suite: "trixie", Component: "main"}}
	e := newE2EEnv(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	t.Logf("%s in %s (%s); fixes by rule %v", res.Status, time.Since(start).Round(time.Second), res.Reason, rep.FixesByRule)
	fix := scriptedFix(t, rep.Fixes, "distribution-configure")
	if fix == nil || !strings.Contains(fix.Strategy, "-DHWY_CMAKE_RVV:BOOL=OFF") || strings.Contains(fix.Strategy, "HWY_CMAKE_ARM7") {
		t.Fatalf("the distribution's switches are not riscv64's alone: %+v", fix)
	}
	if strings.Contains(res.Reason, "armv7") || strings.Contains(res.Reason, "-mfpu") {
		t.Fatalf("the port still stops at the ARM flags: %s", res.Reason)
	}
	if strings.Contains(res.Reason, "__riscv_vmulh_vv") {
		// What the test proves holds; the verdict waits for that rule.
		t.Logf("past the flags; highway's RVV code under GCC 14 is the next stop, which no rule answers yet: %s", res.Reason)
		return
	}
	checkVerified(t, e, res)
	md, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "-DHWY_CMAKE_RVV:BOOL=OFF") || strings.Contains(string(md), "HWY_CMAKE_ARM7") {
		t.Errorf("the recipe does not take riscv64's branch alone:\n%s", md)
	}
}
