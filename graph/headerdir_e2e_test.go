package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedHeaderDir ports Debian's repacked argh 1.3.2+ds offline. Its tarball
// dropped the doctest.h that argh_tests.cpp includes by that name, and doctest-dev
// installs it as /usr/include/doctest/doctest.h, so the build stops at "fatal error:
// doctest.h: No such file or directory" however the package is installed. Without
// scripted repairs the port escalates with that error; with them the header-subdir
// rule installs doctest-dev and puts /usr/include/doctest on CPATH, the tests compile
// (argh_tests links), the port verifies, and the recipe replays it. Measured: 340 s in
// all (escalation 25 s, verified port 3 min 17 s, replay 1 min 56 s) on 2 shared cores.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedHeaderDir$' ./graph/
func TestE2EScriptedHeaderDir(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "argh", file: "argh_1.3.2+ds.orig.tar.xz", rule: "header-subdir",
		before: "doctest.h: No such file or directory", analysis: "/usr/include/doctest/doctest.h (doctest-dev",
		recipe: "export CPATH=/usr/include/doctest && cmake", artifact: "argh", built: "Built target argh_tests"})
}
