package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedErrlist ports Debian's rungetty 1.2 offline. Its rungetty.c reports
// errors with sys_errlist[errno], which glibc 2.32 removed from its API, so the build
// stops at "'sys_errlist' undeclared". Without scripted repairs the port escalates with
// that error; with them the glibc-removed-errlist rule rewrites the seven lookups to
// strerror(errno) as a recorded patch of rungetty.c, the port verifies (the rungetty
// program), and the recipe's patch replays it. Measured: 85 s in all (escalation,
// verified port 31 s, replay reproduced 27 s) under a load average of 7-10 on 2 cores.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedErrlist$' ./graph/
func TestE2EScriptedErrlist(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "rungetty", file: "rungetty_1.2.orig.tar.gz", rule: "glibc-removed-errlist",
		before: "‘sys_errlist’ undeclared", analysis: "glibc 2.32 removed sys_errlist",
		recipe: "patch -p1 < rungetty_patches/001-rungetty.c.patch", artifact: "rungetty"})
}
