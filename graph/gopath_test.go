package graph

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// TestGoPathPlanChoice: Go packages with no go.mod whose tests import packages outside
// the tree get the GOPATH plan when the distribution's Build-Depends name golang-*-dev
// packages (at the plan node and at the scout's fallback), and keep the dependency
// ending when they name none.
func TestGoPathPlanChoice(t *testing.T) {
	origin := &atesor.DistroSource{Distro: "debian", Package: "golang-github-cznic-b", Version: "0.0~git20151027.0.01b13d7-2",
		Suite: "trixie", GoImportPath: "github.com/cznic/b"}
	key, ok := debsrc.CounterpartOf("", origin)
	if !ok {
		t.Fatal("no counterpart")
	}
	tests := []struct {
		name    string
		deps    []string
		gopath  bool
		phases  []string
		endWith atesor.FailureClass
	}{
		{"golang-*-dev Build-Depends", []string{"debhelper", "dh-golang", "golang-go", "golang-github-cznic-fileutil-dev",
			"golang-github-cznic-mathutil-dev", "golang-github-cznic-strutil-dev"}, true, []string{"setup", knowledge.GoPathPhase, "build"}, atesor.FailureNone},
		{"no golang-*-dev Build-Depends", []string{"debhelper", "dh-golang", "golang-go"}, false, nil, atesor.FailureDependency},
	}
	for _, tt := range tests {
		for name, node := range map[string]func(*run) func(context.Context, *atesor.State) error{
			NodeHeuristicPlan: func(r *run) func(context.Context, *atesor.State) error { return r.heuristicPlanNode },
			NodeScout:         func(r *run) func(context.Context, *atesor.State) error { return r.scoutNode },
		} {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				r, s, _ := testRunOver(t, atesor.BuildGo)
				r.p.opts.now = time.Now
				s.Status, s.Verified = "", false
				p, err := knowledge.Profile("debian")
				if err != nil {
					t.Fatal(err)
				}
				s.Platform, s.Request.Origin = p, origin
				r.p.dists.seen = map[debsrc.Counterpart]distEntry{key: {d: &repair.Distribution{Package: origin.Package,
					Version: origin.Version, BuildDepends: tt.deps, GoImportPath: origin.GoImportPath}}}
				dir := filepath.Join("..", "knowledge", "testdata", "gopath", "cznic-b")
				if s.Detection, err = knowledge.DetectWith(context.Background(), dir, goModuleHint(s.Request)); err != nil {
					t.Fatal(err)
				}
				err = node(r)(context.Background(), s)
				if !tt.gopath {
					if !errors.Is(err, knowledge.ErrGoImportsWithoutModule) || s.FailureClass != tt.endWith || s.Plan != nil ||
						!strings.Contains(s.EscalationReason, "github.com/cznic/mathutil (all_test.go)") ||
						!strings.Contains(s.EscalationReason, "no GOPATH build: golang-github-cznic-b 0.0~git20151027.0.01b13d7-2: no golang-*-dev package") {
						t.Errorf("err %v, class %s, reason %q, plan %v", err, s.FailureClass, s.EscalationReason, s.Plan)
					}
					return
				}
				if err != nil || s.Plan == nil || s.FailureClass != tt.endWith {
					t.Fatalf("err %v, class %s, plan %v", err, s.FailureClass, s.Plan)
				}
				if d := cmp.Diff(tt.phases, phaseNames(s.Plan)); d != "" {
					t.Errorf("phases (-want +got):\n%s", d)
				}
				if len(s.TestCommands) != 1 || !strings.Contains(s.TestCommands[0], "GO111MODULE=off") {
					t.Errorf("test commands %q", s.TestCommands)
				}
			})
		}
	}
}
