package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// syncBuffer is a log sink safe for the sandbox's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestE2EToolchainSyncHostileStatus: a command in the real sandbox replaces
// /var/lib/dpkg/status with a link to the tree's dev/zero (and then with a FIFO); the
// accelerator's toolchain sync after the next package-manager command reads it on the
// host. The old read followed the link to the cached tree's real /dev/zero (the overlay
// had no nodev) until the host's memory ran out, and blocked on the FIFO for good; now
// each sync refuses the file, says so in the log, and the command returns at once.
func TestE2EToolchainSyncHostileStatus(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var logs syncBuffer
	sb := newE2ERootfs(t, ctx, sandbox.WithRepo("hostile"), sandbox.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	defer sb.Close()
	before := sb.Toolchain()
	for _, plant := range []string{
		"ln -sf ../../../dev/zero /var/lib/dpkg/status",
		"rm -f /var/lib/dpkg/status && mkfifo /var/lib/dpkg/status",
	} {
		res, err := sb.Exec(ctx, atesor.Command{Line: plant, Dir: "/"})
		if err != nil || !res.OK() {
			t.Fatalf("%s: %v %+v", plant, err, res)
		}
		start := time.Now()
		// A package-manager command that does not read the status itself.
		res, err = sb.Exec(ctx, atesor.Command{Line: "apt-get --version", Dir: "/", Timeout: 2 * time.Minute})
		if err != nil || !res.OK() {
			t.Fatalf("apt-get --version after %q: %v %+v", plant, err, res)
		}
		if d := time.Since(start); d > time.Minute {
			t.Errorf("after %q the command and its sync took %v", plant, d)
		}
		if _, err := sandbox.ReadBounded(ctx, sb, "/var/lib/dpkg/status", sandbox.BoundDpkgStatus); err == nil {
			t.Errorf("after %q the gate read the status file", plant)
		} else if !errors.Is(err, sandbox.ErrNotRegular) && !strings.Contains(err.Error(), "no such file") {
			t.Errorf("after %q: %v, want the file refused", plant, err)
		}
	}
	if n := strings.Count(logs.String(), "cannot read the packages"); n < 2 {
		t.Errorf("%d refusals logged, want 2:\n%s", n, logs.String())
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 512<<20 {
		t.Errorf("heap %d MiB after the syncs", ms.HeapAlloc>>20)
	}
	if after := sb.Toolchain(); after.C.Accelerated != before.C.Accelerated {
		t.Errorf("toolchain changed: %s -> %s", before, after)
	}
	t.Logf("toolchain %s; refusals:\n%s", sb.Toolchain(), grepLines(logs.String(), "cannot read the packages"))
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
