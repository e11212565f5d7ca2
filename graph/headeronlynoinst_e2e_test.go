package graph

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EHeaderOnlyNoInstall ports Debian's hera 2.0.0+git20221115.8bfdd4b+dfsg
// offline: a header-only C++ library whose CMakeLists.txt declares add_library(hera
// INTERFACE) and no install() at all, its tests off by default. Before, the install
// step failed to list a staging directory cmake --install never made, and the port
// ended not verified at "no primary artifact", a problem no rule answers. Now the empty
// install makes it header-only from the source tree (headers_from_tree), the
// header-only-tests rule configures -DHERA_BUILD_TESTS=ON (which sets
// HERA_BUILD_EXAMPLES, the option its test directories sit under), cmake-missing-subdir
// imports the distribution's Catch2 for the extern/Catch2 the repack stripped instead
// of turning the tests off again, and both test programs, bottleneck_tests and
// wasserstein_tests, are compiled from the headers.
//
// What follows depends on the Debian mirror's Contents index: the tests option also
// builds matching/, whose phat/helpers/misc.h the repack stripped too and whose
// package (libphat-dev) missing-package finds only there. When the index cannot be read
// the port must end at that header, the step past this test's rules. When it can,
// missing-package installs libphat-dev, and matching/ then stops at phat's API
// ("'k_infinity_index' is not a member of 'phat'": trixie's libphat-dev is older than
// the phat hera's sources were written for), which no rule answers; a port that
// verifies must have the test programs as its primary artifacts and a recipe that
// replays. Run for real once with no index, 344 s: the port escalated in 5 min 42 s at
// the attempt limit, at matching/'s phat header, after header-only-tests,
// cmake-missing-subdir and cxx-cstdint (<cstdint> in include/hera/common/diagram_reader.h),
// both test programs built; and, with the index read (debarchive.Client.LookupIndex),
// `atesor port --offline debian:hera` installed libphat-dev and escalated at the attempt
// limit at phat's API (9 min 58 s under a load average of 12).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EHeaderOnlyNoInstall$' ./graph/
func TestE2EHeaderOnlyNoInstall(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := debiantest.SourceTarball(t, "hera", "hera_2.0.0+git20221115.8bfdd4b+dfsg.orig.tar.gz")
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 10 * time.Minute,
		Origin: &atesor.DistroSource{Distro: "debian", Package: "hera", Version: "2.0.0+git20221115.8bfdd4b+dfsg-1", Suite: "trixie", Component: "main"}}

	e := newE2EEnv(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("port: %s in %s", res.Status, time.Since(start).Round(time.Second))
	rep := e.report(t, res.Package)
	var rules []string
	for _, f := range rep.Fixes {
		rules = append(rules, f.Rule)
		if strings.Contains(f.Strategy, "-DHERA_BUILD_TESTS=OFF") {
			t.Errorf("fix %s turned the tests off: %s", f.Rule, f.Strategy)
		}
	}
	t.Logf("fixes: %q", rules)
	if len(rep.Fixes) < 2 || rep.Fixes[0].Rule != "header-only-tests" || !strings.Contains(rep.Fixes[0].Strategy, "-DHERA_BUILD_TESTS=ON") ||
		!strings.Contains(rep.Fixes[0].Error, "declares only INTERFACE libraries") || strings.Contains(rep.Fixes[0].Strategy, "HERA_BUILD_EXAMPLES") {
		t.Fatalf("first fix %+v, want header-only-tests with -DHERA_BUILD_TESTS=ON for the header-only library found from the tree", rep.Fixes)
	}
	if rep.Fixes[1].Rule != "cmake-missing-subdir" || !strings.Contains(rep.Fixes[1].Strategy, "install catch2 and write extern/Catch2/CMakeLists.txt") {
		t.Fatalf("second fix %+v, want the distribution's Catch2 for extern/Catch2", rep.Fixes[1])
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	blog, err := os.ReadFile(filepath.Join(e.out, res.Package+"_build.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, prog := range []string{"bottleneck_tests", "wasserstein_tests"} {
		if !strings.Contains(string(blog), "Built target "+prog) {
			t.Errorf("the build log does not show %s built", prog)
		}
	}
	if !res.Verified {
		// The step past these rules: matching/'s stripped phat header, whose package only
		// the Contents index names.
		if res.Status == atesor.StatusVerified || !strings.Contains(string(blog), "phat/helpers/misc.h: No such file or directory") ||
			!slices.ContainsFunc(rep.Fixes, func(f atesor.FixAttempt) bool { return f.Rule == "cxx-cstdint" }) {
			t.Fatalf("not verified (%s: %s), and not at matching/'s phat header after the cstdint fix", res.Status, res.Reason)
		}
		if slices.ContainsFunc(rep.Fixes, func(f atesor.FixAttempt) bool {
			return f.Rule == "missing-package" && strings.Contains(f.Strategy, "libphat-dev")
		}) {
			if !strings.Contains(string(blog), "is not a member of ‘phat’") {
				t.Fatalf("libphat-dev installed, and the port not at phat's API: %s: %s", res.Status, res.Reason)
			}
			t.Logf("not verified, at phat's API after libphat-dev was installed: %s", res.Reason)
			return
		}
		t.Logf("not verified, at matching/'s phat header (the Contents index could not name libphat-dev): %s", res.Reason)
		return
	}
	checkVerified(t, e, res, "tests")
	inst := rep.Install
	if inst == nil || !inst.HeaderOnly || !inst.HeadersFromTree || inst.ArtifactsFrom != atesor.ArtifactsFromTestPrograms || inst.PrimaryTestPrograms != 2 {
		t.Fatalf("install %+v, want the two test programs primary for the header-only library found from the tree", inst)
	}
	recipePath := filepath.Join(e.out, res.Package+"_recipe.md")
	checkReplays(ctx, t, e, recipePath, src)
}
