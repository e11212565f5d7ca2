package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "fixer_examples.json")
	a := filepath.Join(dir, "shard-a", "fixer_examples.json")
	b := filepath.Join(dir, "shard-b", "fixer_examples.json")
	os.MkdirAll(filepath.Dir(a), 0o755)
	os.MkdirAll(filepath.Dir(b), 0o755)
	auto := func(id, repo, pattern, ts string) atesor.Example {
		return atesor.Example{ID: id, Name: repo, BuildSystem: "make", Source: "auto", RepoName: repo, ErrorPattern: pattern, Timestamp: ts, Sandbox: debian}
	}
	man := func(id, name, ts string) atesor.Example {
		return atesor.Example{ID: id, Name: name, BuildSystem: "make", Timestamp: ts, Sandbox: debian, ErrorPattern: "m-" + id}
	}
	writeExamples(t, dst,
		man("fixer-000", "old manual", "2025-01-01"),
		man("fixer-001", "dst manual", "2025-05-01"),
		auto("fixer-auto-001", "r1", "p1", "2025-01-01"),
		auto("fixer-auto-002", "r2", "p2", "2025-01-01"),
	)
	writeExamples(t, a,
		man("fixer-000", "new manual", "2025-02-01"),     // newer manual wins
		man("fixer-001", "older manual", "2025-04-01"),   // older manual loses
		auto("fixer-auto-001", "r1", "p1", "2025-01-01"), // identical: kept once
		auto("fixer-auto-003", "r3", "p3", "2025-01-02"),
		auto("fixer-002", "auto with a manual id", "px", "2025-09-09"),
	)
	writeExamples(t, b,
		auto("fixer-auto-002", "r9", "p9", "2025-01-03"),           // same id, other content: both kept, renumbered
		auto("fixer-auto-003", "r1", "p-other", "2025-01-03"),      // same id, other content, but duplicates r1: dropped
		man("fixer-002", "manual beats auto", "2020-01-01"),        // manual wins although older
		auto("fixer-auto-010", "r10", "m-fixer-000", "2025-01-01"), // duplicate of manual fixer-000 (pattern + build system): dropped
	)
	if err := memory.Merge(context.Background(), dst, a, b); err != nil {
		t.Fatal(err)
	}
	got := readExamples(t, dst)
	type row struct{ ID, Name string }
	var rows []row
	for _, e := range got {
		rows = append(rows, row{e.ID, e.Name})
	}
	want := []row{
		{"fixer-000", "new manual"},
		{"fixer-001", "dst manual"},
		{"fixer-auto-001", "r1"},
		{"fixer-auto-002", "r2"},
		{"fixer-auto-003", "r3"},
		{"fixer-002", "manual beats auto"},
		{"fixer-auto-011", "r9"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("Merge mismatch (-want +got):\n%s", diff)
	}
}

func TestMergeRefusesInvalidFiles(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "scout_examples.json")
	writeExamples(t, dst, atesor.Example{ID: "scout-000", Name: "x", BuildSystem: "make"})
	before, _ := os.ReadFile(dst)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	err := memory.Merge(context.Background(), dst, bad)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("Merge with an invalid source: %v", err)
	}
	if after, _ := os.ReadFile(dst); string(after) != string(before) {
		t.Error("dst changed")
	}
	// An invalid dst is never overwritten, however valid the sources are.
	badDst := filepath.Join(dir, "shard", "scout_examples.json")
	os.MkdirAll(filepath.Dir(badDst), 0o755)
	os.WriteFile(badDst, []byte(`{"examples": [`), 0o644)
	if err := memory.Merge(context.Background(), badDst, dst); err == nil || !strings.Contains(err.Error(), badDst) {
		t.Fatalf("Merge into an invalid file: %v, want an error naming it", err)
	}
	if b, _ := os.ReadFile(badDst); string(b) != `{"examples": [` {
		t.Error("the invalid dst was changed")
	}
	if err := memory.Merge(context.Background(), filepath.Join(dir, "whatever.json"), dst); err == nil {
		t.Error("Merge into a file whose agent is unknown: want an error")
	}
}

func TestMergeRecipeCaches(t *testing.T) {
	dir := t.TempDir()
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	write := func(name string, rs ...atesor.CachedRecipe) string {
		p := filepath.Join(dir, name, memory.RecipeCacheFile)
		os.MkdirAll(filepath.Dir(p), 0o755)
		s, err := memory.Open(filepath.Join(dir, name, "examples"), memory.WithRecipeCache(p))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if err := s.SaveRecipe(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	dst := write("dst", atesor.CachedRecipe{Package: "zlib", Sandbox: debian, Recipe: "dst", LastBuilt: day(5)},
		atesor.CachedRecipe{Package: "cjson", Sandbox: debian, Recipe: "dst", LastBuilt: day(5)})
	a := write("a", atesor.CachedRecipe{Package: "zlib", Sandbox: debian, Recipe: "a", LastBuilt: day(6)},
		atesor.CachedRecipe{Package: "cjson", Sandbox: debian, Recipe: "a", LastBuilt: day(4)},
		atesor.CachedRecipe{Package: "zlib", Sandbox: alpine, Recipe: "a", LastBuilt: day(1)})
	b := write("b", atesor.CachedRecipe{Package: "zlib", Sandbox: debian, Recipe: "b", LastBuilt: day(6)})
	if err := memory.MergeRecipeCaches(context.Background(), dst, a, b); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dst)
	entries, err := memory.ParseRecipeCache(data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		got[e.Package+"/"+e.Sandbox] = e.Recipe
	}
	want := map[string]string{"zlib/" + debian: "a", "cjson/" + debian: "dst", "zlib/" + alpine: "a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MergeRecipeCaches mismatch (-want +got):\n%s", diff)
	}
}
