package provision

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLockProvisioningSaysWhatTheHolderDoes: a process waiting for a provisioning lock
// reports what the holder is doing, each time it changes (mmdebstrap's step lines, not
// apt's detail), with the time waited, and when it got the lock; a free lock, or one
// held only for a moment, is taken without a word.
func TestLockProvisioningSaysWhatTheHolderDoes(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "debian-riscv64.lock")
	var mu sync.Mutex
	var lines []string
	said := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
	cfg := Config{Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, p.Stage+": "+p.Message)
	}}.WithDefaults()
	waitFor := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for _, l := range said() {
				if strings.Contains(l, want) {
					return
				}
			}
		}
		t.Fatalf("no report of %q in:\n%s", want, strings.Join(said(), "\n"))
	}

	// Free: no report.
	_, unlock, err := Lock(context.Background(), lock, Reporter{cfg: cfg, start: time.Now()}, "lock")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if got := said(); len(got) != 0 {
		t.Fatalf("a free lock was reported: %q", got)
	}

	// Held by a "holder" that bootstraps.
	holderRep, holderUnlock, err := Lock(context.Background(), lock, Reporter{cfg: Config{}.WithDefaults(), start: time.Now()}, "lock")
	if err != nil {
		t.Fatal(err)
	}
	holderRep.Report("bootstrap", "I: extracting archives...")
	done := make(chan error, 1)
	go func() {
		_, unlock, err := Lock(context.Background(), lock, Reporter{cfg: cfg, start: time.Now()}, "lock")
		if err == nil {
			unlock()
		}
		done <- err
	}()
	time.Sleep(waitQuiet / 2)
	if got := said(); len(got) != 0 {
		t.Fatalf("a short wait was reported: %q", got)
	}
	waitFor("is at bootstrap: I: extracting archives...")
	holderRep.Report("bootstrap", "Get:17 http://mirror/debian trixie/main riscv64 libc6 2.41-12 [2,800 kB]")
	time.Sleep(statusWriteEvery + 100*time.Millisecond)
	holderRep.Report("verify", "checking the new root filesystem")
	waitFor("is at verify: checking the new root filesystem")
	for _, l := range said() {
		if strings.Contains(l, "Get:17") {
			t.Errorf("apt's detail reached the waiter: %s", l)
		}
	}
	holderUnlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor("took " + lock + " after")
	if _, ok := readHolderStatus(lock); ok {
		t.Error("the status outlived the holder's lock")
	}
	for _, l := range said() {
		if strings.Contains(l, "waiting") && !strings.Contains(l, "s waited)") {
			t.Errorf("a waiting line without the time waited: %s", l)
		}
	}
}
