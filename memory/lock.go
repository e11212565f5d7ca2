//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// fileLock is an exclusive flock(2) lock on <file>.lock. It works between processes; the
// kernel releases it when the holder dies, so a crashed writer never blocks the next one.
type fileLock struct{ f *os.File }

// lockFile takes the exclusive lock of path (the lock file is path + ".lock"), waiting
// until it is free or ctx ends.
func lockFile(ctx context.Context, path string) (*fileLock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lp := path + ".lock"
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: check that its directory is writable: %w", lp, err)
	}
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return &fileLock{f: f}, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", lp, err)
	}
	// Someone else holds it: wait in a goroutine so that ctx can end the wait. A waiter
	// whose caller gave up closes the file as soon as it gets the lock, releasing it.
	done := make(chan error, 1)
	abandon := make(chan struct{})
	go func() {
		err := flock(f, syscall.LOCK_EX)
		select {
		case done <- err:
		case <-abandon:
			f.Close()
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", lp, err)
		}
		return &fileLock{f: f}, nil
	case <-ctx.Done():
		close(abandon)
		return nil, fmt.Errorf("wait for lock %s: %w", lp, ctx.Err())
	}
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// unlock releases the lock. The lock file itself stays: removing it would let two
// writers lock different inodes.
func (l *fileLock) unlock() error {
	err := flock(l.f, syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
