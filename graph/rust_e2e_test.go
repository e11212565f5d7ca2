package graph

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/cargotool"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

// rustPort ports a cargo package offline (no model, crates from the distribution) and
// returns the result and its report.
func rustPort(t *testing.T, e *e2eEnv, src string) (*atesor.Result, Report) {
	t.Helper()
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: src, TestTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, res.Package)
	t.Logf("%s: %s (%s) in %s: %s", res.Package, res.Status, res.FailureClass, time.Since(start).Round(time.Second), res.Reason)
	for node, d := range rep.NodeSeconds {
		t.Logf("  node %s: %.0fs", node, d.Duration().Seconds())
	}
	return res, rep
}

// checkDistributionCrates checks that the report says the crates came from the
// distribution, with the packages installed and the cargo configuration written.
func checkDistributionCrates(t *testing.T, rep Report, packages ...string) {
	t.Helper()
	c := rep.Crates
	if c == nil || c.Source != atesor.CratesDistribution || c.Config != cargotool.ConfigFile {
		t.Fatalf("crates %+v, want the distribution's with %s", c, cargotool.ConfigFile)
	}
	for _, p := range packages {
		if !strings.Contains(strings.Join(c.Packages, " "), p) {
			t.Errorf("crate packages %v lack %s", c.Packages, p)
		}
	}
	if c.Rustc == "" {
		t.Error("the report does not say the sandbox's rustc")
	}
	t.Logf("crates: %s, rustc %s, packages %v", c, c.Rustc, c.Packages)
}

// TestE2ERustProgram ports testdata/packages/wordcount, a cargo program with three
// dependencies Debian packages (itoa, memchr, smallvec) and a Cargo.lock of registry
// versions the packaged crates do not have: the crates come from the distribution,
// cargo runs offline, the lock is set aside, the installed program is the primary
// artifact and the package's cargo tests are counted. Long tier: rustc runs emulated,
// and the port took 11 minutes on a loaded 2-core machine (installing cargo, rustc
// and the crates 6.5 of them).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2ERustProgram$' ./graph
func TestE2ERustProgram(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src, err := filepath.Abs("../testdata/packages/wordcount")
	if err != nil {
		t.Fatal(err)
	}
	e := newE2EEnv(t)
	res, rep := rustPort(t, e, src)
	checkVerified(t, e, res, "wordcount")
	checkDistributionCrates(t, rep, "librust-itoa", "librust-memchr", "librust-smallvec")
	if rep.Crates.LockfileSetAside != cargotool.LockSetAside {
		t.Errorf("Cargo.lock set aside as %q, want %s", rep.Crates.LockfileSetAside, cargotool.LockSetAside)
	}
	if rep.Install == nil || rep.Install.Method != "cargo" || rep.Install.ArtifactsFrom != atesor.ArtifactsFromInstall {
		t.Errorf("install %+v, want cargo install's program as the primary artifact", rep.Install)
	}
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary && (path.Base(a.Path) != "wordcount" || !strings.Contains(a.Path, "/bin/")) {
			t.Errorf("primary artifact %s is not the installed program", a.Path)
		}
	}
	tr := rep.Tests
	if tr == nil || tr.Counts == nil || tr.Counts.Framework != "cargo" || tr.Counts.Ran != 5 || tr.Counts.Failed != 0 {
		t.Fatalf("tests %+v, want cargo's 5 tests (4 unit, 1 of the program) passed", tr)
	}
	t.Logf("tests: %d ran, %d passed in %s", tr.Counts.Ran, tr.Counts.Passed, tr.Duration)
	md, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"distribution's packaged crates", "Cargo.lock was set aside", "test ! -e Cargo.lock || mv Cargo.lock"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("the recipe lacks %q", w)
		}
	}
}

