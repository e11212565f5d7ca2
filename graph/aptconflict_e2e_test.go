package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedAptConflict ports Debian's mpdscribble 0.25 offline, as
// debian:mpdscribble resolves it. Detection installs libcurl4-openssl-dev for its
// pkg-config libcurl; the build then needs the distribution's configuration
// (distribution-configure adds -Dsystemd=disabled and the Build-Depends, among them
// libcurl4-gnutls-dev), and apt refuses that install line: the two libcurl flavours
// conflict. apt-conflict drops the plan's own choice, the port verifies (the mpdscribble
// program) and the recipe replays it. The before run is skipped: without scripted
// repairs the port stops earlier, at the configure distribution-configure answers.
// Measured: 774 s in all (verified port 6 min 47 s, replay 6 min 3 s) beside a batch of
// ports and a CI run.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedAptConflict$' ./graph/
func TestE2EScriptedAptConflict(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "mpdscribble", file: "mpdscribble_0.25.orig.tar.xz", rule: "apt-conflict",
		analysis: "libcurl4-openssl-dev conflicts with libcurl4-gnutls-dev", recipe: "libcurl4-gnutls-dev", artifact: "mpdscribble",
		origin: &atesor.DistroSource{Distro: "debian", Package: "mpdscribble", Version: "0.25-2", Suite: "trixie", Component: "main"}})
}
