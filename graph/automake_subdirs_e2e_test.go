package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedAutomakeSubdir ports Debian's repacked readosm 1.1.0a+dfsg offline.
// The repack strips tests/, but configure.ac's AC_CONFIG_FILES and the top Makefile.am's
// SUBDIRS still name it, so the shipped configure stops at config.status ("cannot find
// input file: `tests/Makefile.in'"). Without scripted repairs the port escalates with
// that error; with them automake-missing-subdir drops tests from both files, runs
// autoreconf -fi before ./configure, the port verifies with the fix recorded by rule,
// and the recipe (its patches and commands) replays to the same artifacts. Measured:
// 1272 s in all (verified port 9 min 28 s, replay 8 min 5 s) under a load average of 20-27.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedAutomakeSubdir$' ./graph/
func TestE2EScriptedAutomakeSubdir(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "readosm", file: "readosm_1.1.0a+dfsg.orig.tar.xz", rule: "automake-missing-subdir",
		before: "cannot find input file: `tests/Makefile.in'", analysis: "Makefile.am's SUBDIRS names tests",
		recipe: "autoreconf -fi && ./configure", artifact: "libreadosm"})
}
