package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// fixedClock is a clock that stays at the start of day.
func fixedClock(day string) atesor.Clock {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		panic(err)
	}
	return llm.NewManualClock(t)
}

func writeExamples(t *testing.T, path string, exs ...atesor.Example) {
	t.Helper()
	if exs == nil {
		exs = []atesor.Example{}
	}
	b, err := json.MarshalIndent(atesor.ExampleFile{Version: "2.0", Examples: exs}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeExamplesB(b *testing.B, path string, exs []atesor.Example) {
	b.Helper()
	data, err := json.Marshal(atesor.ExampleFile{Version: "2.0", Examples: exs})
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		b.Fatal(err)
	}
}

func readExamples(t *testing.T, path string) []atesor.Example {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := memory.ParseExampleFile(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f.Examples
}

func TestHome(t *testing.T) {
	tests := []struct {
		name, atesorHome, xdg, home, want string
	}{
		{"ATESOR_HOME wins", "/a", "/x", "/h", "/a"},
		{"XDG_DATA_HOME next", "", "/x", "/h", "/x/atesor-ai"},
		{"home directory last", "", "", "/h", "/h/.local/share/atesor-ai"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ATESOR_HOME", tc.atesorHome)
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			got, err := memory.Home()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Home() = %q, want %q", got, tc.want)
			}
		})
	}
	if got := memory.ExamplesDir("/s"); got != "/s/data/examples" {
		t.Errorf("ExamplesDir = %q", got)
	}
	if got := memory.RecipeCachePath("/s"); got != "/s/data/recipe_cache.json" {
		t.Errorf("RecipeCachePath = %q", got)
	}
}

func TestOpenInstallsBundledFilesWithoutReplacing(t *testing.T) {
	home := t.TempDir()
	dir := memory.ExamplesDir(home)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "fixer_examples.json")
	if err := os.WriteFile(mine, []byte("{ my own, not even valid"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := memory.Open(dir, memory.WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	if s.RecipeCachePath() != memory.RecipeCachePath(home) {
		t.Errorf("default recipe cache %q, want %q", s.RecipeCachePath(), memory.RecipeCachePath(home))
	}
	entries, err := fs.ReadDir(memory.Bundled(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("bundled file %s not installed: %v", e.Name(), err)
		}
		want, _ := fs.ReadFile(memory.Bundled(), e.Name())
		if e.Name() == "fixer_examples.json" {
			want = []byte("{ my own, not even valid")
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: content differs from what it should be", e.Name())
		}
	}
	// A second open changes nothing, even after a learned example.
	if _, err := s.Save(context.Background(), atesor.AgentScout, atesor.Example{Name: "x", BuildSystem: "make", RepoName: "r",
		Plan: []atesor.Phase{{Name: "build", Commands: []string{"make"}}}}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "scout_examples.json"))
	if _, err := memory.Open(dir); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "scout_examples.json"))
	if !bytes.Equal(before, after) {
		t.Error("Open replaced an existing file")
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)) }

