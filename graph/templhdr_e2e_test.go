package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedTemplateHeader ports Debian's anomaly 1.1.0 offline. Its CMakeLists.txt
// configures commit.h from commit.h.in only if (EXISTS ${CMAKE_SOURCE_DIR}/.git/index),
// so the release tarball's build stops at "fatal error: commit.h: No such file or
// directory". Without scripted repairs the port escalates with that error; with them
// the template-header rule creates commit.h from its template (COMMIT empty, inside its
// string literal) as a recorded file, the port verifies (the anomaly program), and the
// recipe's patch replays it. Measured: 86 s in all (escalation, verified port 44 s,
// replay reproduced 23 s) on 2 cores shared with other runs.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedTemplateHeader$' ./graph/
func TestE2EScriptedTemplateHeader(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "anomaly", file: "anomaly_1.1.0.orig.tar.gz", rule: "template-header",
		before: "commit.h: No such file", analysis: "only in a git checkout",
		recipe: "patch -p1 < anomaly_patches/001-commit.h.patch", artifact: "anomaly"})
}
