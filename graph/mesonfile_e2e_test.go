package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedMesonMissingFile ports Debian's grim 1.4.0+ds offline, as debian:grim
// resolves it. The repack strips write_jpg.c, which meson.build adds to the program's
// sources when libjpeg (required: get_option('jpeg'), auto) is found, and libjpeg-dev
// is installed: with every rule but meson-missing-file the port escalates at "File
// write_jpg.c does not exist."; with it the build configures with -Djpeg=disabled,
// grim verifies and the recipe replays it. Measured: 337 s in all (escalation
// 1 min 46 s, verified port 2 min 29 s, replay reproduced 1 min 20 s), run for real.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedMesonMissingFile$' ./graph/
func TestE2EScriptedMesonMissingFile(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "grim", file: "grim_1.4.0+ds.orig.tar.gz", rule: "meson-missing-file",
		before: "File write_jpg.c does not exist", others: true,
		analysis: "leaves out the package's JPEG support (option jpeg)",
		recipe:   "meson setup -Djpeg=disabled builddir", artifact: "grim",
		origin: &atesor.DistroSource{Distro: "debian", Package: "grim", Version: "1.4.0+ds-2", Suite: "trixie", Component: "main"}})
}
