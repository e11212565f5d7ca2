package graph

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EExportsMatchDebianSymbols ports zlib from Debian's archive offline and checks
// that the export check compared its libraries with the functions zlib.h declares and
// with the symbols file of Debian's own riscv64 zlib1g, and found nothing missing.
func TestE2EExportsMatchDebianSymbols(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	zlib := debiantest.SourceTarball(t, "zlib", zlibFile)
	distributionExports(t, e, nil, atesor.Request{Source: zlib, TestTimeout: 5 * time.Minute}, "zlib", "zlib1g")
}

// distributionExports ports a package from Debian's archive and returns its export
// check, failing unless the port is verified and the check compared the port's libraries
// with their declarations and with the distribution's binary package binPkg, and found
// nothing missing.
func distributionExports(t *testing.T, e *e2eEnv, prov atesor.Provider, req atesor.Request, pkg, binPkg string) *atesor.ExportCheck {
	t.Helper()
	start := time.Now()
	res, err := e.pipeline(t, prov).Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, pkg)
	t.Logf("%s: %s in %s; exports: %s (headers from %s); distribution: %s; notes: %v", pkg, res.Status, time.Since(start).Round(time.Second),
		rep.Exports.Summary(), rep.Exports.HeadersFrom, rep.Exports.Distribution, rep.Exports.Notes)
	if !res.Verified {
		t.Fatalf("%s: status %s (%s): %s", pkg, res.Status, res.FailureClass, res.Reason)
	}
	ec := rep.Exports
	if ec == nil || !ec.Complete() || ec.Declared == 0 || ec.DistributionSymbols == 0 || !strings.Contains(ec.Distribution, binPkg) {
		t.Fatalf("%s: exports = %+v", pkg, ec)
	}
	return ec
}
