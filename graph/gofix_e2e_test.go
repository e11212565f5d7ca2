package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedGoSumGoPath ports Debian's golang-github-jedisct1-go-hpke-compact 0.9.2
// offline: a Go module whose tarball has no go.sum, so the module build refuses
// golang.org/x/crypto ("missing go.sum entry for module providing package
// golang.org/x/crypto/chacha20poly1305"), and adding the entries would fetch the module.
//
//   - Before, with every rule but go-module-gopath: distribution-configure installs the
//     Build-Depends, the module build fails at go.sum again, and the port escalates.
//   - After: go-module-gopath builds it as dh-golang does, in GOPATH mode at
//     .gopath/src/github.com/jedisct1/go-hpke-compact over /usr/share/gocode, with
//     golang.org/x/crypto and powerman/check from their golang-*-dev packages; the test
//     binary bin/go-hpke-compact.test verifies and its 4 tests pass.
//   - The recipe replays and reproduces.
//
// Measured: 588 s in all on 2 shared cores (the escalation 3 min 1 s, the verified port
// 3 min 10 s, the replay reproduced 3 min 35 s, 1 artifact compared).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedGoSumGoPath$' ./graph/
func TestE2EScriptedGoSumGoPath(t *testing.T) {
	tier.Long(t)
	runGoDistCase(t, goDistCase{spec: "debian:golang-github-jedisct1-go-hpke-compact=0.9.2-1.1", name: "golang-github-jedisct1-go-hpke-compact",
		importPath: "github.com/jedisct1/go-hpke-compact", rule: "go-module-gopath", before: "missing go.sum entry", artifact: "go-hpke-compact.test",
		analysis: []string{"go.sum has no entry", "golang.org/x/crypto/chacha20poly1305 (golang-golang-x-crypto-dev)", "GOPATH build (GO111MODULE=off)"},
		recipe:   []string{"ln -sfn ../../../.. .gopath/src/github.com/jedisct1/go-hpke-compact"}, tests: 4})
}

// TestE2EScriptedGoVetOff ports Debian's golang-github-ghodss-yaml
// 1.0.0+git20220118.d8423dc offline: go test -c stops at the vet step go test runs
// first, whose tests analyzer reports yaml_go110_test.go's ExampleUnknown ("refers to
// unknown identifier: Unknown"), in code that compiles.
//
//   - Before, with every rule but go-test-vet-off: distribution-configure installs the
//     Build-Depends, the vet step fails again, and the port escalates.
//   - After: go-test-vet-off gives the plan's go test -vet=off, as dh-golang tests; the
//     test binary bin/yaml.test verifies and the tests (run with -vet=off too) pass, 11
//     of 11.
//   - The recipe replays and reproduces.
//
// Measured: 638 s in all on 2 shared cores (the escalation 4 min 8 s, the verified port
// 3 min 48 s, the replay reproduced 2 min 35 s, 1 artifact compared).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedGoVetOff$' ./graph/
func TestE2EScriptedGoVetOff(t *testing.T) {
	tier.Long(t)
	runGoDistCase(t, goDistCase{spec: "debian:golang-github-ghodss-yaml=1.0.0+git20220118.d8423dc-2", name: "golang-github-ghodss-yaml",
		importPath: "github.com/ghodss/yaml", rule: "go-test-vet-off", before: "ExampleUnknown refers to unknown identifier", artifact: "yaml.test",
		analysis: []string{"ExampleUnknown refers to unknown identifier: Unknown", "-vet=off"},
		recipe:   []string{"go test -vet=off -buildvcs=false -c -o bin/"}, tests: 11})
}

// TestE2EGoArchiveLibrary ports Debian's golang-github-xanzy-ssh-agent 0.3.2 offline: a
// Go library with no main package and no test (its one package builds on every OS but
// Windows), whose go test -c writes no test binary. The default plan writes the
// package's archive, bin/ssh-agent.a, compiled for linux/riscv64: a Go archive, the
// primary artifact, that verifies; the recipe replays and reproduces it. Before, the
// port ended "no primary artifact" (the sixth held-back round).
//
// Measured: 402 s in all on 2 shared cores (the port 2 min 40 s, the replay reproduced
// 3 min 43 s, 1 artifact compared).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EGoArchiveLibrary$' ./graph/
func TestE2EGoArchiveLibrary(t *testing.T) {
	tier.Long(t)
	e2e(t)
	ctx := context.Background()
	got := resolveGoSource(ctx, t, "debian:golang-github-xanzy-ssh-agent=0.3.2-1", "github.com/xanzy/ssh-agent")
	req := atesor.Request{Source: got.Tarball, Name: "golang-github-xanzy-ssh-agent", TestTimeout: 5 * time.Minute, Origin: &got.Origin}
	e := newE2EEnv(t)
	start := time.Now()
	r, err := e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("port: %s in %s: %s", r.Status, time.Since(start).Round(time.Second), r.Reason)
	checkVerified(t, e, r, "ssh-agent.a")
	rep := e.report(t, r.Package)
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary && a.Kind != atesor.KindGoArchive {
			t.Errorf("primary %s is a %s, want the Go archive alone", a.Path, a.Kind)
		}
	}
	if len(rep.Fixes) != 0 {
		t.Errorf("the default plan needed fixes: %+v", rep.Fixes)
	}
	recipePath := filepath.Join(e.out, r.Package+"_recipe.md")
	md, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "go build -buildvcs=false -o bin/ssh-agent.a .") {
		t.Errorf("the recipe does not build the archive:\n%s", md)
	}
	checkReplays(ctx, t, e, recipePath, got.Tarball)
}
