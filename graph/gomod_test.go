package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// TestGoModuleHint: the request's module path wins over the distribution's
// Go-Import-Path; neither gives no hint (the import comments decide).
func TestGoModuleHint(t *testing.T) {
	origin := &atesor.DistroSource{Distro: "debian", Package: "golang-github-pmezard-go-difflib", Version: "1.0.0-3",
		GoImportPath: "github.com/pmezard/go-difflib"}
	tests := []struct {
		name string
		req  atesor.Request
		want knowledge.DetectOptions
	}{
		{"request", atesor.Request{GoModule: "example.org/mine", Origin: origin},
			knowledge.DetectOptions{GoModulePath: "example.org/mine", GoModulePathFrom: "the request"}},
		{"distribution", atesor.Request{Origin: origin}, knowledge.DetectOptions{GoModulePath: "github.com/pmezard/go-difflib",
			GoModulePathFrom: "the Go-Import-Path of debian golang-github-pmezard-go-difflib 1.0.0-3"}},
		{"other source", atesor.Request{Origin: &atesor.DistroSource{Distro: "debian", Package: "zlib"}}, knowledge.DetectOptions{}},
		{"none", atesor.Request{}, knowledge.DetectOptions{}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, goModuleHint(tt.req)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

// TestNoGoModulePathEndsOffline: Go packages with no go.mod and no module path end an
// offline run at the plan, with class setup and what to give, instead of a discovery
// plan that cannot build them.
func TestNoGoModulePathEndsOffline(t *testing.T) {
	r, s, _ := testRunOver(t, atesor.BuildGo)
	s.Status, s.Verified = "", false
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	s.Platform = p
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "difflib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "difflib", "difflib.go"), []byte("package difflib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	det, err := knowledge.DetectWith(context.Background(), dir, goModuleHint(s.Request))
	if err != nil {
		t.Fatal(err)
	}
	s.Detection = det
	for name, node := range map[string]func(context.Context, *atesor.State) error{
		NodeHeuristicPlan: r.heuristicPlanNode, NodeScout: r.scoutNode,
	} {
		s.FailureClass, s.EscalationReason, s.Plan = atesor.FailureNone, "", nil
		err := node(context.Background(), s)
		if !errors.Is(err, knowledge.ErrNoGoModulePath) || s.FailureClass != atesor.FailureSetup || s.EscalationReason != knowledge.ErrNoGoModulePath.Error() || s.Plan != nil {
			t.Errorf("%s: err %v, class %s, reason %q, plan %v", name, err, s.FailureClass, s.EscalationReason, s.Plan)
		}
	}

	// With the distribution's path the default plan makes the go.mod first.
	s.Request.Origin = &atesor.DistroSource{Distro: "debian", Package: "golang-github-pmezard-go-difflib", Version: "1.0.0-3",
		GoImportPath: "github.com/pmezard/go-difflib"}
	if s.Detection, err = knowledge.DetectWith(context.Background(), dir, goModuleHint(s.Request)); err != nil {
		t.Fatal(err)
	}
	s.FailureClass, s.EscalationReason = atesor.FailureNone, ""
	if err := r.heuristicPlanNode(context.Background(), s); err != nil || s.Plan == nil {
		t.Fatalf("plan %v: %v", s.Plan, err)
	}
	if d := cmp.Diff([]string{"setup", knowledge.GoModPhase, "build"}, phaseNames(s.Plan)); d != "" {
		t.Errorf("phases (-want +got):\n%s", d)
	}
	if got := s.Plan.Phases[1].Commands[0]; got != knowledge.GoModInitLine("github.com/pmezard/go-difflib") {
		t.Errorf("go-mod phase %q", got)
	}
}

// TestGoImportsWithoutModuleEndOffline: Go packages with no go.mod that import packages
// outside the tree end an offline run at the plan with class dependency, naming them.
func TestGoImportsWithoutModuleEndOffline(t *testing.T) {
	r, s, _ := testRunOver(t, atesor.BuildGo)
	s.Status, s.Verified = "", false
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	s.Platform = p
	dir := t.TempDir()
	src := "package diff // import \"example.org/diff\"\n\nimport \"github.com/pkg/errors\"\n"
	if err := os.WriteFile(filepath.Join(dir, "diff.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.Detection, err = knowledge.DetectWith(context.Background(), dir, knowledge.DetectOptions{}); err != nil {
		t.Fatal(err)
	}
	err = r.heuristicPlanNode(context.Background(), s)
	if !errors.Is(err, knowledge.ErrGoImportsWithoutModule) || s.FailureClass != atesor.FailureDependency ||
		!strings.Contains(s.EscalationReason, "github.com/pkg/errors (diff.go)") || s.Plan != nil {
		t.Errorf("err %v, class %s, reason %q, plan %v", err, s.FailureClass, s.EscalationReason, s.Plan)
	}
}
