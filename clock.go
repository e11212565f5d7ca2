package atesor

import (
	"context"
	"time"
)

// Clock is the time source of a run: timestamps, node timings, event times, the wall
// timeouts of model calls, Retry-After waits and the dates of learned examples all go
// through it, so a test replaces it and never waits for real. Commands in the sandbox
// keep real time (their timeouts are the sandbox's).
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits d, or until ctx ends (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
	// After returns a channel that receives once d has passed, and a func that stops the
	// timer.
	After(d time.Duration) (<-chan time.Time, func())
}

// RealClock is the wall clock.
type RealClock struct{}

var _ Clock = RealClock{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx ends.
func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// After starts a timer.
func (RealClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}
