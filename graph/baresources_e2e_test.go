package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedBareSources ports Debian's morsegen 0.2.1 offline, the ninth held-back
// round's: its tarball is one morsegen.c and no build file, so the discovery plan stops
// at "no standard build file". With every rule but bare-sources-program the port
// escalates there; with it the plan compiles morsegen.c into morsegen, as Debian's
// rules do, the port verifies and the recipe replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 30m -run '^TestE2EScriptedBareSources$' ./graph/
//
// Measured: 35 s for the three ports (before, after, replay), beside a batch of two.
func TestE2EScriptedBareSources(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "morsegen", file: "morsegen_0.2.1.orig.tar.gz", rule: "bare-sources-program",
		before:   "no standard build file",
		analysis: "of which morsegen.c defines main",
		recipe:   "cc -O2 -g -o morsegen morsegen.c", artifact: "morsegen", noTests: true,
		origin: &atesor.DistroSource{Distro: "debian", Package: "morsegen", Version: "0.2.1-5", Suite: "trixie", Component: "main"}})
}
