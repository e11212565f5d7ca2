package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedMesonNamedOption ports Debian's atkmm1.6 2.28.4 offline. Its meson
// setup first looks for atk's subproject (a git clone, offline), and once
// distribution-configure has installed the Build-Depends, mm-common's check stops with
// "Missing files in untracked/. You must enable maintainer-mode.". With every rule but
// meson-named-option, next-build-system then switches to the autotools build, whose
// autoreconf stops at mm-common's build/dist-changelog.am, and the port escalates (as
// the held-back run at 567be56 did); with it meson setup gets -Dmaintainer-mode=true,
// libatkmm verifies and the recipe replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedMesonNamedOption$' ./graph/
func TestE2EScriptedMesonNamedOption(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "atkmm1.6", file: "atkmm1.6_2.28.4.orig.tar.xz", rule: "meson-named-option",
		before: "cannot open < build/dist-changelog.am", others: true,
		analysis: "-Dmaintainer-mode=true, the option it names",
		recipe:   "meson setup -Dmaintainer-mode=true builddir", artifact: "libatkmm-1.6.so.1.1.0",
		origin: &atesor.DistroSource{Distro: "debian", Package: "atkmm1.6", Version: "2.28.4-1", Suite: "trixie", Component: "main"}})
}
