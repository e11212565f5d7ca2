package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedLinkLibrary ports Debian's cohomcalg 0.32+ds offline. The repack
// strips the bundled polylib (source/polylib_mod), so header-subdir installs the
// Build-Depends libpolylib64-dev for polylib/polylib64.h, and the Makefile's link line,
// which named only the bundled objects, then misses Matrix_Alloc, Ehrhart_Quick_Apx and
// the rest. With every rule but link-library the port escalates at that link; with it
// the rule finds that libpolylib64-dev's libpolylib64.so defines every one of them and
// links it through LDFLAGS (the variable the Makefile's link line reads), the port
// verifies and the recipe replays it. Measured: 378 s in all (escalation at the link,
// verified port 2 min 20 s, replay 1 min 18 s).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedLinkLibrary$' ./graph/
func TestE2EScriptedLinkLibrary(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "cohomcalg", file: "cohomcalg_0.32+ds.orig.tar.gz", rule: "link-library",
		before: "undefined reference to `Matrix_Alloc'", others: true,
		analysis: "/usr/lib/riscv64-linux-gnu/libpolylib64.so, which the installed package libpolylib64-dev ships",
		recipe:   "LDFLAGS=-Wl,--push-state,--no-as-needed,-lpolylib64,--pop-state make", artifact: "cohomcalg",
		built:  "-Wl,--push-state,--no-as-needed,-lpolylib64,--pop-state -lpthread -o bin/cohomcalg",
		origin: &atesor.DistroSource{Distro: "debian", Package: "cohomcalg", Version: "0.32+ds-6", Suite: "trixie", Component: "main"}})
}
