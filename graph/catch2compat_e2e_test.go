package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedCatch2Compat ports Debian's cppzmq 4.10.0 offline, as debian:cppzmq
// resolves it: a header-only library whose only riscv64 evidence is its unit_tests
// program, written for Catch2 2 (<catch2/catch.hpp>, main from tests/message.cpp's
// CATCH_CONFIG_MAIN, linking Catch2::Catch2). Trixie has Catch2 3. With every rule
// but catch2-compat, cmake-missing-subdir installs catch2 for the FetchContent of
// Catch2 v2 that fails offline, and the port escalates at "catch2/catch.hpp: No such
// file"; with it the compat header is written into the tree, the tests compile and
// link against Catch2 3's library, the port verifies with its tests passing, and the
// recipe, whose patch writes the header, replays it. Measured: 689 s in all
// (escalation about 2 min 30 s, verified port 4 min 18 s with 102 of 102 tests
// passing, replay reproduced 4 min 10 s) on 2 cores shared with other runs.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedCatch2Compat$' ./graph/
func TestE2EScriptedCatch2Compat(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "cppzmq", file: "cppzmq_4.10.0.orig.tar.gz", rule: "catch2-compat",
		before: "catch2/catch.hpp: No such file", others: true,
		analysis: "CATCH_CONFIG_MAIN (tests/message.cpp:1)",
		recipe:   "export CPATH=/workspace/cppzmq/.atesor-compat && ", artifact: "unit_tests", tests: 100,
		origin: &atesor.DistroSource{Distro: "debian", Package: "cppzmq", Version: "4.10.0-1", Suite: "trixie", Component: "main"}})
}
