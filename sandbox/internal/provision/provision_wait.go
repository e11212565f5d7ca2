package provision

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
)

// A process that provisions a cache holds its lock file for minutes (mmdebstrap takes
// about four on two cores). So that a process waiting for that lock can say what is
// happening rather than only that it waits, the holder writes what it is doing to a
// status file beside the lock, and the waiter reports it, with the time waited, each
// time it changes and at least every waitReportEvery.

// waitReportEvery is how often a process waiting for a provisioning lock reports when
// the holder's status does not change.
const waitReportEvery = 30 * time.Second

// waitQuiet is how long a wait for a provisioning lock stays unreported: the check of a
// cached root filesystem holds the lock for about a second, which is not worth a line.
const waitQuiet = 2 * time.Second

// statusWriteEvery bounds how often the holder rewrites its status file (mmdebstrap
// prints hundreds of lines); a change of stage is always written.
const statusWriteEvery = time.Second

// holderStatus is what the holder of a provisioning lock is doing.
type holderStatus struct {
	PID     int       `json:"pid"`
	Stage   string    `json:"stage"`
	Message string    `json:"message"`
	Started time.Time `json:"started"` // when the holder took the lock
}

// statusPath is the status file of a lock file.
func statusPath(lock string) string { return lock + ".status" }

// statusWriter keeps a lock holder's status file.
type statusWriter struct {
	path    string
	started time.Time
	mu      sync.Mutex
	last    holderStatus
	written time.Time
}

func newStatusWriter(lock string) *statusWriter {
	return &statusWriter{path: statusPath(lock), started: time.Now()}
}

// note records a report. Of mmdebstrap's output only its own step lines ("I: ...")
// become the status: the rest is apt's detail.
func (w *statusWriter) note(stage, msg string) {
	if w == nil {
		return
	}
	if strings.HasSuffix(stage, "bootstrap") && !isStepLine(msg) && !strings.HasPrefix(msg, "mmdebstrap ") {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st := holderStatus{PID: os.Getpid(), Stage: stage, Message: msg, Started: w.started}
	if st.Stage == w.last.Stage && time.Since(w.written) < statusWriteEvery {
		w.last = st
		return
	}
	data, err := json.Marshal(st)
	if err != nil {
		return
	}
	// A status that cannot be written only leaves a waiter with less to say.
	_ = atomicfile.WriteFile(w.path, data, 0o644)
	w.last, w.written = st, time.Now()
}

// remove deletes the status file when the holder lets the lock go.
func (w *statusWriter) remove() {
	if w != nil {
		_ = os.Remove(w.path)
	}
}

// isStepLine reports whether an output line of mmdebstrap is one of its step lines
// (information, warning, error), which say where the bootstrap is.
func isStepLine(line string) bool {
	return strings.HasPrefix(line, "I: ") || strings.HasPrefix(line, "W: ") || strings.HasPrefix(line, "E: ")
}

// readHolderStatus returns the status the holder of lock wrote, if any.
func readHolderStatus(lock string) (holderStatus, bool) {
	var st holderStatus
	data, err := os.ReadFile(statusPath(lock))
	if err != nil || json.Unmarshal(data, &st) != nil || st.PID == 0 {
		return holderStatus{}, false
	}
	return st, true
}

// describe says what the holder does, for a waiting process.
func (st holderStatus) describe(ok bool) string {
	if !ok {
		return "another process holds it"
	}
	return fmt.Sprintf("process %d is at %s: %s (for %s)", st.PID, st.Stage, st.Message, time.Since(st.Started).Round(time.Second))
}

// Lock takes the provisioning lock file, reporting as stage while another
// process holds it: after waitQuiet, whenever the holder's status changes, and at least
// every waitReportEvery. Taken within waitQuiet, it reports nothing. The returned Reporter writes the
// status of this holder; unlock releases the lock and removes the status.
func Lock(ctx context.Context, lock string, rep Reporter, stage string) (Reporter, func(), error) {
	began := time.Now()
	var said holderStatus
	var saidAt time.Time
	unlock, err := lockFileWaiting(ctx, lock, func() {
		if time.Since(began) < waitQuiet {
			return
		}
		st, ok := readHolderStatus(lock)
		if !saidAt.IsZero() && st == said && time.Since(saidAt) < waitReportEvery {
			return
		}
		said, saidAt = st, time.Now()
		rep.Report(stage, fmt.Sprintf("waiting for %s (%s waited): %s", lock, time.Since(began).Round(time.Second), st.describe(ok)))
	})
	if err != nil {
		return rep, nil, err
	}
	if !saidAt.IsZero() {
		rep.Report(stage, fmt.Sprintf("took %s after %s", lock, time.Since(began).Round(time.Second)))
	}
	w := newStatusWriter(lock)
	rep.status = w
	return rep, func() { w.remove(); unlock() }, nil
}
