package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedSDKPath ports Debian's picotool 2.1.1+dfsg offline. Its CMakeLists.txt
// stops at "PICO_SDK_PATH is not defined": it builds against the Raspberry Pi Pico
// SDK, which Debian's Build-Depends install as pico-sdk-source. Without scripted
// repairs the port escalates at that error; with them sdk-path installs pico-sdk-source
// (and the other Build-Depends) and configures with -DPICO_SDK_PATH=/usr/src/pico-sdk,
// the directory of its file list that holds what the build includes and adds below the
// variable; precompiled-stripped then turns USE_PRECOMPILED off for the
// xip_ram_perms.elf the repack dropped, the picotool program verifies and the recipe
// replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 90m -run '^TestE2EScriptedSDKPath$' ./graph/
func TestE2EScriptedSDKPath(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "picotool", file: "picotool_2.1.1+dfsg.orig.tar.xz", rule: "sdk-path",
		before:   "PICO_SDK_PATH is not defined",
		analysis: "pico-sdk-source, whose /usr/src/pico-sdk holds",
		recipe:   "-DPICO_SDK_PATH=/usr/src/pico-sdk", artifact: "picotool",
		origin: &atesor.DistroSource{Distro: "debian", Package: "picotool", Version: "2.1.1+dfsg-1", Suite: "trixie", Component: "main"}})
}
