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
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

// givenPlanNode plans as a user or a model would: the plan it holds, not the default.
type givenPlanNode struct{ plan atesor.BuildPlan }

func (givenPlanNode) Name() string { return NodeHeuristicPlan }

func (n givenPlanNode) Run(_ context.Context, _ atesor.Run, s *atesor.State) error {
	p := n.plan
	p.Phases = slices.Clone(p.Phases)
	s.Plan, s.PlanSource = &p, "given"
	s.TestCommands = []string{"GOTOOLCHAIN=auto go test ./..."}
	return nil
}

var _ atesor.Node = givenPlanNode{}

// TestE2EGoModInit ports Debian's golang-github-pmezard-go-difflib 1.0.0 offline, as
// debian:NAME resolves it: Go packages with no go.mod (difflib/, no import comment),
// which Debian builds under its Go-Import-Path github.com/pmezard/go-difflib.
//
//   - A given plan that builds with the go command as it is (no go-mod phase) fails
//     with the go command's missing go.mod; the go-mod-init rule adds go mod init with
//     the distribution's Go-Import-Path and the port verifies.
//
//   - The default plan has the go-mod phase from the start and verifies at its first
//     build, its library's test binary (bin/difflib.test) the primary artifact, and the
//     recipe carries go mod init.
//
// Measured: 557 s on a loaded machine (the given plan 4 min 22 s, the default 4 min 47 s),
// 374 s on a lighter load (2 min 45 s and 3 min 25 s).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EGoModInit$' ./graph/
func TestE2EGoModInit(t *testing.T) {
	tier.Long(t)
	e2e(t)
	ctx := context.Background()
	got := resolveGoSource(ctx, t, "debian:golang-github-pmezard-go-difflib=1.0.0-3", "github.com/pmezard/go-difflib")
	req := atesor.Request{Source: got.Tarball, Name: "go-difflib", TestTimeout: 5 * time.Minute, Origin: &got.Origin}

	// A given plan without the go.mod: the first build fails, the rule repairs it.
	given := atesor.BuildPlan{Reasoning: "given", Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go"}},
		{Name: "build", Commands: []string{"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..."}},
	}}
	e := newE2EEnv(t)
	start := time.Now()
	r, err := e.pipeline(t, nil, WithNode(NodeHeuristicPlan, givenPlanNode{given})).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, r.Package)
	t.Logf("given plan: %s in %s; fixes by rule %v", r.Status, time.Since(start).Round(time.Second), rep.FixesByRule)
	for _, f := range rep.Fixes {
		t.Logf("fix %d by %s/%s on %q: %s (%s)", f.Attempt, f.Source, f.Rule, f.Error, f.Strategy, f.Analysis)
	}
	if len(rep.Fixes) == 0 || rep.Fixes[0].Rule != "go-mod-init" {
		t.Fatalf("the first fix is not go-mod-init: %+v", rep.Fixes)
	}
	if first := rep.Fixes[0]; !strings.Contains(first.Error, "does not contain main module") && !strings.Contains(first.Error, "go.mod file not found") {
		t.Errorf("the given plan failed with %q, not the missing go.mod", first.Error)
	}
	if !strings.Contains(rep.Fixes[0].Analysis, "Go-Import-Path of the distribution's golang-github-pmezard-go-difflib 1.0.0-3") {
		t.Errorf("the fix does not say where the module path came from: %s", rep.Fixes[0].Analysis)
	}
	checkVerified(t, e, r, "difflib.test")

	// The default plan: the go-mod phase before the first build.
	e = newE2EEnv(t)
	start = time.Now()
	r, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rep = e.report(t, r.Package)
	t.Logf("default plan: %s in %s; %d fixes", r.Status, time.Since(start).Round(time.Second), len(rep.Fixes))
	checkVerified(t, e, r, "difflib.test")
	if len(rep.Fixes) != 0 {
		t.Errorf("the default plan needed fixes: %+v", rep.Fixes)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
	md, err := os.ReadFile(filepath.Join(e.out, r.Package+"_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), knowledge.GoModInitLine("github.com/pmezard/go-difflib")) {
		t.Errorf("the recipe does not make the go.mod:\n%s", md)
	}
}

// resolveGoSource resolves a debian:NAME=VERSION spec of a Go source through the verified
// archive and fails the test unless its origin carries importPath, its Go-Import-Path.
func resolveGoSource(ctx context.Context, t *testing.T, spec, importPath string) *debsrc.Resolved {
	t.Helper()
	res := &debsrc.Resolver{Mirror: debiantest.Mirror(t), Suite: "trixie", CacheDir: filepath.Join(debiantest.CacheDir(), "sources")}
	got, err := res.Resolve(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got.Origin.GoImportPath != importPath {
		t.Fatalf("origin %+v: want the Go-Import-Path", got.Origin)
	}
	return got
}
