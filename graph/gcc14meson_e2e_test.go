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

// TestE2EScriptedGCC14Meson ports the meson program of repair/testdata/gcc14-meson
// offline: old C that calls its helper and exit() with no declaration in scope, which
// GCC 14 refuses. Without scripted repairs the port escalates at the
// implicit-function-declaration error; with them gcc14-permissive passes
// -Wno-error=implicit-function-declaration as meson setup's -Dc_args (meson reads
// CFLAGS only when it configures a build directory), the rebuild configures afresh, the
// port verifies, and the recipe's commands carry the option. Measured: 41 s in all
// (escalation 19 s, verified port 22 s) with the accelerated C toolchain.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 40m -run '^TestE2EScriptedGCC14Meson$' ./graph/
func TestE2EScriptedGCC14Meson(t *testing.T) {
	tier.Long(t)
	e2e(t)
	src := filepath.Join(t.TempDir(), "oldtool")
	if err := os.CopyFS(src, os.DirFS(filepath.Join("..", "repair", "testdata", "gcc14-meson"))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := atesor.Request{Source: src, Name: "oldtool", TestTimeout: 3 * time.Minute}

	before := newE2EEnv(t)
	res, err := before.pipeline(t, nil, WithoutScriptedRepairs()).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified || !strings.Contains(res.Reason, "[-Wimplicit-function-declaration]") {
		t.Fatalf("without scripted repairs: status %s (%s), want an escalation at GCC 14's implicit-function-declaration error", res.Status, res.Reason)
	}
	t.Logf("before: %s: %s", res.Status, res.Reason)

	e := newE2EEnv(t)
	res, err = e.pipeline(t, nil).Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	checkVerified(t, e, res, "oldtool")
	rep := e.report(t, res.Package)
	fix := scriptedFix(t, rep.Fixes, "gcc14-permissive")
	if fix == nil {
		t.Fatal("verified without the gcc14-permissive rule")
	}
	const opt = "-Dc_args='-Wno-error=implicit-function-declaration'"
	if !strings.Contains(fix.Strategy, "-Dc_args") {
		t.Errorf("the fix's strategy does not name meson's -Dc_args: %s", fix.Strategy)
	}
	md, err := os.ReadFile(filepath.Join(e.out, res.Package+"_recipe.md"))
	if err != nil || !strings.Contains(string(md), "meson setup "+opt) {
		t.Errorf("the recipe does not configure with %s (%v):\n%s", opt, err, md)
	}
	if rep.LLM.Calls != 0 {
		t.Errorf("an offline port made %d model calls", rep.LLM.Calls)
	}
}
