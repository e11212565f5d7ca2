package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedGettextVersion ports Debian's chromium-bsu 0.9.16.1 offline. Its
// configure.ac pins AM_GNU_GETTEXT_VERSION([0.18]); once the port regenerates the
// autotools files with autopoint and gettext installed, autopoint installs gettext
// 0.18's po/Makefile.in.in while aclocal --install takes trixie's po.m4, and make
// stops in po/ at "gettext infrastructure mismatch: using a Makefile.in.in from
// gettext version 0.18 but the autoconf macros are from gettext version 0.22". With
// every rule but gettext-version-mismatch the port escalates there; with it the
// recorded patch turns the pin into AM_GNU_GETTEXT_REQUIRE_VERSION([0.18]), autoreconf
// -fi installs trixie's po/ files, chromium-bsu verifies and the recipe replays it.
// Measured: `atesor port --offline debian:chromium-bsu` verified in 18 min 15 s
// (make check passing), the rule's fix at 16 min 17 s, on a 2-core host under load.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 90m -run '^TestE2EScriptedGettextVersion$' ./graph/
func TestE2EScriptedGettextVersion(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "chromium-bsu", file: "chromium-bsu_0.9.16.1.orig.tar.gz", rule: "gettext-version-mismatch",
		before: "gettext infrastructure mismatch", others: true,
		analysis: "configure.ac:44 pins AM_GNU_GETTEXT_VERSION([0.18])",
		recipe:   "configure.ac.patch", artifact: "chromium-bsu",
		origin: &atesor.DistroSource{Distro: "debian", Package: "chromium-bsu", Version: "0.9.16.1-5", Suite: "trixie", Component: "main"}})
}
