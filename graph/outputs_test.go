package graph

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/replay"
)

// patchedPort runs the harness's vecsum port with one patch fix (the model drops the
// Makefile's -m64), which ends verified with one patch file.
func patchedPort(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	diff := "--- a/Makefile\n+++ b/Makefile\n@@ -4 +4 @@\n-CFLAGS = -O2 -m64 -Wall\n+CFLAGS = -O2 -Wall\n"
	ans, _ := json.Marshal(map[string]any{"strategies": []map[string]any{{"id": "a", "description": "drop -m64",
		"actions": []map[string]any{{"type": "patch", "file": "Makefile", "diff": diff}}}}, "recommended_strategy_id": "a"})
	h.prov.Queue(atesor.RoleFixer, string(ans))
	if res := h.run(); !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	return h
}

// The report counts the patch files, so a replay of outputs whose patch file went
// missing stops instead of replaying without the patch.
func TestReplayInputChecksThePatchCount(t *testing.T) {
	h := patchedPort(t)
	if n := h.report().Patches; n == nil || *n != 1 {
		t.Fatalf("report patches = %v, want 1", n)
	}
	recipe := filepath.Join(h.out, "vecsum_recipe.md")
	in, err := replay.ReadInputFrom(recipe, h.src)
	if err != nil || len(in.Patches) != 1 {
		t.Fatalf("ReadReplayInput: %d patches, %v", len(in.Patches), err)
	}
	patch := filepath.Join(h.out, "vecsum_patches", "001-Makefile.patch")
	if err := os.Remove(patch); err != nil {
		t.Fatal(err)
	}
	if _, err := replay.ReadInputFrom(recipe, h.src); err == nil || !strings.Contains(err.Error(), "counts 1 patch(es) but") {
		t.Fatalf("a replay input with its patch file missing: err = %v", err)
	}

	// A report written before the count was recorded is taken as it is.
	rep, err := ReadReport(filepath.Join(h.out, "vecsum_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep.Patches = nil
	if err := WriteReport(filepath.Join(h.out, "vecsum_report.json"), rep); err != nil {
		t.Fatal(err)
	}
	if in, err := replay.ReadInputFrom(recipe, h.src); err != nil || len(in.Patches) != 0 {
		t.Errorf("an old report: %d patches, %v", len(in.Patches), err)
	}
}

// The report file and EncodeReport of what ReadReport reads are the same bytes: one
// type, one encoding.
func TestReportRoundTrips(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	h.run()
	path := filepath.Join(h.out, "vecsum_report.json")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := EncodeReport(&b, rep); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(file), b.String()); diff != "" {
		t.Errorf("re-encoded report differs (-file +encoded):\n%s", diff)
	}
	if rep.Files[atesor.FileReport] != path {
		t.Errorf("the report does not list itself: %v", rep.Files)
	}
}

// When an output the report lists cannot be written, finish fails the run with class
// infra: exit 1, nothing learned, nothing cached, no artifacts left that look like a
// port's. The patch directory is made unwritable by a file in its place.
func TestFinishFailsWhenAnOutputCannotBeWritten(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	diff := "--- a/Makefile\n+++ b/Makefile\n@@ -4 +4 @@\n-CFLAGS = -O2 -m64 -Wall\n+CFLAGS = -O2 -Wall\n"
	ans, _ := json.Marshal(map[string]any{"strategies": []map[string]any{{"id": "a", "description": "drop -m64",
		"actions": []map[string]any{{"type": "patch", "file": "Makefile", "diff": diff}}}}, "recommended_strategy_id": "a"})
	h.prov.Queue(atesor.RoleFixer, string(ans))
	// A run empties its per-run output folders when it starts, so the file that blocks
	// the patch directory is put in place as finish begins.
	blockPatches := WithEvents(func(e atesor.Event) {
		if e.Kind == atesor.EventNodeStarted && e.Node == NodeFinish {
			if err := os.WriteFile(filepath.Join(h.out, "vecsum_patches"), []byte("in the way"), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	p, err := New(Config{Provider: h.prov, Sandbox: h.sb, Memory: h.mem, OutputDir: h.out, RunsDir: filepath.Join(h.out, "runs")},
		WithoutScriptedRepairs(), blockPatches)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(t.Context(), atesor.Request{Source: h.src, TestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status.Succeeded() || res.Verified || res.FailureClass != atesor.FailureInfra {
		t.Fatalf("status %s, verified %t, class %q: want a failed run of class infra", res.Status, res.Verified, res.FailureClass)
	}
	if !strings.Contains(res.Reason, "outputs could not be written") || !strings.Contains(res.Reason, "patch") {
		t.Errorf("reason %q does not say which output failed", res.Reason)
	}
	rep := h.report()
	if rep.Verified || rep.FailureClass != atesor.FailureInfra {
		t.Errorf("report: verified %t, class %q", rep.Verified, rep.FailureClass)
	}
	if _, ok := rep.Files[atesor.FileArtifacts]; ok {
		t.Errorf("the report of a failed run lists artifacts: %v", rep.Files)
	}
	if _, err := os.Stat(filepath.Join(h.out, "vecsum_artifacts")); err == nil {
		t.Error("the copied artifacts of a failed run were left")
	}
	if recipe, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md")); !strings.Contains(string(recipe), "NOT VERIFIED") {
		t.Errorf("the recipe of a failed run is not marked:\n%s", recipe)
	}
	if entry, err := h.mem.Recipe(t.Context(), "vecsum", "debian-riscv64"); err != nil || entry != nil {
		t.Errorf("a failed run entered the recipe cache: %+v, %v", entry, err)
	}
	exs, _ := h.mem.Relevant(t.Context(), atesor.AgentScout, atesor.Query{Sandbox: "debian-riscv64", BuildSystem: "make"}, 100)
	for _, e := range exs {
		if e.RepoName == "vecsum" {
			t.Error("a failed run learned a scout example")
		}
	}
}

// An unwritable output directory for the state and report: writeOutputs returns the
// error instead of dropping it.
func TestWriteOutputsReturnsErrors(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	h.run()
	for _, name := range []string{"vecsum_report.json", "vecsum_recipe.md"} {
		p := filepath.Join(h.out, name)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o755); err != nil { // a directory in the way
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "x"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &run{p: &Pipeline{opts: options{now: time.Now}}, state: &atesor.State{
		RunPart:    atesor.RunPart{RepoName: "vecsum", Request: atesor.Request{OutputDir: h.out}},
		OutputPart: atesor.OutputPart{Recipe: "# recipe"},
	}, runDir: t.TempDir(), log: slog.New(slog.DiscardHandler)}
	err := r.writeOutputs(t.Context(), r.state)
	if err == nil {
		t.Fatal("writeOutputs succeeded with the report and recipe paths blocked")
	}
	for _, want := range []string{"write the recipe", "write the report"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
