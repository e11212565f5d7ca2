package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
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
	e2e(t)
	src := debiantest.SourceTarball(t, "libcrypt-rijndael-perl", "libcrypt-rijndael-perl_1.16.orig.tar.gz")
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute,
		Origin: &atesor.DistroSource{Distro: "debian", Package: "libcrypt-rijndael-perl", Version: "1.16-1", Suite: "trixie", Component: "main"}}
	e := newE2EEnv(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("port: %s in %s", res.Status, time.Since(start).Round(time.Second))
	checkVerified(t, e, res, "Rijndael.so")
	rep := e.report(t, res.Package)
	if rep.BuildSystem != atesor.BuildPerl || rep.PlanSource != "heuristic" {
		t.Errorf("build system %s from a %s plan, want perl from the heuristic (default) plan", rep.BuildSystem, rep.PlanSource)
	}
	if len(rep.Fixes) != 0 || rep.LLM.Calls != 0 {
		t.Errorf("%d fixes and %d model calls, want none: %+v", len(rep.Fixes), rep.LLM.Calls, rep.Fixes)
	}
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary && !strings.HasSuffix(a.Path, "/auto/Crypt/Rijndael/Rijndael.so") {
			t.Errorf("primary artifact %s is not the XS module", a.Path)
		}
	}
	if rep.Tests == nil || rep.Tests.Counts == nil || rep.Tests.Counts.Passed < 100 || rep.Tests.Counts.Failed > 0 {
		t.Errorf("tests %+v, want make test's TAP counted: at least 100 passed, none failing", rep.Tests)
	} else {
		t.Logf("tests: %s", rep.Tests.Summary())
	}
	recipePath := filepath.Join(e.out, res.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "perl -I. Makefile.PL && make") {
		t.Errorf("the recipe's commands do not run perl Makefile.PL and make:\n%s", md)
	}
	checkReplays(ctx, t, e, recipePath, src)
}
