package repair

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestContentsIndexOpenErrors(t *testing.T) {
	p := atesor.Platform{Triplet: "riscv64-linux-gnu"}
	var loads atomic.Int32
	fail := errors.New("mirror unreachable")
	idx := &Index{Load: func(ctx context.Context, _ atesor.Platform) (*Contents, error) {
		loads.Add(1)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fail
	}}
	var logged []error
	logErr := func(err error) { logged = append(logged, err) }

	// A cancelled run's failure is not remembered: the next run of the pipeline tries again.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c := idx.open(ctx, p, IndexSource{}, logErr); c != nil || idx.opened {
		t.Fatalf("cancelled open: %v, opened %t", c, idx.opened)
	}
	// A real failure is logged once and not retried by every later lookup.
	f := idx.Finder(context.Background(), p, IndexSource{}, logErr)
	for range 3 {
		if got := f.Providers(KindHeader, "zlib.h"); got != nil {
			t.Errorf("providers without an index = %v", got)
		}
	}
	if n := loads.Load(); n != 2 {
		t.Errorf("loads = %d, want 2 (the cancelled one and one real try)", n)
	}
	if len(logged) != 2 || !errors.Is(logged[1], fail) {
		t.Errorf("logged %v", logged)
	}
}
