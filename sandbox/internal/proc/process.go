package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// DefaultTimeout bounds a command whose Command.Timeout is zero.
const DefaultTimeout = 1800 * time.Second

// Process is one host process to run for a command.
type Process struct {
	Argv    []string
	Dir     string
	Env     []string
	Line    string
	Timeout time.Duration
	Stdout  io.Writer
	Stdin   io.Reader // nil: /dev/null
	Stderr  io.Writer
	// OnKill runs after the process group was killed because of the timeout or a
	// cancelled context (the Docker backend kills the processes inside the container).
	OnKill func()
	// ExtraFiles are passed to the process as descriptors 3, 4, ... (see
	// [exec.Cmd.ExtraFiles]); run closes them once the process started.
	ExtraFiles []*os.File
	// Cloneflags are namespaces the process is started in (CLONE_NEWNET for a command
	// with network), so they exist before its program runs.
	Cloneflags uintptr
	// Started runs right after the process started (the rootfs sandbox places it in its
	// cgroup and sets up its network there) and before the command runs. An error kills
	// the process group and is returned as a [*StartError]. The returned function, when
	// not nil, runs after the process ended and may annotate the result.
	Started func(ctx context.Context, pid int) (finish func(*atesor.CommandResult), err error)
}

// Run starts the process in its own process group with stdin from /dev/null, copies its
// output live to the optional writers and into the result, and kills the whole process
// group when the timeout passes or ctx is cancelled. A command that ran and failed is not
// an error. A cancelled context returns the partial result and the context's error.
func Run(ctx context.Context, p Process) (atesor.CommandResult, error) {
	res := atesor.CommandResult{Line: p.Line}
	if len(p.Argv) == 0 {
		return res, errors.New("sandbox: empty argv")
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	stdout := NewBuffer(OutputHead, OutputTail)
	stderr := NewBuffer(OutputHead, OutputTail)
	combined := NewBuffer(OutputHead, OutputTail)
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Dir = p.Dir
	cmd.Env = p.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = p.Stdin   // nil: /dev/null
	var liveMu sync.Mutex // one writer may serve as both Stdout and Stderr
	cmd.Stdout = teeWriter(stdout, combined, p.Stdout, &liveMu)
	cmd.Stderr = teeWriter(stderr, combined, p.Stderr, &liveMu)
	cmd.ExtraFiles = p.ExtraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: p.Cloneflags}
	// A grandchild that escaped the group could hold the pipes open; do not wait forever.
	cmd.WaitDelay = 5 * time.Second

	start := time.Now()
	err := cmd.Start()
	for _, f := range p.ExtraFiles {
		f.Close()
	}
	if err != nil {
		return res, &StartError{Err: fmt.Errorf("sandbox: start %s: %w", p.Argv[0], err)}
	}
	var finish func(*atesor.CommandResult)
	if p.Started != nil {
		if finish, err = p.Started(ctx, cmd.Process.Pid); err != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			res.Stdout, res.Stderr, res.Output = stdout.String(), stderr.String(), combined.String()
			fillExit(&res, cmd.ProcessState, nil)
			if finish != nil {
				finish(&res)
			}
			if msg := strings.TrimSpace(res.Stderr); msg != "" {
				err = fmt.Errorf("%w: %s", err, Tail(msg, 1000))
			}
			return res, &StartError{Err: err}
		}
	}
	done := make(chan struct{})
	var timedOut, cancelled bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case <-done:
			return
		case <-timer.C:
			timedOut = true
		case <-ctx.Done():
			cancelled = true
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if p.OnKill != nil {
			p.OnKill()
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	wg.Wait()
	res.Duration = time.Since(start)
	res.Stdout = stdout.String()
	res.Stderr = stderr.String()
	res.Output = combined.String()
	res.TimedOut = timedOut
	fillExit(&res, cmd.ProcessState, waitErr)
	if finish != nil {
		finish(&res)
	}
	if timedOut {
		msg := fmt.Sprintf("\n[atesor] command timed out after %s and was killed\n", timeout)
		res.Output += msg
		res.Stderr += msg
		if res.ExitCode == 0 {
			res.ExitCode = 124
		}
		res.Signal = ""
		res.EmulatorFault = false
	}
	if cancelled {
		return res, fmt.Errorf("sandbox: command cancelled: %w", context.Cause(ctx))
	}
	return res, nil
}

// StartError is a command that failed to start: the sandbox around it could not be
// set up (the process did not start, or the setup after it failed), so the command
// itself never ran and may be started again.
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// fillExit sets ExitCode, Signal and EmulatorFault from the process state.
func fillExit(res *atesor.CommandResult, ps *os.ProcessState, waitErr error) {
	if ps == nil {
		res.ExitCode = -1
		return
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = 128 + int(ws.Signal())
		res.Signal = signalName(ws.Signal())
	} else {
		res.ExitCode = ps.ExitCode()
		// A shell (or bwrap) reports a child killed by a signal as 128+n.
		switch res.ExitCode {
		case 128 + int(syscall.SIGILL), 128 + int(syscall.SIGBUS), 128 + int(syscall.SIGSEGV):
			res.Signal = signalName(syscall.Signal(res.ExitCode - 128))
		}
	}
	res.EmulatorFault = IsEmulatorFault(*res)
	_ = waitErr
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	default:
		return "SIG" + strings.ToUpper(s.String())
	}
}

func teeWriter(own, combined io.Writer, live io.Writer, mu *sync.Mutex) io.Writer {
	if live == nil {
		return io.MultiWriter(own, combined)
	}
	return io.MultiWriter(own, combined, liveWriter{live, mu})
}

// liveWriter serialises writes to a caller's writer and never fails the command
// because that writer failed.
type liveWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l liveWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(p)
	return len(p), nil
}

// Tail returns the last n bytes of s, after "..." when it was longer.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
