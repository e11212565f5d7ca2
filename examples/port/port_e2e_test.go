package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestPortE2E ports the bundled sample package offline in the real Debian riscv64
// sandbox, as the example program does.
func TestPortE2E(t *testing.T) {
	e2e.Short(t)
	e2e.Root(t)
	t.Setenv("LLM_PROVIDER", "none")
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "packages", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	// A fresh recipe cache (so the pipeline really runs) with the shared sandboxes.
	home := t.TempDir()
	if def := os.Getenv("ATESOR_HOME"); def == "" {
		if h, err := os.UserHomeDir(); err == nil {
			shared := filepath.Join(h, ".local", "share", "atesor-ai", "sandboxes")
			if os.MkdirAll(shared, 0o755) == nil {
				_ = os.Symlink(shared, filepath.Join(home, "sandboxes"))
			}
		}
	}
	t.Setenv("ATESOR_HOME", home)
	t.Chdir(t.TempDir())
	res, err := port(context.Background(), src, "debian")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != atesor.StatusVerified || !res.Verified {
		t.Fatalf("status %s (%s: %s), want verified", res.Status, res.FailureClass, res.Reason)
	}
	if res.Tests == nil || !res.Tests.Passed {
		t.Errorf("package tests: %+v", res.Tests)
	}
}
