package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// The rules the thirteenth and fourteenth held-back rounds led to, each proved on the
// package whose failure it was written from: before (every other rule on), the port
// escalates where the rule answers; after, it verifies offline and the recipe replays.

// debianTrixie is a Debian trixie source package, as debian:NAME resolves it.
func debianTrixie(pkg, version string) *atesor.DistroSource {
	return &atesor.DistroSource{Distro: "debian", Package: pkg, Version: version, Suite: "trixie", Component: "main"}
}

// TestE2EScriptedMakeGeneratedHeader ports Debian's cubature 1.0.4+ds, whose repack
// strips clencurt.h and whose CMake build does not generate it: the plan runs the
// Makefile's rule for it first.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 30m -run '^TestE2EScriptedMakeGeneratedHeader$' ./graph/
func TestE2EScriptedMakeGeneratedHeader(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "cubature", file: "cubature_1.0.4+ds.orig.tar.xz", rule: "make-generated-header",
		before: "clencurt.h", others: true, analysis: "has the rule that makes it",
		recipe: "make clencurt.h && cmake", artifact: "libcubature",
		origin: debianTrixie("cubature", "1.0.4+ds-2")})
}

// TestE2EScriptedSIMDOptionOff ports Debian's libsquish 1.15, whose CMake option
// BUILD_SQUISH_WITH_SSE2 (ON) selects its SSE code: configured OFF, its float code builds.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 30m -run '^TestE2EScriptedSIMDOptionOff$' ./graph/
func TestE2EScriptedSIMDOptionOff(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "libsquish", file: "libsquish_1.15.orig.tar.gz", rule: "simd-option-off",
		before: "architecture errors in a row", others: true, analysis: "option BUILD_SQUISH_WITH_SSE2",
		recipe: "-DBUILD_SQUISH_WITH_SSE2=OFF", artifact: "libsquish",
		origin: debianTrixie("libsquish", "1.15-3")})
}

// TestE2EScriptedFailingPartOff ports Debian's belcard 5.3.105, whose tester/ includes
// bctoolbox/tester.h, which no package installs: ENABLE_UNIT_TESTS, which gates it, off.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 30m -run '^TestE2EScriptedFailingPartOff$' ./graph/
func TestE2EScriptedFailingPartOff(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "belcard", file: "belcard_5.3.105.orig.tar.gz", rule: "failing-part-off",
		before: "dependency errors in a row", others: true, analysis: "only when ENABLE_UNIT_TESTS is on",
		recipe: "-DENABLE_UNIT_TESTS=OFF", artifact: "belcard-parser",
		origin: debianTrixie("belcard", "5.3.105-3")})
}