func newStore(t *testing.T, opts ...memory.Option) (*memory.Store, string) {
	t.Helper()
	dir := t.TempDir()
	for _, a := range atesor.Agents() {
		n, _ := memory.FileName(a)
		writeExamples(t, filepath.Join(dir, n))
	}
	s, err := memory.Open(dir, append([]memory.Option{memory.WithLogger(discard()), memory.WithClock(fixedClock("2025-03-04"))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestSaveRules(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t, memory.WithSandbox(debian))
	path := filepath.Join(dir, "fixer_examples.json")
	writeExamples(t, path,
		atesor.Example{ID: "fixer-000", Name: "m", BuildSystem: "cmake", Sandbox: debian, ErrorPattern: "zlib", RepoName: "zlib"},
		atesor.Example{ID: "fixer-auto-007", Name: "a", BuildSystem: "make", Source: "auto", Sandbox: debian, ErrorPattern: "x"},
	)
	tests := []struct {
		name    string
		ex      atesor.Example
		saved   bool
		wantID  string
		sandbox string
	}{
		{"no name", atesor.Example{BuildSystem: "cmake", ErrorPattern: "p1"}, false, "", ""},
		{"no build system", atesor.Example{Name: "n", ErrorPattern: "p2"}, false, "", ""},
		{"same repo and build system", atesor.Example{Name: "n", BuildSystem: "cmake", RepoName: "zlib", ErrorPattern: "p3"}, false, "", ""},
		{"same error pattern and build system", atesor.Example{Name: "n", BuildSystem: "cmake", ErrorPattern: "zlib"}, false, "", ""},
		{"same pattern, other build system", atesor.Example{Name: "n", BuildSystem: "make", ErrorPattern: "zlib"}, true, "fixer-auto-008", debian},
		{"same repo in another sandbox", atesor.Example{Name: "n", BuildSystem: "cmake", RepoName: "zlib", Sandbox: alpine, ErrorPattern: "p4"}, true, "fixer-auto-009", alpine},
		{"new one", atesor.Example{Name: "n", BuildSystem: "cmake", ErrorPattern: "p5", ID: "ignored", Source: "manual"}, true, "fixer-auto-010", debian},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			saved, err := s.Save(ctx, atesor.AgentFixer, tc.ex)
			if err != nil {
				t.Fatal(err)
			}
			if saved != tc.saved {
				t.Fatalf("saved = %v, want %v", saved, tc.saved)
			}
			if !saved {
				return
			}
			exs := readExamples(t, path)
			last := exs[len(exs)-1]
			want := tc.ex
			want.ID, want.Source, want.Timestamp, want.Sandbox, want.Tags = tc.wantID, "auto", "2025-03-04", tc.sandbox, []string{}
			if diff := cmp.Diff(want, last); diff != "" {
				t.Errorf("saved example mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSaveCommandDuplicates(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	plan := func(cmds ...string) []atesor.Phase { return []atesor.Phase{{Name: "build", Commands: cmds}} }
	steps := []struct {
		agent atesor.Agent
		ex    atesor.Example
		saved bool
	}{
		{atesor.AgentScout, atesor.Example{Name: "a", BuildSystem: "make", Plan: plan("make", "make install")}, true},
		{atesor.AgentScout, atesor.Example{Name: "b", BuildSystem: "cmake", Plan: plan("make install", "make")}, false},
		{atesor.AgentScout, atesor.Example{Name: "c", BuildSystem: "make", Sandbox: debian, Plan: plan("make", "make install")}, true},
		{atesor.AgentBuilder, atesor.Example{Name: "d", BuildSystem: "make", Phases: plan("make")}, true},
		{atesor.AgentBuilder, atesor.Example{Name: "e", BuildSystem: "go", Phases: []atesor.Phase{{Name: "x", Commands: []string{"make"}}}}, false},
		{atesor.AgentFixer, atesor.Example{Name: "f", BuildSystem: "make", ErrorPattern: "p", Fix: &atesor.ExampleFix{}}, true},
		{atesor.AgentFixer, atesor.Example{Name: "g", BuildSystem: "make", ErrorPattern: "q", Fix: &atesor.ExampleFix{}}, true},
	}
	for i, st := range steps {
		saved, err := s.Save(ctx, st.agent, st.ex)
		if err != nil {
			t.Fatal(err)
		}
		if saved != st.saved {
			t.Errorf("step %d (%s): saved = %v, want %v", i, st.ex.Name, saved, st.saved)
		}
	}
	if _, err := s.Save(ctx, "planner", atesor.Example{Name: "x", BuildSystem: "make"}); err == nil {
		t.Error("Save for an unknown agent: want an error")
	}
}

func TestSaveCapKeepsManualAndNewestAuto(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t, memory.WithSandbox(debian))
	path := filepath.Join(dir, "builder_examples.json")
	var exs []atesor.Example
	for i := range 10 {
		exs = append(exs, atesor.Example{ID: "builder-" + pad(i), Name: "m", BuildSystem: "make"}) // no source: manual
	}
	for i := 1; i <= 90; i++ {
		ts := "2025-02-01"
		switch {
		case i == 5:
			ts = "2024-01-01" // the oldest auto example
		case i%2 == 0:
			ts = "2025-01-15"
		}
		exs = append(exs, atesor.Example{ID: "builder-auto-" + pad(i), Name: "a", BuildSystem: "make", Source: "auto", Timestamp: ts, RepoName: "r" + pad(i)})
	}
	writeExamples(t, path, exs...)
	for i := range 3 {
		if ok, err := s.Save(ctx, atesor.AgentBuilder, atesor.Example{Name: "new", BuildSystem: "make", RepoName: "new" + pad(i)}); err != nil || !ok {
			t.Fatalf("Save: %v %v", ok, err)
		}
	}
	got := readExamples(t, path)
	if len(got) != 100 {
		t.Fatalf("%d examples, want 100", len(got))
	}
	have := map[string]bool{}
	for _, e := range got {
		have[e.ID] = true
	}
	for i := range 10 {
		if !have["builder-"+pad(i)] {
			t.Errorf("manual builder-%s dropped", pad(i))
		}
	}
	// Dropped: auto-005 (oldest date), then auto-002 and auto-004 (2025-01-15, lowest numbers).
	for _, id := range []string{"builder-auto-005", "builder-auto-002", "builder-auto-004"} {
		if have[id] {
			t.Errorf("%s kept, want it dropped", id)
		}
	}
	for _, id := range []string{"builder-auto-006", "builder-auto-001", "builder-auto-091", "builder-auto-093"} {
		if !have[id] {
			t.Errorf("%s dropped, want it kept", id)
		}
	}
}

func pad(i int) string {
	s := "00" + itoa(i)
	return s[len(s)-3:]
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestSaveKeepsUnknownKeys(t *testing.T) {
	s, dir := newStore(t)
	path := filepath.Join(dir, "scout_examples.json")
	orig := `{"version":"2.0","description":"d","general_guidelines":["g"],"team_note":{"a":1},
"examples":[{"id":"scout-000","name":"n","tags":["x"],"build_system":"make","my_field":[1,2]}]}`
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(context.Background(), atesor.AgentScout, atesor.Example{Name: "x", BuildSystem: "cmake", RepoName: "r"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"a": float64(1)}, m["team_note"]); diff != "" {
		t.Errorf("top-level key lost: %s", diff)
	}
	ex := m["examples"].([]any)[0].(map[string]any)
	if diff := cmp.Diff([]any{float64(1), float64(2)}, ex["my_field"]); diff != "" {
		t.Errorf("example key lost: %s", diff)
	}
	if err := memory.CheckDuplicateKeys(bytes.NewReader(b)); err != nil {
		t.Error(err)
	}
}

func TestSaveRecreatesDeletedFile(t *testing.T) {
	s, dir := newStore(t)
	path := filepath.Join(dir, "fixer_examples.json")
	os.Remove(path)
	if ok, err := s.Save(context.Background(), atesor.AgentFixer, atesor.Example{Name: "x", BuildSystem: "make", ErrorPattern: "p"}); err != nil || !ok {
		t.Fatalf("Save: %v %v", ok, err)
	}
	b, _ := os.ReadFile(path)
	f, err := memory.ParseExampleFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != "2.0" || len(f.Examples) != 1 || f.Examples[0].ID != "fixer-auto-001" {
		t.Errorf("recreated file: version %q, %d examples", f.Version, len(f.Examples))
	}
}

func TestInvalidFilesNeverLoseData(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	dir := t.TempDir()
	s, err := memory.Open(dir, memory.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), memory.WithSandbox(debian))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fixer_examples.json")
	bad := []byte(`{"version": "2.0", "examples": [ {"id": "fixer-000", `)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := s.Relevant(ctx, atesor.AgentFixer, atesor.Query{BuildSystem: "cmake", ErrorMessage: "zlib"}, 2)
	if err != nil || len(got) != 0 {
		t.Fatalf("Relevant on an invalid file = %d examples, %v; want none, nil", len(got), err)
	}
	if !strings.Contains(logs.String(), path) || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("log does not report the file as an error:\n%s", logs.String())
	}
	_, err = s.Save(ctx, atesor.AgentFixer, atesor.Example{Name: "x", BuildSystem: "make", ErrorPattern: "p"})
	var bfe *memory.BadFileError
	if !errors.As(err, &bfe) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Save on an invalid file: err = %v, want a BadFileError naming %s", err, path)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, bad) {
		t.Fatal("the invalid file was changed")
	}
	// Repaired: everything works again.
	writeExamples(t, path, atesor.Example{ID: "fixer-000", Name: "z", BuildSystem: "cmake", Sandbox: debian, ErrorPattern: "zlib"})
	got, err = s.Relevant(ctx, atesor.AgentFixer, atesor.Query{BuildSystem: "cmake", ErrorMessage: "zlib"}, 2)
	if err != nil || len(got) != 1 {
		t.Fatalf("Relevant after repair = %d, %v", len(got), err)
	}

	// The recipe cache: an invalid file misses and is never overwritten.
	rp := s.RecipeCachePath()
	if err := os.WriteFile(rp, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Recipe(ctx, "zlib", debian); r != nil || err != nil {
		t.Fatalf("Recipe on an invalid cache = %v, %v; want a miss", r, err)
	}
	err = s.SaveRecipe(ctx, atesor.CachedRecipe{Package: "zlib", Source: "s"})
	if !errors.As(err, &bfe) || !strings.Contains(err.Error(), rp) {
		t.Fatalf("SaveRecipe on an invalid cache: err = %v", err)
	}
	if b, _ := os.ReadFile(rp); string(b) != "not json" {
		t.Fatal("the invalid cache was changed")
	}
}

func TestRelevantReadsCurrentFile(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t, memory.WithSandbox(debian))
	path := filepath.Join(dir, "scout_examples.json")
	writeExamples(t, path, atesor.Example{ID: "scout-000", Name: "a", BuildSystem: "cmake", Sandbox: debian})
	got, err := s.Relevant(ctx, atesor.AgentScout, atesor.Query{BuildSystem: "cmake"}, 2)
	if err != nil || len(got) != 1 {
		t.Fatalf("Relevant = %v, %v", ids(got), err)
	}
	if _, err := s.Save(ctx, atesor.AgentScout, atesor.Example{Name: "b", BuildSystem: "cmake", RepoName: "b"}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Relevant(ctx, atesor.AgentScout, atesor.Query{BuildSystem: "cmake"}, 5)
	if diff := cmp.Diff([]string{"scout-000", "scout-auto-001"}, ids(got)); diff != "" || err != nil {
		t.Errorf("Relevant after Save (-want +got):\n%s %v", diff, err)
	}
	// Query sandbox overrides the active one.
	got, _ = s.Relevant(ctx, atesor.AgentScout, atesor.Query{Sandbox: alpine, BuildSystem: "cmake"}, 5)
	if len(got) != 0 {
		t.Errorf("alpine query got %v", ids(got))
	}
	// A missing file has no examples and no error.
	os.Remove(path)
	if got, err := s.Relevant(ctx, atesor.AgentScout, atesor.Query{}, 2); err != nil || len(got) != 0 {
		t.Errorf("missing file: %v, %v", ids(got), err)
	}
	if _, err := s.Relevant(ctx, "planner", atesor.Query{}, 2); err == nil {
		t.Error("unknown agent: want an error")
	}
}

func TestRecipeCache(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t, memory.WithSandbox(debian))
	if r, err := s.Recipe(ctx, "zlib", ""); r != nil || err != nil {
		t.Fatalf("empty cache: %v %v", r, err)
	}
	r1 := atesor.CachedRecipe{Package: "zlib", Source: "https://x/zlib.tar.gz", SourceSHA256: "abc", BuildSystem: "autotools",
		Verified: true, Recipe: "# zlib", Plan: atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"make"}}}},
		LastBuilt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := s.SaveRecipe(ctx, r1); err != nil {
		t.Fatal(err)
	}
	r2 := r1
	r2.Sandbox, r2.Recipe = alpine, "# zlib alpine"
	if err := s.SaveRecipe(ctx, r2); err != nil {
		t.Fatal(err)
	}
	got, err := s.Recipe(ctx, "zlib", debian)
	want := r1
	want.Sandbox = debian
	if diff := cmp.Diff(&want, got); diff != "" || err != nil {
		t.Fatalf("Recipe mismatch (-want +got):\n%s %v", diff, err)
	}
	if got, _ := s.RecipeFor(ctx, "zlib", debian, r1.Source, "abc", ""); got == nil {
		t.Error("RecipeFor with the same source: miss")
	}
	for _, c := range []struct{ src, sha, commit string }{{"https://y", "abc", ""}, {r1.Source, "def", ""}, {r1.Source, "abc", "c0ffee"}} {
		if got, _ := s.RecipeFor(ctx, "zlib", debian, c.src, c.sha, c.commit); got != nil {
			t.Errorf("RecipeFor(%v): hit, want a miss", c)
		}
	}
	// Replace.
	r3 := want
	r3.Recipe = "# new"
	if err := s.SaveRecipe(ctx, r3); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.RecipeCachePath())
	entries, err := memory.ParseRecipeCache(b)
	if err != nil || len(entries) != 2 {
		t.Fatalf("cache holds %d entries, %v", len(entries), err)
	}
	if got, _ := s.Recipe(ctx, "zlib", ""); got.Recipe != "# new" {
		t.Errorf("replaced entry: %q", got.Recipe)
	}
	if err := s.SaveRecipe(ctx, atesor.CachedRecipe{}); err == nil {
		t.Error("SaveRecipe without a package: want an error")
	}
}
