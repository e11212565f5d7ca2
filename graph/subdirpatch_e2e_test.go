package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedSubdirLeftOut ports Debian's arpon 3.0-ng+dfsg1 offline, as
// debian:arpon resolves it. The repack has no doc/, and the top-level CMakeLists.txt
// adds it on line 118 with nothing that gates it. distribution-configure first installs
// the Build-Depends (libnet1-dev, libdumbnet-dev); the configure then stops at
// add_subdirectory(doc), and cmake-missing-subdir comments that one line out as a
// recorded patch. The daemon verifies and the recipe, which applies the patch, replays
// it. (No before run: without scripted repairs the port stops earlier, at the missing
// libnet1.)
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedSubdirLeftOut$' ./graph/
func TestE2EScriptedSubdirLeftOut(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "arpon", file: "arpon_3.0-ng+dfsg1.orig.tar.xz", rule: "cmake-missing-subdir",
		analysis: "CMakeLists.txt:118 adds doc, which the tarball lacks (the repacked source has no doc/)",
		recipe:   "patch -p1 < arpon_patches/", artifact: "arpon",
		built:  "-- Configuring done",
		origin: &atesor.DistroSource{Distro: "debian", Package: "arpon", Version: "3.0-ng+dfsg1-5", Suite: "trixie", Component: "main"}})
}
