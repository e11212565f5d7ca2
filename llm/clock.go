package llm

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// Clock is the time source of calls (see [atesor.Clock]): wall timeouts and Retry-After
// waits go through it, so tests replace it and never wait for real.
type Clock = atesor.Clock

// RealClock is the wall clock ([atesor.RealClock]).
type RealClock = atesor.RealClock

// ManualClock is a [Clock] for tests. Its time moves only when Sleep or Advance is called:
// Sleep records the wait and returns at once; timers from After fire when the clock has
// been advanced past them. It is safe for concurrent use.
type ManualClock struct {
	mu     sync.Mutex
	cond   *sync.Cond
	now    time.Time
	sleeps []time.Duration
	timers []*manualTimer
}

type manualTimer struct {
	at time.Time
	ch chan time.Time
}

var _ Clock = (*ManualClock)(nil)

// NewManualClock returns a clock that starts at start.
func NewManualClock(start time.Time) *ManualClock {
	c := &ManualClock{now: start}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d, advances the clock by d and returns at once (ctx.Err() if ctx ended).
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	c.Advance(d)
	return nil
}

// After returns a channel that receives when the clock reaches now+d.
func (c *ManualClock) After(d time.Duration) (<-chan time.Time, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		return t.ch, func() {}
	}
	c.timers = append(c.timers, t)
	c.cond.Broadcast()
	return t.ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.timers = slices.DeleteFunc(c.timers, func(x *manualTimer) bool { return x == t })
	}
}

// Advance moves the clock forward by d and fires the timers that are due.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.timers = slices.DeleteFunc(c.timers, func(t *manualTimer) bool {
		if t.at.After(c.now) {
			return false
		}
		t.ch <- c.now
		return true
	})
}

// Timers returns how many timers are waiting to fire.
func (c *ManualClock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// BlockUntil waits until at least n timers are waiting to fire (for example until a
// call under test has started its wall timer), without sleeping.
func (c *ManualClock) BlockUntil(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.timers) < n {
		c.cond.Wait()
	}
}

// Sleeps returns the waits passed to Sleep, in order.
func (c *ManualClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}
