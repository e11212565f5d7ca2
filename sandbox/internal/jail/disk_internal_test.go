package jail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestExecBoundedDisk runs commands (stand-ins that write into a directory as a build
// writes into the overlay's upper directory) under a 1 MiB bound: one that keeps writing
// is stopped while it runs, one that writes past the bound and ends is reported, and
// neither a sparse file nor many hard links to one file count more than the disk holds.
func TestExecBoundedDisk(t *testing.T) {
	const limit = 1 << 20
	write := func(p string, n int) error { return os.WriteFile(p, make([]byte, n), 0o644) }
	for _, tc := range []struct {
		name    string
		run     func(ctx context.Context, dir string) error
		wantErr bool
	}{
		{"keeps writing", func(ctx context.Context, dir string) error {
			for i := 0; ; i++ {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				if err := write(filepath.Join(dir, fmt.Sprint(i)), 64<<10); err != nil {
					return err
				}
				time.Sleep(5 * time.Millisecond)
			}
		}, true},
		{"writes past the bound and ends", func(ctx context.Context, dir string) error {
			return write(filepath.Join(dir, "big"), 2<<20)
		}, true},
		{"sparse", func(ctx context.Context, dir string) error {
			f, err := os.Create(filepath.Join(dir, "sparse"))
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(8 << 30)
		}, false},
		{"hard links", func(ctx context.Context, dir string) error {
			if err := write(filepath.Join(dir, "f"), 600<<10); err != nil {
				return err
			}
			for i := range 20 {
				if err := os.Link(filepath.Join(dir, "f"), filepath.Join(dir, fmt.Sprint("l", i))); err != nil {
					return err
				}
			}
			return nil
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			_, err := ExecBounded(t.Context(), dir, limit, 50*time.Millisecond, func(ctx context.Context) (atesor.CommandResult, error) {
				return atesor.CommandResult{}, tc.run(ctx, dir)
			})
			var dl *DiskLimitError
			if got := errors.As(err, &dl); got != tc.wantErr {
				t.Fatalf("got %v, want a disk bound error: %t", err, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(err.Error(), EnvDiskLimit) {
				t.Errorf("%v does not name %s", err, EnvDiskLimit)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
	// A cancelled run is the caller's cancellation, not a disk bound.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := ExecBounded(ctx, t.TempDir(), limit, time.Second, func(ctx context.Context) (atesor.CommandResult, error) {
		return atesor.CommandResult{}, ctx.Err()
	})
	var dl *DiskLimitError
	if errors.As(err, &dl) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
