package atesor

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// roundTrip decodes doc into a fresh T, encodes it again, decodes that, and checks that
// nothing changed; it returns the first decoded value.
func roundTrip[T any](t *testing.T, doc string) T {
	t.Helper()
	var first T
	if err := json.Unmarshal([]byte(doc), &first); err != nil {
		t.Fatalf("decode: %v", err)
	}
	b, err := json.Marshal(first)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	var second T
	if err := json.Unmarshal(b, &second); err != nil {
		t.Fatalf("decode again: %v\n%s", err, b)
	}
	if d := cmp.Diff(first, second); d != "" {
		t.Errorf("round trip changed the value (-first +second):\n%s", d)
	}
	return first
}

func TestAnalysisAnswerRoundTrip(t *testing.T) {
	doc := `{
	  "purpose": "General-purpose lossless compression library",
	  "language": "C",
	  "build_system": {"type": "autotools", "confidence": 0.9, "reasoning": "configure script at the top level"},
	  "dependencies": [{"name": "make", "evidence": "Makefile.in"}, "gcc"],
	  "riscv_risks": ["none found"],
	  "build_strategy": "Run ./configure, then make.",
	  "expected_artifacts": ["libz.so", "minigzip"],
	  "needs_custom_plan": false,
	  "complexity": 2
	}`
	a := roundTrip[AnalysisAnswer](t, doc)
	want := PackageAnalysis{
		Purpose: "General-purpose lossless compression library", Language: "C",
		BuildSystem: BuildAutotools, BuildSystemConfidence: 0.9,
		BuildSystemReasoning: "configure script at the top level",
		Dependencies:         []Dependency{{Name: "make", Evidence: "Makefile.in"}, {Name: "gcc"}},
		RiscvRisks:           []string{"none found"}, BuildStrategy: "Run ./configure, then make.",
		ExpectedArtifacts: []string{"libz.so", "minigzip"}, Complexity: 2, LLMGrounded: true,
	}
	if d := cmp.Diff(want, a.Analysis()); d != "" {
		t.Errorf("Analysis() (-want +got):\n%s", d)
	}
	stored := roundTrip[PackageAnalysis](t, mustJSON(t, a.Analysis()))
	if stored.BuildSystem != BuildAutotools {
		t.Errorf("stored build_system = %q", stored.BuildSystem)
	}
	if !bytes.Contains([]byte(mustJSON(t, stored)), []byte(`"build_system_confidence":0.9`)) {
		t.Errorf("stored analysis is not flat: %s", mustJSON(t, stored))
	}
}

func TestBuildPlanRoundTrip(t *testing.T) {
	doc := `{"phases": [
	  {"name": "setup", "commands": ["apt-get update", "apt-get install -y zlib1g-dev"]},
	  {"name": "build", "commands": ["cmake -S . -B build -DCMAKE_BUILD_TYPE=Release", "cmake --build build -j$(nproc)"]}
	]}`
	p := roundTrip[BuildPlan](t, doc)
	want := []string{"apt-get update", "apt-get install -y zlib1g-dev",
		"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release", "cmake --build build -j$(nproc)"}
	if d := cmp.Diff(want, p.Commands()); d != "" {
		t.Errorf("Commands() (-want +got):\n%s", d)
	}
}

func TestFixProposalRoundTrip(t *testing.T) {
	doc := `{
	  "analysis": "The Makefile forces -m64, which riscv64 gcc rejects.",
	  "strategies": [
	    {"id": 1, "description": "Drop the x86 flag", "actions": [
	      {"type": "command", "command": "sed -i 's/-m64//g' Makefile"},
	      {"type": "create_file", "path": "compat/riscv.h", "content": "#pragma once\n"},
	      {"type": "patch", "file": "src/cpu.c", "diff": "--- a/src/cpu.c\n+++ b/src/cpu.c\n@@ -1 +1 @@\n-x\n+y\n"}
	    ]},
	    {"id": "2", "description": "Override CFLAGS", "actions": [{"type": "command", "command": "make CFLAGS=-O2"}]}
	  ],
	  "recommended_strategy_id": "1"
	}`
	p := roundTrip[FixProposal](t, doc)
	if p.Strategies[0].ID != "1" || p.Strategies[1].ID != "2" {
		t.Errorf("ids = %q, %q", p.Strategies[0].ID, p.Strategies[1].ID)
	}
	rec := p.Recommended()
	if rec == nil || rec.Description != "Drop the x86 flag" {
		t.Fatalf("Recommended() = %+v", rec)
	}
	kinds := []ActionType{rec.Actions[0].Type, rec.Actions[1].Type, rec.Actions[2].Type}
	if d := cmp.Diff([]ActionType{ActionCommand, ActionCreateFile, ActionPatch}, kinds); d != "" {
		t.Error(d)
	}
	inv := roundTrip[FixProposal](t, `{"investigate": {"commands": ["ls -la", "grep -rn m64 Makefile"]}}`)
	if inv.Investigate == nil || len(inv.Investigate.Commands) != 2 {
		t.Errorf("investigate = %+v", inv.Investigate)
	}
}