// crateFromDebian unpacks the crate source that the distribution's librust-NAME-dev
// package of source package src installs (/usr/share/cargo/registry/DIR), fetched
// through the verified archive (the riscv64 Packages index, the .deb checked against
// it) and unpacked with dpkg-deb, into a directory named after the crate.
func crateFromDebian(t *testing.T, src, pkg, dir, name string) string {
	t.Helper()
	dpkgDeb, err := exec.LookPath("dpkg-deb")
	if err != nil {
		t.Fatalf("unpacking %s needs dpkg-deb on the host (apt-get install dpkg): %v", pkg, err)
	}
	ctx := context.Background()
	b := &debsrc.Binaries{Mirror: debiantest.Mirror(t), Suite: "trixie", Arch: "riscv64", CacheDir: filepath.Join(debiantest.CacheDir(), "binaries")}
	bins, err := b.OfSource(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, bp := range bins {
		if bp.Package != pkg {
			continue
		}
		deb, err := b.Fetch(ctx, bp)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if b, err := exec.CommandContext(ctx, dpkgDeb, "-x", deb, out).CombinedOutput(); err != nil {
			t.Fatalf("dpkg-deb -x %s: %v: %s", deb, err, b)
		}
		crate := filepath.Join(t.TempDir(), name)
		if err := os.Rename(filepath.Join(out, "usr", "share", "cargo", "registry", dir), crate); err != nil {
			t.Fatal(err)
		}
		return crate
	}
	t.Fatalf("the trixie riscv64 index has no %s built from %s", pkg, src)
	return ""
}

// TestE2ERustCrateFromDebian ports a real crate's source, itoa 1.0.14 as the
// distribution's librust-itoa-dev installs it: a library crate, whose riscv64 evidence
// is its test binaries (cargo test --no-run) and whose own tests run after
// verification.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2ERustCrateFromDebian$' ./graph
func TestE2ERustCrateFromDebian(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := crateFromDebian(t, "rust-itoa", "librust-itoa-dev", "itoa-1.0.14", "itoa")
	e := newE2EEnv(t)
	res, rep := rustPort(t, e, src)
	checkVerified(t, e, res, "itoa-")
	if rep.Crates.LockfileSetAside != "" {
		t.Errorf("a crate without a Cargo.lock had one set aside: %q", rep.Crates.LockfileSetAside)
	}
	checkDistributionCrates(t, rep)
	var tests int
	for _, a := range rep.Artifacts {
		if a.Role == atesor.ArtifactPrimary && a.Kind == atesor.KindExecutable && strings.Contains(a.Path, "/target/release/deps/") {
			tests++
		}
	}
	if tests == 0 {
		t.Errorf("no test binary among the primary artifacts: %+v", rep.Artifacts)
	}
	tr := rep.Tests
	if tr == nil || tr.Counts == nil || tr.Counts.Ran < 10 || tr.Counts.Failed != 0 {
		t.Fatalf("tests %+v, want itoa's own tests passed", tr)
	}
	t.Logf("tests: %d ran, %d passed in %s", tr.Counts.Ran, tr.Counts.Passed, tr.Duration)
}

// TestE2ERustMissingCrate ports testdata/packages/nomparse, which asks for nom 8, a
// major version the distribution does not package: the port ends before anything is
// built, with failure class dependency and an error that names the crate, the
// requirement and the versions the distribution has.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2ERustMissingCrate$' ./graph
func TestE2ERustMissingCrate(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src, err := filepath.Abs("../testdata/packages/nomparse")
	if err != nil {
		t.Fatal(err)
	}
	e := newE2EEnv(t)
	res, rep := rustPort(t, e, src)
	if res.Verified || res.FailureClass != atesor.FailureDependency {
		t.Fatalf("status %s class %q, want class dependency", res.Status, res.FailureClass)
	}
	for _, w := range []string{"nom", " 8 ", "7.1.3", "--crates registry"} {
		if !strings.Contains(res.Reason, w) {
			t.Errorf("reason %q lacks %q", res.Reason, w)
		}
	}
	if rep.FailureClass != atesor.FailureDependency || len(rep.Artifacts) != 0 {
		t.Errorf("report class %q, artifacts %d", rep.FailureClass, len(rep.Artifacts))
	}
}
