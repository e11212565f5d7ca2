package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedCstdint ports Debian's clog 1.3.0+dfsg offline. Its JSON2.h uses
// uint64_t after <string> alone, which GCC 13's libstdc++ no longer makes declare it, so
// the build stops at "'uint64_t' has not been declared". Without scripted repairs the
// port escalates with that error; with them the cxx-cstdint rule adds #include <cstdint>
// to JSON2.h as a recorded patch, the port verifies (the clog program), and the recipe's
// patch replays it. Measured: 208 s in all (escalation, verified port 1 min 22 s, replay
// reproduced 1 min 13 s) on 2 cores shared with a CI run.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedCstdint$' ./graph/
func TestE2EScriptedCstdint(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "clog", file: "clog_1.3.0+dfsg.orig.tar.xz", rule: "cxx-cstdint",
		before: "‘uint64_t’ has not been declared", analysis: "uint64_t used without <cstdint>",
		recipe: "patch -p1 < clog_patches/001-src-libshared-src-JSON2.h.patch", artifact: "clog"})
}
