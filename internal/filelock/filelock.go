//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

// Package filelock is the one inter-process lock of Atesor: an exclusive flock(2) on a
// lock file (the provisioning of a cached root filesystem, the example and recipe
// files). The kernel releases it when its holder dies, so a crashed process never blocks
// the next one, and a wait for it ends with the caller's context, so Ctrl-C or a
// deadline stops a process queued behind a long holder.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Lock is a held lock. Release it when done.
type Lock struct{ f *os.File }

// The wait polls the lock with a growing interval: short at first (most holders hold it
// for one file write), then no more often than maxPoll.
const (
	firstPoll = 5 * time.Millisecond
	maxPoll   = 250 * time.Millisecond
)

// Acquire takes the exclusive lock of file (created when missing, never removed: two
// processes that removed and recreated it would lock different inodes), waiting until
// it is free or ctx ends. A wait that ctx ends returns an error wrapping ctx.Err().
func Acquire(ctx context.Context, file string) (*Lock, error) {
	return AcquireWaiting(ctx, file, nil)
}

// AcquireWaiting is [Acquire] calling waiting (when not nil) each time it finds the lock
// held, before it waits again, so a caller can say what it is waiting for.
func AcquireWaiting(ctx context.Context, file string, waiting func()) (*Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("wait for lock %s: %w", file, err)
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: check that its directory is writable: %w", file, err)
	}
	poll := firstPoll
	for {
		err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", file, err)
		}
		if waiting != nil {
			waiting()
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("wait for lock %s (another process holds it): %w", file, ctx.Err())
		case <-t.C:
		}
		poll = min(2*poll, maxPoll)
	}
}

// Release releases the lock. The lock file stays (see [Acquire]).
func (l *Lock) Release() error {
	err := flock(l.f, syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Held reports whether some process holds the exclusive lock of file, without waiting
// and without taking it.
func Held(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = flock(f, syscall.LOCK_UN)
	return false
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
