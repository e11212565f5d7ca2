package graph

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// TestE2EExportsExplainedNotRefused ports testdata/packages/asmcrc offline in the real
// sandbox: its public header declares a function implemented only in x86-64 assembly,
// which a correct riscv64 build lacks. The port is verified, its tests counted, and the
// report and recipe explain the missing function instead of refusing the port.
func TestE2EExportsExplainedNotRefused(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	src, _ := filepath.Abs("../testdata/packages/asmcrc")
	start := time.Now()
	res, err := e.pipeline(t, nil).Run(context.Background(), atesor.Request{Source: src, TestTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	checkVerified(t, e, res, "libasmcrc")
	rep := e.report(t, "asmcrc")
	t.Logf("asmcrc: %s in %s; exports: %s", res.Status, time.Since(start).Round(time.Second), rep.Exports.Summary())
	if rep.Exports == nil || strings.Join(rep.Exports.MissingDeclared, ",") != "asmcrc_update_clmul" {
		t.Fatalf("exports = %+v, want asmcrc_update_clmul missing", rep.Exports)
	}
	var found *atesor.MissingExport
	for i, m := range rep.Exports.Explained {
		if m.Name == "asmcrc_update_clmul" {
			found = &rep.Exports.Explained[i]
		}
	}
	if found == nil || found.Finding != atesor.FindingOtherArch || !strings.Contains(found.Reason, "x86/crc_clmul.S") {
		t.Errorf("explanation = %+v, want other_architecture naming x86/crc_clmul.S", found)
	}
	if rep.Tests == nil || rep.Tests.Counts == nil || rep.Tests.Counts.Passed != 1 {
		t.Errorf("tests = %+v, want 1 passed", rep.Tests)
	}
	recipe, _ := os.ReadFile(filepath.Join(e.out, "asmcrc_recipe.md"))
	if !strings.Contains(string(recipe), "missing `asmcrc_update_clmul` (other_architecture)") {
		t.Errorf("the recipe does not explain the missing function:\n%s", recipe)
	}
}
