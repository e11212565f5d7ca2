package jail

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// The bound on what a run writes is checked by summing the overlay's upper directory
// while each command runs, not by a size-limited filesystem for it: a tmpfs with size=
// holds the build in memory (a large build would need as much RAM), and a loop-mounted
// image needs loop devices and mkfs, which containers and CI runners often lack. The
// sum counts allocated blocks (a sparse file counts what it takes on disk) and each
// inode once; it runs every two seconds, less often when the tree is so large that a sum
// takes long, so it costs at most a tenth of a core. A writer faster than the check can overshoot by what it writes in one
// interval; the check after the command ends catches a command that finished first.

// DiskLimitError says that a run's sandbox holds more than its disk bound; the command
// that took it there was killed.
type DiskLimitError struct {
	Used, Limit int64
}

func (e *DiskLimitError) Error() string {
	return fmt.Sprintf("the run's sandbox holds %d MiB, more than its %d MiB bound, and the command was stopped; if the build genuinely needs more, raise the bound with %s (bytes, K/M/G suffix)",
		e.Used>>20, e.Limit>>20, EnvDiskLimit)
}

// DiskInterval is the least time between two sums of the upper directory; a sum that
// takes long (a large tree) spaces them further.
const DiskInterval = 2 * time.Second

// treeUsage returns the bytes allocated to the files below dir, each inode counted once.
// Links are not followed; entries that vanish while it walks are skipped.
func treeUsage(ctx context.Context, dir string) (int64, error) {
	type ino struct{ dev, ino uint64 }
	seen := map[ino]bool{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			total += fi.Size()
			return nil
		}
		if st.Nlink > 1 && !fi.IsDir() {
			k := ino{uint64(st.Dev), st.Ino}
			if seen[k] {
				return nil
			}
			seen[k] = true
		}
		total += st.Blocks * 512
		return nil
	})
	return total, err
}

// DiskLimit resolves the disk bound of a run whose upper directory is upper: the
// configured bound, kept below the free space of upper's filesystem less a reserve, so
// the host keeps room for its own writes. 0 means no bound.
func DiskLimit(configured int64, upper string) int64 {
	if configured < 0 {
		return 0
	}
	const reserve = 1 << 30
	var fs syscall.Statfs_t
	if err := syscall.Statfs(upper, &fs); err == nil {
		free := int64(fs.Bavail) * fs.Bsize
		if avail := free - reserve; avail > 0 && avail < configured {
			return avail
		}
	}
	return configured
}

// watchDisk sums upper every interval (or longer when a sum is slow) until ctx ends,
// and calls stop with a [*DiskLimitError] once it holds more than limit bytes.
func watchDisk(ctx context.Context, upper string, limit int64, interval time.Duration, stop context.CancelCauseFunc) {
	wait := interval
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		start := time.Now()
		used, err := treeUsage(ctx, upper)
		if err != nil {
			continue
		}
		if used > limit {
			stop(&DiskLimitError{Used: used, Limit: limit})
			return
		}
		wait = max(interval, 10*time.Since(start)) // at most a tenth of one core
	}
}

// ExecBounded runs exec under the run's disk bound: killed when the upper directory
// grows beyond it while exec runs, and reported when exec ended beyond it (so the next
// command starts below it, or not at all).
func ExecBounded(ctx context.Context, upper string, limit int64, interval time.Duration, exec func(context.Context) (atesor.CommandResult, error)) (atesor.CommandResult, error) {
	if limit <= 0 {
		return exec(ctx)
	}
	wctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watchDisk(wctx, upper, limit, interval, stop)
	}()
	res, err := exec(wctx)
	stop(nil)
	<-watched
	var dl *DiskLimitError
	if errors.As(context.Cause(wctx), &dl) && ctx.Err() == nil {
		return res, fmt.Errorf("sandbox: %w", dl)
	}
	if err != nil {
		return res, err
	}
	if used, uerr := treeUsage(ctx, upper); uerr == nil && used > limit {
		return res, fmt.Errorf("sandbox: %w", &DiskLimitError{Used: used, Limit: limit})
	}
	return res, nil
}
