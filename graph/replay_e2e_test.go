package graph

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/replay"
)

// TestE2EReplayReproduces ports zlib (configure) and libdeflate (CMake) offline, replays each
// recipe in a fresh sandbox and expects every primary artifact's SHA-256 to reproduce;
// then replays zlib's recipe with its configure line tampered with (other CFLAGS) and
// expects differs.
//
//	ATESOR_E2E=1 go test -p 1 -timeout 60m -run TestE2EReplayReproduces ./graph/
func TestE2EReplayReproduces(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	ctx := context.Background()
	for _, c := range []struct{ pkg, file string }{{"zlib", zlibFile}, {"libdeflate", libdeflateFile}} {
		src := debiantest.SourceTarball(t, c.pkg, c.file)
		start := time.Now()
		res, err := e.pipeline(t, nil).Run(ctx, atesor.Request{Source: src, TestTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Verified {
			t.Fatalf("%s: %s (%s): %s", c.pkg, res.Status, res.FailureClass, res.Reason)
		}
		t.Logf("%s: port %s in %s, artifacts from %s", c.pkg, res.Status, time.Since(start).Round(time.Second), res.State.Install.ArtifactsFrom)
		in, err := replay.ReadInputFrom(filepath.Join(e.out, res.Package+"_recipe.md"), src)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		rep, err := e.pipeline(t, nil).Replay(ctx, in, "debian", filepath.Join(t.TempDir(), "replay"))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: replay %s in %s (%d compared, epoch %d)", c.pkg, rep.Verdict, time.Since(start).Round(time.Second), rep.Compared, rep.SourceDateEpoch)
		if rep.Verdict != replay.Reproduced {
			t.Fatalf("%s: replay %s: %+v %s", c.pkg, rep.Verdict, rep.Differs, rep.Failure)
		}
		if c.pkg != "zlib" {
			continue
		}
		tampered := in
		// Every ./configure of the recipe, the command block's among them.
		tampered.Recipe = strings.ReplaceAll(in.Recipe, "./configure", "CFLAGS=-O1 ./configure")
		if tampered.Recipe == in.Recipe {
			t.Fatalf("zlib's recipe has no ./configure to tamper with:\n%s", in.Recipe)
		}
		start = time.Now()
		rep, err = e.pipeline(t, nil).Replay(ctx, tampered, "debian", filepath.Join(t.TempDir(), "tampered"))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("zlib tampered: replay %s in %s: %+v", rep.Verdict, time.Since(start).Round(time.Second), rep.Differs)
		if rep.Verdict != replay.Differs || len(rep.Differs) == 0 {
			t.Fatalf("a tampered recipe replayed as %s", rep.Verdict)
		}
	}
}
