package knowledge

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestEvidence(t *testing.T) {
	ev := Evidence(context.Background(), filepath.Join(treesDir, "make-basic"))
	for _, want := range []string{"## Top-level files", "Makefile", "build/", "## Makefile", "LDLIBS = -lz", "## build/cmake/CMakeLists.txt", "project(packer C)"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence lacks %q:\n%s", want, ev)
		}
	}
	ev = Evidence(context.Background(), filepath.Join(treesDir, "cmake-basic"))
	if !strings.Contains(ev, "## README.md\n# hello") {
		t.Errorf("evidence lacks the README:\n%s", ev)
	}
	if ev := Evidence(context.Background(), filepath.Join(t.TempDir(), "nope")); !strings.Contains(ev, "unreadable") {
		t.Errorf("evidence of a missing tree: %q", ev)
	}
}

func TestEvidenceBudgets(t *testing.T) {
	big := strings.Repeat("x = 1\n", 20000)
	dir := writeTree(t, map[string]string{
		"CMakeLists.txt": "project(big C)\n" + big,
		"Makefile":       big,
		"configure":      "#!/bin/sh\n" + big,
		"README.md":      big,
	})
	ev := Evidence(context.Background(), dir)
	if len(ev) > evidenceTotalBudget+200 {
		t.Errorf("evidence is %d bytes, budget %d", len(ev), evidenceTotalBudget)
	}
	if !strings.Contains(ev, "more bytes cut]") {
		t.Error("cut files are not marked")
	}
}

func TestCut(t *testing.T) {
	if got := cut("short", 10); got != "short" {
		t.Errorf("cut kept %q", got)
	}
	got := cut("line one\nline two\nline three\n", 20)
	if !strings.HasPrefix(got, "line one\nline two") || !strings.Contains(got, "[... ") {
		t.Errorf("cut = %q", got)
	}
	if got := cut("ééééé", 3); !strings.HasPrefix(got, "é\n") {
		t.Errorf("cut split a rune: %q", got)
	}
}

func TestDetectionSummary(t *testing.T) {
	d := &atesor.Detection{
		BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "configure", ShippedConfigure: true,
		Language: "C", Dependencies: []atesor.Dependency{{Name: "zlib", Evidence: "Makefile:3"}},
		Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildCMake, Evidence: "CMakeLists.txt", Confidence: 0.95}},
		ArchFindings: []atesor.ArchFinding{
			{File: "a.c", Line: 3, Kind: "x86-intrinsic", Snippet: "_mm_add_ps(a,b)", Severity: atesor.SeverityHigh},
			{File: "b.c", Line: 1, Kind: "x86-macro", Snippet: "#ifdef __SSE2__", Severity: atesor.SeverityLow, Guarded: true},
		},
	}
	s := DetectionSummary(d)
	for _, want := range []string{"Build system: make (confidence 0.90, evidence configure)", "no autoreconf", "cmake (CMakeLists.txt, 0.95)",
		"Language: C", "zlib (Makefile:3)", "2 findings (critical 0, high 1, medium 0, low 1)", "high x86-intrinsic a.c:3: _mm_add_ps(a,b)"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "b.c") {
		t.Errorf("summary lists a low finding:\n%s", s)
	}
	if DetectionSummary(nil) == "" {
		t.Error("nil detection gives an empty summary")
	}
	g := DetectionSummary(&atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: ".", HasMain: true, MainPath: "cmd/x"})
	if !strings.Contains(g, "Go: module_dir=. has_main=true main_path=cmd/x cgo=false") {
		t.Errorf("go summary:\n%s", g)
	}
}
