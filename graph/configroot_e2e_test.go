package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedConfigureAsRoot ports Debian's GNU tar 1.35+dfsg offline. Its gnulib
// configure refuses to run as root, and the sandbox builds as root: without scripted
// repairs the port escalates with "you should not run configure as root"; with them
// configure-as-root runs configure with FORCE_UNSAFE_CONFIGURE=1, tar verifies and the
// recipe replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedConfigureAsRoot$' ./graph/
func TestE2EScriptedConfigureAsRoot(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "tar", file: "tar_1.35+dfsg.orig.tar.xz", rule: "configure-as-root",
		before:   "you should not run configure as root",
		analysis: "refuses to run as root",
		recipe:   "FORCE_UNSAFE_CONFIGURE=1 ./configure", artifact: "tar"})
}
