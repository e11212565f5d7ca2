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

// TestE2EScriptedDistributionConfigure ports Debian's repacked spdlog 1.15.2+ds offline,
// as debian:spdlog resolves it. The +ds tarball lacks include/spdlog/fmt/bundled, so
// upstream's default configure (the bundled fmt) fails to compile at
// spdlog/fmt/bundled/core.h. Without scripted repairs the port escalates there; with
// them the distribution-configure rule reads Debian's debian/rules and Build-Depends
// from the verified archive, configures with -DSPDLOG_FMT_EXTERNAL=ON (and the shared
// library Debian builds), installs the build dependencies, and the port verifies with
// the fix recorded under the rule's name and its commands in the recipe.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedDistributionConfigure$' ./graph/
func TestE2EScriptedDistributionConfigure(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := debiantest.SourceTarball(t, "spdlog", "spdlog_1.15.2+ds.orig.tar.xz")
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute, Origin: &atesor.DistroSource{Distro: "debian",
		Package: "spdlog", Version: "1:1.15.2+ds-2", Suite: "trixie", Component: "main"}}

	// Before: no rule, the port stops at the bundled fmt header the tarball lacks.
	before := newE2EEnv(t)
	start := time.Now()
	res, err := before.pipeline(t, nil, WithoutScriptedRepairs()).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified || !strings.Contains(res.Reason, "spdlog/fmt/bundled/core.h") {
		t.Fatalf("without scripted repairs: status %s (%s), want an escalation at the bundled fmt header", res.Status, res.Reason)
	}
	t.Logf("before: %s in %s: %s", res.Status, time.Since(start).Round(time.Second), res.Reason)

	// After: the distribution's configuration, verified offline.
	e := newE2EEnv(t)
	start = time.Now()
	res, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	t.Logf("after: %s in %s; fixes by rule %v", res.Status, time.Since(start).Round(time.Second), rep.FixesByRule)
	for _, f := range rep.Fixes {
		t.Logf("fix %d by %s/%s: %s (%s)", f.Attempt, f.Source, f.Rule, f.Strategy, f.Analysis)
	}
	checkVerified(t, e, res, "libspdlog")
	var fix *atesor.FixAttempt
	for i, f := range rep.Fixes {
		if f.Source == atesor.FixSourceScripted && f.Rule == "distribution-configure" {
			fix = &rep.Fixes[i]
		}
	}
	if fix == nil {
		t.Fatal("verified without the distribution-configure rule")
	}
	if !strings.Contains(fix.Analysis, "Debian configures spdlog 1:1.15.2+ds-2 with -DSPDLOG_FMT_EXTERNAL=ON") || !strings.Contains(fix.Analysis, "libfmt-dev") {
		t.Errorf("the fix's analysis does not name Debian's switch and packages: %s", fix.Analysis)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	md, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "-DSPDLOG_FMT_EXTERNAL=ON") || !strings.Contains(string(md), "catch2") {
		t.Errorf("the recipe does not carry the distribution's configuration:\n%s", md)
	}
}
