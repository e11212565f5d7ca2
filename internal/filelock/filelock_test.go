package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestAcquireWaitsAndEndsWithTheContext(t *testing.T) {
	file := filepath.Join(t.TempDir(), "debian-riscv64.lock")
	held, err := Acquire(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(file) {
		t.Error("Held = false while the lock is held")
	}

	// A waiter whose deadline passes gives up promptly with the context's error.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Acquire(ctx, file)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire on a held lock: %v, want the deadline", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the wait ended %s after its deadline of 100ms", d)
	}

	// A cancelled context is an error before anything is opened.
	done, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if _, err := Acquire(done, file); !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire with a cancelled context: %v", err)
	}

	// A waiter gets the lock once the holder releases it.
	got := make(chan error, 1)
	go func() {
		l, err := Acquire(context.Background(), file)
		if err == nil {
			err = l.Release()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not get the released lock")
	}
	if Held(file) {
		t.Error("Held = true after every holder released it")
	}
}

func TestAcquireUnwritableDirectory(t *testing.T) {
	_, err := Acquire(context.Background(), filepath.Join(t.TempDir(), "missing", "x.lock"))
	if err == nil {
		t.Fatal("a lock in a missing directory was taken")
	}
}
