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
)

// defaultPlanCase is a Debian source that a build system's default plan ports with no
// fix: the Perl and R builds, which no standard marker names.
type defaultPlanCase struct {
	pkg, file, version string
	system             atesor.BuildSystem
	// artifact is the file name verification must name; primary is the path every
	// primary artifact ends with.
	artifact, primary string
	// tests says the package has tests the port runs.
	tests bool
	// recipe are what the recipe's commands must say.
	recipe []string
}

// runDefaultPlanCase ports the case offline and checks it verifies from the heuristic
// plan of its build system with no fix or model call, with the primary artifact it
// names and a recipe that says what it should, then replays the recipe in a fresh
// sandbox. It returns the port's report for the caller's own checks.
func runDefaultPlanCase(t *testing.T, c defaultPlanCase) Report {
	t.Helper()
	e2e(t)
	src := debiantest.SourceTarball(t, c.pkg, c.file)
	ctx := context.Background()
	req := atesor.Request{Source: src, TestTimeout: 5 * time.Minute,
		Origin: &atesor.DistroSource{Distro: "debian", Package: c.pkg, Version: c.version, Suite: "trixie", Component: "main"}}
	e := newE2EEnv(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("port: %s in %s", res.Status, time.Since(start).Round(time.Second))
	checkVerifiedPort(t, e, res, c.tests, c.artifact)
	rep := e.report(t, res.Package)
	if rep.BuildSystem != c.system || rep.PlanSource != "heuristic" {
		t.Errorf("build system %s from a %s plan, want %s from the heuristic (default) plan", rep.BuildSystem, rep.PlanSource, c.system)
	}
	if len(rep.Fixes) != 0 || rep.LLM.Calls != 0 {
		t.Errorf("%d fixes and %d model calls, want none: %+v", len(rep.Fixes), rep.LLM.Calls, rep.Fixes)
	}
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary && !strings.HasSuffix(a.Path, c.primary) {
			t.Errorf("primary artifact %s does not end with %s", a.Path, c.primary)
		}
	}
	recipePath := filepath.Join(e.out, res.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range c.recipe {
		if !strings.Contains(string(md), want) {
			t.Errorf("the recipe's commands do not say %q:\n%s", want, md)
		}
	}
	checkReplays(ctx, t, e, recipePath, src)
	return rep
}
