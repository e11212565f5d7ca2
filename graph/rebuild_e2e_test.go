package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2ERebuildAfterFlagFix ports Debian's genders 1.27-3 offline and replays its
// recipe. Its build needs four fixes (missing-package for bison and flex,
// gcc14-permissive's CFLAGS at configure time, configure-feature-off twice), and make
// compiles part of the tree before each fix that changes how it compiles: the rebuilds
// after those fixes run make clean first (dropStaleProducts), so the verified port's
// artifacts are what a replay, which builds once in a fresh tree with the final plan,
// makes. Without that step libgenders' objects compiled before the new CFLAGS kept the
// old ones in their DWARF producer string and the replay differed (3 of 6 artifacts).
// The same port and replay through the CLI, run for real: verified in 28 min 44 s (make
// clean 46 s, 36 s and 26 s before the three rebuilds), replay reproduced (6 of 6) in
// 10 min 49 s, under a load average of about 17.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2ERebuildAfterFlagFix$' ./graph/
func TestE2ERebuildAfterFlagFix(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "genders", file: "genders_1.27-3.orig.tar.gz", rule: "gcc14-permissive",
		analysis: "-Wno-error=incompatible-pointer-types", recipe: "CFLAGS='-g -O2 -Wno-error=incompatible-pointer-types' ./configure",
		artifact: "libgenders", built: "then make clean; fi",
		origin: &atesor.DistroSource{Distro: "debian", Package: "genders", Version: "1.27-3-3.1", Suite: "trixie", Component: "main"}})
}
