package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedDistributionPatches ports Debian's repacked gengetopt 2.23+dfsg1
// offline. The repack strips the texinfo manual from doc/, whose Makefile still builds
// it: automake-missing-doc drops gengetopt.texi, distribution-configure installs flex
// (Build-Depends), and make stops at "No rule to make target 'gengetopt.html'". With
// every rule but distribution-patches the port escalates there; with it Debian's
// series is applied (01man.patch, then 9001-dfsg.patch, which takes doc/ out of SUBDIRS
// and AC_CONFIG_FILES), autoreconf -fi runs before ./configure, the program verifies and
// the recipe replays the patches.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 90m -run '^TestE2EScriptedDistributionPatches$' ./graph/
func TestE2EScriptedDistributionPatches(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "gengetopt", file: "gengetopt_2.23+dfsg1.orig.tar.xz", rule: "distribution-patches",
		before: "gengetopt.html", others: true, analysis: "patches of its debian/patches/series",
		recipe: "autoreconf -fi && ./configure", artifact: "gengetopt",
		origin: &atesor.DistroSource{Distro: "debian", Package: "gengetopt", Version: "2.23+dfsg1-1", Suite: "trixie", Component: "main"}})
}
