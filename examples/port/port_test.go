package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// TestPortCached runs the example's pipeline against a recipe cache that already holds
// a verified port of the sample package: the run is answered from the cache, with no
// sandbox, no model and no network.
func TestPortCached(t *testing.T) {
	t.Setenv("LLM_PROVIDER", "none")
	home := t.TempDir()
	t.Setenv("ATESOR_HOME", home)
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "packages", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithSandbox("debian-riscv64"))
	if err != nil {
		t.Fatal(err)
	}
	err = store.SaveRecipe(context.Background(), atesor.CachedRecipe{
		Package: "hello", Sandbox: "debian-riscv64", Source: src, BuildSystem: atesor.BuildMake, Verified: true,
		Recipe:    "# Porting recipe: hello\n",
		Plan:      atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"make"}}}},
		LastBuilt: time.Date(2025, 11, 2, 10, 30, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := port(context.Background(), src, "debian")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != atesor.StatusCached || res.Package != "hello" || res.Sandbox != "debian-riscv64" {
		t.Fatalf("result = %+v, want hello cached on debian-riscv64", res)
	}
	recipe, err := os.ReadFile(res.Files["recipe"])
	if err != nil || !strings.Contains(string(recipe), "Porting recipe: hello") {
		t.Errorf("recipe %s = %q, %v", res.Files["recipe"], recipe, err)
	}
	if _, err := os.Stat(filepath.Join(home, "sandboxes")); err == nil {
		t.Error("a cached port made a sandbox")
	}
}
