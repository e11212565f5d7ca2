package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedFcommon ports Debian's dahdi-tools 1:3.1.0 offline. Two of its C files,
// xpp/mpptalk.c and xpp/xtalk/xtalk_sync.c, each end a union with `} PACKED members;`, a
// tentative definition GCC 10's -fno-common default no longer merges, so the link of
// astribank_tool stops at "multiple definition of `members'". Its build needs the rules
// before that one (parallel-make-race for its configure's output, distribution-configure
// for the Build-Depends), so the port runs with every rule: gcc10-fcommon passes -fcommon
// through CFLAGS at configure time, the rebuild runs make clean before it configures with
// the flag (the plan changed how the tree compiles, see dropStaleProducts), the port
// verifies (15 artifacts, make check passing) and the recipe replays it. Measured: 1883 s in
// all (verified port 25 min 18 s, three builds of the tree with make -j1; replay 6 min 2 s,
// reproduced) beside other ports, a load average of about 16 on two cores: over the long
// tier's usual quarter hour, as no smaller package with this failure is known here.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 90m -run '^TestE2EScriptedFcommon$' ./graph/
func TestE2EScriptedFcommon(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "dahdi-tools", file: "dahdi-tools_3.1.0.orig.tar.gz", rule: "gcc10-fcommon",
		analysis: "xpp/mpptalk.c:240 `} PACKED members;`", recipe: "CFLAGS='-g -O2 -fcommon' ./configure", artifact: "astribank_tool",
		origin: &atesor.DistroSource{Distro: "debian", Package: "dahdi-tools", Version: "1:3.1.0-2.1", Suite: "trixie", Component: "main"}})
}
