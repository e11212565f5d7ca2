package graph

import (
	"context"
	"path"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// goCase is a Go module ported offline (no model) by the scripted Go plan.
type goCase struct {
	name string
	// src returns the source: a Debian tarball or a testdata module.
	src func(t *testing.T) string
	// programs are the primary artifacts (base names) a verified port must have, each
	// one built by the port.
	programs []string
	// rule, when set, is the scripted rule the port must have used.
	rule string
}

// TestE2EGoPorts ports Go modules offline, each proving one point of the Go plan:
//
//   - codesearch 1.2.0 (Debian's archive, standard library only) has three commands,
//     cmd/cindex, cmd/csearch and cmd/cgrep: all three are built and verified;
//
//   - google/uuid 1.6.0 (Debian's archive) is a library: its test binary is the
//     riscv64 evidence and its tests run in finish;
//
//   - testdata/packages/gosum implements a function only in amd64/arm64 assembly, with a
//     portable fallback behind the purego tag: the portable-tags rule ports it.
//
//     ATESOR_E2E=1 go test -p 1 -timeout 30m -run 'TestE2EGoPorts/codesearch' ./graph/
func TestE2EGoPorts(t *testing.T) {
	tier.Long(t)
	cases := []goCase{
		{name: "codesearch", src: func(t *testing.T) string {
			return debiantest.SourceTarball(t, "codesearch", "codesearch_1.2.0.orig.tar.gz")
		}, programs: []string{"cindex", "csearch", "cgrep"}},
		{name: "uuid", src: func(t *testing.T) string {
			return debiantest.SourceTarball(t, "golang-github-google-uuid", "golang-github-google-uuid_1.6.0.orig.tar.gz")
		}, programs: []string{"uuid.test"}},
		{name: "gosum", src: func(t *testing.T) string {
			p, err := filepath.Abs("../testdata/packages/gosum")
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, programs: []string{"gosum"}, rule: "go-portable-tags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runGoCase(t, c) })
	}
}

func runGoCase(t *testing.T, c goCase) {
	e2e(t)
	e := newE2EEnv(t)
	src := c.src(t)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: src, TestTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s in %s", c.name, res.Status, time.Since(start).Round(time.Second))
	rep := e.report(t, res.Package)
	var rules []string
	for _, f := range rep.Fixes {
		t.Logf("fix %d by %s/%s (%s): %s -> built %t", f.Attempt, f.Source, f.Rule, f.Error, f.Strategy, f.Success)
		rules = append(rules, f.Rule)
	}
	checkVerified(t, e, res, c.programs...)
	built := map[string]bool{}
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary {
			built[path.Base(a.Path)] = true
		}
	}
	for _, p := range c.programs {
		if !built[p] {
			t.Errorf("%s: %s was not built as a primary artifact (primaries %v)", c.name, p, built)
		}
	}
	if len(rep.MissingArtifacts) > 0 {
		t.Errorf("%s: expected artifacts missing: %v", c.name, rep.MissingArtifacts)
	}
	if c.rule != "" && !slices.Contains(rules, c.rule) {
		t.Errorf("%s verified without the %s rule (rules used: %v)", c.name, c.rule, rules)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
}
