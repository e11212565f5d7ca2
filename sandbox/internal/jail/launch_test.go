package jail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

// TestRetryStart: a command whose sandbox could not be set up is started again, a
// bounded number of times, and the result counts the retries; a command that ran and
// failed, a missing tool, a cancelled context and stdin that cannot be read twice are
// never retried.
func TestRetryStart(t *testing.T) {
	setupFailed := &proc.StartError{Err: errors.New("sandbox: release bwrap: write |1: broken pipe")}
	missing := &proc.StartError{Err: fmt.Errorf("wrapped: %w", &proc.MissingToolError{Tool: "slirp4netns", Package: "slirp4netns"})}
	ran := errors.New("sandbox: command cancelled")
	file, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name      string
		ctx       context.Context
		stdin     io.Reader
		errs      []error // what each attempt returns; the last repeats
		calls     int
		retries   int
		wantErr   error // errors.Is target; nil: success
		wantStart bool  // the error is a start failure
	}{
		{name: "starts at once", errs: []error{nil}, calls: 1},
		{name: "starts on the third attempt", errs: []error{setupFailed, setupFailed, nil}, calls: 3, retries: 2},
		{name: "never starts", errs: []error{setupFailed}, calls: startAttempts, retries: startAttempts - 1, wantErr: setupFailed, wantStart: true},
		{name: "ran and failed", errs: []error{ran}, calls: 1, wantErr: ran},
		{name: "missing tool", errs: []error{missing}, calls: 1, wantErr: missing, wantStart: true},
		{name: "stdin from a reader", stdin: strings.NewReader("input"), errs: []error{setupFailed}, calls: 1, wantErr: setupFailed, wantStart: true},
		{name: "stdin from a file", stdin: file, errs: []error{setupFailed, nil}, calls: 2, retries: 1},
		{name: "cancelled", ctx: cancelled, errs: []error{setupFailed}, calls: 1, wantErr: setupFailed, wantStart: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			calls := 0
			res, err := retryStart(ctx, slog.New(slog.DiscardHandler), "true", tt.stdin, func() (atesor.CommandResult, error) {
				e := tt.errs[min(calls, len(tt.errs)-1)]
				calls++
				return atesor.CommandResult{Line: "true", ExitCode: 0}, e
			})
			if calls != tt.calls || res.StartRetries != tt.retries {
				t.Errorf("calls = %d, retries = %d; want %d, %d", calls, res.StartRetries, tt.calls, tt.retries)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			var se *proc.StartError
			if errors.As(err, &se) != tt.wantStart {
				t.Errorf("start failure = %v, want %v (%v)", !tt.wantStart, tt.wantStart, err)
			}
		})
	}
}

// TestRemoveStaleCgroups: the command cgroups of processes that are gone are removed
// (named with PID and start time, or by older versions with the PID only); this
// process's, a reused PID's owner's, and foreign or busy ones stay.
func TestRemoveStaleCgroups(t *testing.T) {
	root := t.TempDir()
	dead := deadPID(t)
	me := cgroupOwner
	names := map[string]bool{ // name -> removed
		fmt.Sprintf("atesor-%d-%d-1", me.PID, me.Start):   false,
		fmt.Sprintf("atesor-%d-%d-2", dead, me.Start):     true,
		fmt.Sprintf("atesor-%d-%d-3", me.PID, me.Start+1): true, // this PID, but an earlier process's
		fmt.Sprintf("atesor-%d-4", me.PID):                false,
		fmt.Sprintf("atesor-%d-5", dead):                  true,
		"atesor-x-1":                                      false,
		"atesor-1-2-3-4":                                  false,
		"other-1-2":                                       false,
	}
	for n := range names {
		if err := os.Mkdir(filepath.Join(root, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	busy := fmt.Sprintf("atesor-%d-%d-6", dead, me.Start) // still holds something: cannot go
	if err := os.MkdirAll(filepath.Join(root, busy, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	names[busy] = false
	n := removeStaleCgroups(cgroupHier{v2: true, memory: root, pids: root}, slog.New(slog.DiscardHandler))
	want := 0
	for name, removed := range names {
		_, err := os.Stat(filepath.Join(root, name))
		if gone := errors.Is(err, os.ErrNotExist); gone != removed {
			t.Errorf("%s: removed = %v, want %v", name, gone, removed)
		}
		if removed {
			want++
		}
	}
	if n != want {
		t.Errorf("removeStaleCgroups = %d, want %d", n, want)
	}
}

// deadPID returns the PID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestAptBuildConfig: a root filesystem with apt gets the build configuration (no
// Recommends) before a command with network, rewritten when the build changed it; one
// without apt (Alpine's) gets no apt directory; a link the sandbox left in the way is
// not followed out of the root.
func TestAptBuildConfig(t *testing.T) {
	j := &Jail{cfg: Config{CABundle: func() string { return "" }}}
	debianRoot := t.TempDir()
	if err := os.MkdirAll(filepath.Join(debianRoot, "etc/apt/apt.conf.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(debianRoot, aptBuildConfigFile)
	for range 2 {
		if err := j.installHostConfig(debianRoot); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(got), `APT::Install-Recommends "false";`) {
			t.Fatalf("apt build configuration: %q, %v", got, err)
		}
		if err := os.WriteFile(file, []byte("APT::Install-Recommends \"true\";\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	alpineRoot := t.TempDir()
	if err := j.installHostConfig(alpineRoot); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(alpineRoot, "etc/apt")); !os.IsNotExist(err) {
		t.Errorf("a root without apt got etc/apt: %v", err)
	}

	outside := t.TempDir()
	linkedRoot := t.TempDir()
	if err := os.MkdirAll(filepath.Join(linkedRoot, "etc/apt/apt.conf.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "stolen"), filepath.Join(linkedRoot, aptBuildConfigFile)); err != nil {
		t.Fatal(err)
	}
	_ = j.installHostConfig(linkedRoot)
	if _, err := os.Stat(filepath.Join(outside, "stolen")); !os.IsNotExist(err) {
		t.Errorf("the write followed the sandbox's link out of the root: %v", err)
	}
}
