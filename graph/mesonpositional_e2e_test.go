package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedMesonPositional ports Debian's nautilus-sendto 3.8.6 offline. Its
// src/meson.build calls i18n.merge_file('appdata', input: ..., ...), whose positional
// argument meson ignored before 0.60 and trixie's meson refuses ("Function does not
// take positional arguments."). With every rule but meson-positional-removed the port
// escalates there (as the dev run at 1ed18c0 did); with it the recorded patch removes
// the argument, the program verifies and the recipe replays the patch.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedMesonPositional$' ./graph/
func TestE2EScriptedMesonPositional(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "nautilus-sendto", file: "nautilus-sendto_3.8.6.orig.tar.xz", rule: "meson-positional-removed",
		before: "Function does not take positional arguments", others: true,
		analysis: "calls i18n.merge_file with positional arguments",
		recipe:   "patch -p1 < nautilus-sendto_patches/001-src-meson.build.patch", artifact: "nautilus-sendto",
		origin: &atesor.DistroSource{Distro: "debian", Package: "nautilus-sendto", Version: "3.8.6-7", Suite: "trixie", Component: "main"}})
}
