package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedCMakePackage ports Debian's kodi-pvr-mythtv 21.1.11 offline. Its
// CMakeLists.txt asks find_package(Kodi) for the KodiConfig.cmake that kodi-addons-dev
// installs (the Build-Depends name it only through dh-sequence-kodiaddon), so the
// configure stops at "Could not find a package configuration file provided by "Kodi"".
// With every rule but missing-package the port escalates there; with it the Contents
// index names kodi-addons-dev by its usr/lib/riscv64-linux-gnu/kodi/cmake/KodiConfig.cmake,
// the port verifies (pvr.mythtv.so, the add-on) and the recipe replays the install.
// Measured: the verified port 12 min 46 s under a load average of 12-16 (four other
// emulated builds).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 90m -run '^TestE2EScriptedCMakePackage$' ./graph/
func TestE2EScriptedCMakePackage(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "kodi-pvr-mythtv", file: "kodi-pvr-mythtv_21.1.11+ds.orig.tar.xz", rule: "missing-package",
		before: `provided by "Kodi"`, others: true, analysis: "cmake-package Kodi is in kodi-addons-dev",
		recipe: "apt-get install -y kodi-addons-dev", artifact: "pvr.mythtv"})
}
