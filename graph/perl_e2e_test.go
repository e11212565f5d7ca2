package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EPerlMakeMaker ports Debian's libcrypt-rijndael-perl 1.16 offline: a Perl XS
// module with only a Makefile.PL at its top level, which the discovery plan stopped at
// ("no standard build file ... at the top level") before the Perl build system. Now
// detection names perl, the default plan runs perl Makefile.PL and make, the XS module
// blib/arch/auto/Crypt/Rijndael/Rijndael.so that make install stages is the verified
// riscv64 artifact, make test's TAP is counted, no fix or model is needed, and the
// recipe replays in a fresh sandbox. Measured: 183 s in all (the port 1 min 50 s with
// 132 of 132 tests passed, the replay 1 min 7 s, reproduced).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 40m -run '^TestE2EPerlMakeMaker$' ./graph/
func TestE2EPerlMakeMaker(t *testing.T) {
	tier.Long(t)
	rep := runDefaultPlanCase(t, defaultPlanCase{pkg: "libcrypt-rijndael-perl", file: "libcrypt-rijndael-perl_1.16.orig.tar.gz", version: "1.16-1",
		system: atesor.BuildPerl, artifact: "Rijndael.so", primary: "/auto/Crypt/Rijndael/Rijndael.so", tests: true,
		recipe: []string{"perl -I. Makefile.PL && make"}})
	if rep.Tests == nil || rep.Tests.Counts == nil || rep.Tests.Counts.Passed < 100 || rep.Tests.Counts.Failed > 0 {
		t.Errorf("tests %+v, want make test's TAP counted: at least 100 passed, none failing", rep.Tests)
	} else {
		t.Logf("tests: %s", rep.Tests.Summary())
	}
}
