package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedFeatureOff ports Debian's discover 2.1.2 offline. Its configure probes
// curl-config by default and stops when there is none ("curl-config --libs failed.");
// Debian's Build-Depends name no curl, so Debian builds it without: without scripted
// repairs the port escalates at that error; with them configure-feature-off configures
// --disable-curl (gcc14-permissive follows for its old C), libdiscover verifies and the
// recipe replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedFeatureOff$' ./graph/
func TestE2EScriptedFeatureOff(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "discover", file: "discover_2.1.2.orig.tar.gz", rule: "configure-feature-off",
		before:   "curl-config --libs failed",
		analysis: "builds without it (no Build-Depends names curl)",
		recipe:   "./configure --disable-curl", artifact: "libdiscover.so.2.0.1",
		origin: &atesor.DistroSource{Distro: "debian", Package: "discover", Version: "2.1.2-10.1", Suite: "trixie", Component: "main"}})
}