func TestStrategyIDForms(t *testing.T) {
	for doc, want := range map[string]StrategyID{`1`: "1", `"1"`: "1", `"b"`: "b", `2.0`: "2.0", `null`: ""} {
		var id StrategyID
		if err := json.Unmarshal([]byte(doc), &id); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if id != want {
			t.Errorf("%s -> %q, want %q", doc, id, want)
		}
	}
	var id StrategyID
	if err := json.Unmarshal([]byte(`{}`), &id); err == nil {
		t.Error("an object id was accepted")
	}
}

const scoutExample = `{
  "id": "scout-003",
  "name": "Go tool with its module in a subdirectory",
  "tags": ["go", "module"],
  "build_system": "go",
  "source": "manual",
  "repo_name": "tool",
  "sandbox": "debian-riscv64",
  "timestamp": "2026-01-05",
  "reasoning": "go.mod lives in cmd/, so the build runs there.",
  "trigger": {"build_system": "go", "has_main": true, "main_path": "cmd/tool", "module_dir": "cmd"},
  "plan": [{"name": "build", "commands": ["cd cmd && go build -buildvcs=false ./..."]}],
  "reviewed_by": {"who": "a person"}
}`

const fixerExample = `{
  "id": "fixer-001",
  "name": "Missing pkg-config module",
  "tags": ["dependency", "pkgconfig"],
  "build_system": "cmake",
  "sandbox": "debian-riscv64",
  "error_pattern": "No package 'zlib' found",
  "fix": {
    "analysis": "The development package is missing.",
    "strategy": "Install the canonical distro package.",
    "actions": [{"type": "command", "command": "apt-get install -y zlib1g-dev"}]
  },
  "reasoning": "zlib1g-dev provides zlib.pc on Debian/Ubuntu."
}`

const builderExample = `{
  "id": "builder-auto-007",
  "name": "Auto: zlib (autotools)",
  "tags": ["autotools", "zlib"],
  "build_system": "autotools",
  "source": "auto",
  "repo_name": "zlib",
  "sandbox": "debian-riscv64",
  "timestamp": "2026-11-01",
  "phases": [{"name": "configure", "commands": ["./configure"]}, {"name": "build", "commands": ["make -j$(nproc)"]}],
  "timeout_recommendation": "120s"
}`

func TestExampleRoundTrip(t *testing.T) {
	s := roundTrip[Example](t, scoutExample)
	if s.Trigger == nil || s.Trigger.HasMain == nil || !*s.Trigger.HasMain || s.Trigger.ModuleDir != "cmd" {
		t.Errorf("trigger = %+v", s.Trigger)
	}
	if _, ok := s.Extra["reviewed_by"]; !ok {
		t.Errorf("unknown key dropped: %v", s.Extra)
	}
	if !bytes.Contains([]byte(mustJSON(t, s)), []byte(`"reviewed_by":{"who":"a person"}`)) {
		t.Errorf("unknown key not written back: %s", mustJSON(t, s))
	}
	f := roundTrip[Example](t, fixerExample)
	if !f.IsManual() || f.Fix == nil || f.Fix.Actions[0].Command != "apt-get install -y zlib1g-dev" {
		t.Errorf("fixer example = %+v", f)
	}
	b := roundTrip[Example](t, builderExample)
	if b.IsManual() || len(b.Phases) != 2 || b.TimeoutRecommendation != "120s" {
		t.Errorf("builder example = %+v", b)
	}
	if (Example{}).SandboxOrDefault() != "alpine-riscv64" {
		t.Error("an example without sandbox must count as alpine-riscv64")
	}
	file := roundTrip[ExampleFile](t, `{"version": "2.0", "description": "d", "general_guidelines": ["g"], "examples": [`+
		scoutExample+`,`+fixerExample+`,`+builderExample+`]}`)
	if len(file.Examples) != 3 {
		t.Errorf("examples = %d", len(file.Examples))
	}
}

