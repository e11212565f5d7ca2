package graph

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// excerptLoader loads the Contents excerpt of repair's testdata (real lines of the
// archive's file) as the index, counting the loads.
func excerptLoader(t *testing.T, loads *atomic.Int32) func(context.Context, atesor.Platform) (*repair.Contents, error) {
	t.Helper()
	path := filepath.Join("..", "repair", "testdata", "Contents-riscv64.excerpt")
	return func(_ context.Context, p atesor.Platform) (*repair.Contents, error) {
		loads.Add(1)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return repair.ParseContents(f, p.Triplet)
	}
}

// The Contents index takes seconds to load: a run opens it only when the missing-package
// rule looks a file up, and then once.
func TestContentsIndexOpensOnFirstUse(t *testing.T) {
	var loads atomic.Int32
	load := excerptLoader(t, &loads)
	run := func(h *harness) *atesor.Result {
		p := h.pipeline()
		p.contents.Load = load
		return p.mustRun(t, atesor.Request{Source: h.src, TestTimeout: time.Minute})
	}

	// A failure another rule repairs: the index is never opened.
	h := newHarness(t, false)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	if res := run(h); !res.Verified {
		t.Fatalf("x86 flags: status %s (%s)", res.Status, res.Reason)
	}
	if n := loads.Load(); n != 0 {
		t.Fatalf("a run that needed no package lookup loaded the index %d times", n)
	}

	// Two missing headers, one after the other: one load serves both lookups.
	h = newHarness(t, false)
	h.failsOnce("a.c:2:10: fatal error: popt.h: No such file or directory\ncompilation terminated.")
	h.failsOnce("b.c:4:10: fatal error: zlib.h: No such file or directory\ncompilation terminated.")
	h.builds(0, "riscv64-glibc-hello")
	if res := run(h); !res.Verified {
		t.Fatalf("missing headers: status %s (%s)", res.Status, res.Reason)
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the index was loaded %d times, want once", n)
	}
	for _, want := range []string{"apt-get install -y libpopt-dev", "apt-get install -y zlib1g-dev"} {
		if !slices.Contains(h.sb.Lines(), want) {
			t.Errorf("%q was not run: %q", want, h.sb.Lines())
		}
	}
}
