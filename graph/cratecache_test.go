package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
)

// The crate index is loaded once per suite for all the runs of a pipeline; a failed
// load is tried again by the next run.
func TestCrateCacheLoadsOncePerSuite(t *testing.T) {
	var c crateCache
	loads := 0
	fail := true
	load := func(context.Context) (*crates.Index, error) {
		loads++
		if fail {
			return nil, errors.New("mirror down")
		}
		return &crates.Index{}, nil
	}
	ctx := context.Background()
	if _, err := c.load(ctx, "trixie", load); err == nil {
		t.Fatal("a failed load returned no error")
	}
	fail = false
	first, err := c.load(ctx, "trixie", load)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := c.load(ctx, "trixie", load)
	if first != second || loads != 2 {
		t.Errorf("loads = %d, same index %v; want 2 loads (the failure retried, then kept)", loads, first == second)
	}
	if _, err := c.load(ctx, "sid", load); err != nil || loads != 3 {
		t.Errorf("another suite: loads = %d, err %v", loads, err)
	}
}
