package ctxio

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderStopsWithTheCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	r := Reader(ctx, strings.NewReader("hello"))
	buf := make([]byte, 2)
	if n, err := r.Read(buf); n != 2 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	stop := errors.New("stop")
	cancel(stop)
	if _, err := io.ReadAll(r); !errors.Is(err, stop) {
		t.Fatalf("after the cancel: %v, want the cause", err)
	}
}
