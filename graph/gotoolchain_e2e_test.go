package graph

import (
	"context"
	"debug/buildinfo"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EGoNewerToolchain ports testdata/packages/newgo, whose go.mod says go 1.27.3
// (Debian trixie has Go 1.24) and which uses sync.WaitGroup.Go (Go 1.25), offline. The
// run fetches go1.27.3 through the Go module proxy (linux-riscv64 when served, else
// linux-amd64 beside the accelerated toolchain), builds, verifies and tests with it,
// and the report names the toolchain; the binary's build information says go1.27.3
// for riscv64.
//
//	ATESOR_E2E=1 go test -p 1 -timeout 30m -run TestE2EGoNewerToolchain -v ./graph/
func TestE2EGoNewerToolchain(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	src, err := filepath.Abs("../testdata/packages/newgo")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: src, TestTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("newgo: %s in %s", res.Status, time.Since(start).Round(time.Second))
	rep := e.report(t, res.Package)
	if rep.GoToolchain != nil {
		t.Logf("Go toolchain: %s (module %s, %s)", rep.GoToolchain, rep.GoToolchain.Module, rep.GoToolchain.Sum)
	}
	checkVerified(t, e, res, "newgo")
	tc := rep.GoToolchain
	if tc == nil {
		t.Fatal("the report names no Go toolchain")
	}
	if tc.Version != "go1.27.3" || tc.Required != "go1.27.3" || !strings.HasPrefix(tc.SuiteVersion, "go1.24") ||
		(tc.Source != atesor.GoToolchainProxyRISCV64 && tc.Source != atesor.GoToolchainProxyAMD64) ||
		tc.Module != "golang.org/toolchain@v0.0.1-go1.27.3.linux-"+tc.Arch || !strings.HasPrefix(tc.Sum, "h1:") {
		t.Errorf("toolchain %+v", tc)
	}
	if rep.Install == nil || !rep.Install.OK || rep.Install.ArtifactsFrom != atesor.ArtifactsFromInstall {
		t.Errorf("install step %+v (a cross build cannot use GOBIN)", rep.Install)
	}
	if rep.Tests == nil || rep.Tests.Counts == nil || rep.Tests.Counts.Passed < 1 {
		t.Errorf("tests %+v", rep.Tests)
	}
	var bin string
	filepath.WalkDir(filepath.Join(e.out, res.Package+"_artifacts"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "newgo" {
			bin = p
		}
		return nil
	})
	if bin == "" {
		t.Fatal("newgo was not copied out")
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	t.Logf("newgo: built by %s, GOARCH=%s CGO_ENABLED=%s", bi.GoVersion, settings["GOARCH"], settings["CGO_ENABLED"])
	if bi.GoVersion != "go1.27.3" || settings["GOARCH"] != "riscv64" {
		t.Errorf("newgo was built by %s for %s", bi.GoVersion, settings["GOARCH"])
	}
}
