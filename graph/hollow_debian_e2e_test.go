package graph

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
)

// TestE2EExportsMatchDebianSymbols ports zlib from Debian's archive offline and checks
// that the export check compared its libraries with the functions zlib.h declares and
// with the symbols file of Debian's own riscv64 zlib1g, and found nothing missing.
func TestE2EExportsMatchDebianSymbols(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	zlib := debiantest.SourceTarball(t, "zlib", zlibFile)
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: zlib, TestTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, "zlib")
	t.Logf("zlib: %s in %s; exports: %s (headers from %s); notes: %v", res.Status, time.Since(start).Round(time.Second),
		rep.Exports.Summary(), rep.Exports.HeadersFrom, rep.Exports.Notes)
	if !res.Verified {
		t.Fatalf("zlib: status %s (%s): %s", res.Status, res.FailureClass, res.Reason)
	}
	ec := rep.Exports
	if ec == nil || !ec.Complete() || ec.Declared == 0 || ec.DistributionSymbols == 0 || !strings.Contains(ec.Distribution, "zlib1g") {
		t.Fatalf("exports = %+v", ec)
	}
}