func TestCachedRecipeRoundTrip(t *testing.T) {
	r := CachedRecipe{
		Package: "zlib", Sandbox: "debian-riscv64", Source: "/src/zlib.tar.gz", SourceSHA256: "ab",
		BuildSystem: BuildAutotools, Verified: true, Recipe: "# zlib\n",
		Plan:      BuildPlan{Phases: []Phase{{Name: "build", Commands: []string{"make"}}}},
		Artifacts: []Artifact{{Path: "/workspace/zlib/minigzip", Kind: KindExecutable, RISCV64: true, SHA256: "cd"}},
		LastBuilt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	}
	got := roundTrip[CachedRecipe](t, mustJSON(t, r))
	if d := cmp.Diff(r, got); d != "" {
		t.Error(d)
	}
}

func sampleState() State {
	hasMain := true
	_ = hasMain
	s := State{
		RunPart:       RunPart{RunID: "zlib-1", Request: Request{Source: "zlib.tar.gz", MaxAttempts: 5, TestTimeout: time.Minute}, RepoName: "zlib", RepoDir: "/workspace/zlib", Platform: Platform{Name: "debian", Profile: "debian", Libc: "glibc", Packages: map[string]string{"zlib": "zlib1g-dev"}}},
		RoutePart:     RoutePart{Status: StatusBuildFailed, Attempts: 2},
		DetectionPart: DetectionPart{Detection: &Detection{BuildSystem: BuildAutotools, Confidence: 0.9, Dependencies: []Dependency{{Name: "zlib"}}}},
		AnalysisPart:  AnalysisPart{Analysis: &PackageAnalysis{Purpose: "compression", BuildSystem: BuildAutotools}},
		PlanPart:      PlanPart{Plan: &BuildPlan{Phases: []Phase{{Name: "build", Commands: []string{"./configure", "make"}}}}},
		FixPart: FixPart{FixAttempts: []FixAttempt{{Attempt: 1, Error: "x", Strategy: "s",
			Actions: []Action{{Type: ActionCommand, Command: "make"}}, Timestamp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		VerifyPart: VerifyPart{Artifacts: []Artifact{{Path: "/workspace/zlib/libz.so.1", Kind: KindSharedLibrary, Needed: []string{"libc.so.6"}}}},
		TestPart:   TestPart{Tests: &TestResult{Commands: []string{"make check"}, Passed: true, Duration: time.Second}},
		UsagePart:  UsagePart{Usage: Usage{Calls: 3, InputTokens: 10, OutputTokens: 5, CostUSD: 0.01}},
		TimingPart: TimingPart{StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	s.Record(ErrorRecord{Node: "build", Command: "make", Message: "fatal error: zlib.h: No such file or directory",
		Timestamp: time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)})
	return s
}

func TestStateRoundTripJSON(t *testing.T) {
	s := sampleState()
	if s.LastError == nil || s.LastError.Category != CategoryDependency {
		t.Fatalf("Record did not classify: %+v", s.LastError)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got State
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s, got); d != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", d)
	}
}

func TestStateRoundTripGob(t *testing.T) {
	s := sampleState()
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&s); err != nil {
		t.Fatal(err)
	}
	var got State
	if err := gob.NewDecoder(&buf).Decode(&got); err != nil {
		t.Fatal(err)
	}
	// gob drops the Extra map of nil examples and keeps pointers by value: compare the
	// JSON forms, which is what the run state promises.
	if d := cmp.Diff(mustJSON(t, s), mustJSON(t, got)); d != "" {
		t.Errorf("gob round trip (-want +got):\n%s", d)
	}
}

func TestProviderErrorText(t *testing.T) {
	e := &ProviderError{Provider: "openrouter", Model: "m", Status: 402, RetryAfter: 10 * time.Second, Body: "can only afford 1234"}
	want := "openrouter model m: HTTP 402 (retry after 10s): can only afford 1234"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestRequestDefaults(t *testing.T) {
	r := Request{}.WithDefaults()
	want := Request{Platform: "debian", MaxAttempts: 5, MaxCostUSD: 1.00, TestTimeout: 15 * time.Minute}
	if d := cmp.Diff(want, r); d != "" {
		t.Error(d)
	}
	if (Platform{Name: "ubuntu", Profile: "debian"}).SandboxKey() != "debian-riscv64" {
		t.Error("ubuntu must use the debian sandbox key")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
