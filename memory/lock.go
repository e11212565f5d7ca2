package memory

import (
	"context"

	"github.com/eclipse-atesor/atesor-go/internal/filelock"
)

// fileLock is the exclusive lock of a memory file, on <file>.lock (see [filelock]): it
// works between processes and the kernel releases it when its holder dies.
type fileLock struct{ l *filelock.Lock }

// lockFile takes the exclusive lock of path, waiting until it is free or ctx ends.
func lockFile(ctx context.Context, path string) (*fileLock, error) {
	l, err := filelock.Acquire(ctx, path+".lock")
	if err != nil {
		return nil, err
	}
	return &fileLock{l: l}, nil
}

// unlock releases the lock.
func (l *fileLock) unlock() error { return l.l.Release() }
