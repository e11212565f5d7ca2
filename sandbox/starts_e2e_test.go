package sandbox_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestE2EConcurrentNetworkStarts starts 720 commands with network (true) from twelve
// goroutines in one sandbox, the way a batch's workers start them: every one must start
// at the first attempt and succeed. bwrap's loopback setup once raced with slirp4netns
// here (a few starts in a hundred failed under this load).
func TestE2EConcurrentNetworkStarts(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	sb := newE2ERootfs(t, ctx)
	defer sb.Close()

	const workers, each = 12, 60
	var failed, retried atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				res, err := sb.Exec(ctx, atesor.Command{Line: "true", Dir: "/", Network: true, Timeout: 5 * time.Minute})
				retried.Add(int64(res.StartRetries))
				if err != nil || !res.OK() {
					if failed.Add(1) <= 5 {
						t.Errorf("worker %d, start %d: %v (exit %d) %s", w, i, err, res.ExitCode, res.Output)
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d starts with network from %d goroutines in %s (%s each on average): %d failed, %d retried",
		workers*each, workers, elapsed.Round(time.Millisecond), (elapsed / (workers * each)).Round(time.Millisecond), failed.Load(), retried.Load())
	if failed.Load() > 0 || retried.Load() > 0 {
		t.Errorf("%d of %d starts failed and %d were started again; want none", failed.Load(), workers*each, retried.Load())
	}
}
