package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedLibraryImport ports Debian's libsdsl 2.1.1+dfsg offline, as
// debian:libsdsl resolves it. The repack stripped external/libdivsufsort (Debian builds
// against libdivsufsort-dev, in the Build-Depends) and emptied external/googletest, and
// external/CMakeLists.txt adds both unconditionally, so the configure stops there.
// Without scripted repairs the port escalates at the missing libdivsufsort; with them
// cmake-missing-subdir writes external/libdivsufsort/CMakeLists.txt, whose divsufsort
// and divsufsort64 interface targets (the names test/CMakeLists.txt links) link the
// installed libraries, and the googletest import beside it; the library verifies and
// the recipe, whose patches write both files, replays it. Measured: 500 s in all
// (escalation and the tarball about 47 s, verified port 3 min 2 s, replay 4 min 37 s)
// on 2 shared cores.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedLibraryImport$' ./graph/
func TestE2EScriptedLibraryImport(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "libsdsl", file: "libsdsl_2.1.1+dfsg.orig.tar.xz", rule: "cmake-missing-subdir",
		before:   `add_subdirectory given source "libdivsufsort"`,
		analysis: "the repacked source stripped its bundled copy of the library libdivsufsort, which the distribution packages as libdivsufsort-dev",
		recipe:   "patch -p1 < libsdsl_patches/001-external-libdivsufsort-CMakeLists.txt.patch", artifact: "libsdsl",
		built:  "-- Configuring done",
		origin: &atesor.DistroSource{Distro: "debian", Package: "libsdsl", Version: "2.1.1+dfsg-5", Suite: "trixie", Component: "main"}})
}
