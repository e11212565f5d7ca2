package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// SSH is an atesor.Sandbox on a native riscv64 board reached with the ssh command-line
// client (keys and host settings come from ~/.ssh/config as usual). Sandbox paths such as
// /workspace/zlib live under Root on the board.
//
// Unlike the rootfs sandbox, a board gives no isolation: Command.Network cannot be
// switched off, and installs change the board. Use a board dedicated to building.
type SSH struct {
	// Target is the ssh destination, for example builder@visionfive2.
	Target string
	// Program is the ssh client (default "ssh").
	Program string
	// Options are extra ssh options, for example []string{"-p", "2222"}.
	Options []string
	// Root is the board directory that plays the sandbox's / (default: /, the board's
	// real root).
	Root string
	// Profile is the board's distro profile (see knowledge.Profile).
	Profile atesor.Platform
	// Timeout bounds commands that set none (default 30 minutes).
	Timeout time.Duration

	mu   sync.Mutex
	repo string // the first directory copied in below /workspace
}

var _ atesor.Sandbox = (*SSH)(nil)

// Platform returns the board's profile.
func (s *SSH) Platform() atesor.Platform { return s.Profile }

// remote maps a sandbox path to the board.
func (s *SSH) remote(p string) string {
	p = path.Clean("/" + p)
	if s.Root == "" || s.Root == "/" {
		return p
	}
	return path.Join(s.Root, p)
}

// quote quotes a string for the remote POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ssh runs one remote shell script, with stdin and live output writers.
func (s *SSH) ssh(ctx context.Context, script string, stdin io.Reader, stdout, stderr io.Writer) error {
	prog := s.Program
	if prog == "" {
		prog = "ssh"
	}
	args := append(append([]string{"-o", "BatchMode=yes"}, s.Options...), "--", s.Target, script)
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	// Kill the whole local process group on cancel, and stop waiting for output soon after.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	return cmd.Run()
}

// Exec runs a command line on the board: cd to the directory, the command's variables,
// then sh -c. The remote login environment is kept; API keys of this machine are never
// sent.
func (s *SSH) Exec(ctx context.Context, c atesor.Command) (atesor.CommandResult, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = s.Timeout
	}
	if timeout <= 0 {
		timeout = 30 * time.Minute
	}
	dir := c.Dir
	if dir == "" {
		s.mu.Lock()
		dir = s.repo
		s.mu.Unlock()
	}
	if dir == "" {
		dir = "/"
	}
	var script strings.Builder
	fmt.Fprintf(&script, "cd %s && exec env HOME=%s", quote(s.remote(dir)), quote(s.remote("/root")))
	for _, kv := range c.Env {
		script.WriteString(" " + quote(kv))
	}
	fmt.Fprintf(&script, " sh -c %s </dev/null", quote(c.Line))

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out, so, se syncBuffer
	stdout := io.MultiWriter(&so, &out)
	stderr := io.MultiWriter(&se, &out)
	if c.Stdout != nil {
		stdout = io.MultiWriter(stdout, c.Stdout)
	}
	if c.Stderr != nil {
		stderr = io.MultiWriter(stderr, c.Stderr)
	}
	start := time.Now()
	err := s.ssh(ctx, script.String(), nil, stdout, stderr)
	res := atesor.CommandResult{Line: c.Line, Stdout: so.String(), Stderr: se.String(), Output: out.String(), Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.TimedOut, res.ExitCode = true, -1
	case ctx.Err() != nil:
		return res, ctx.Err()
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
		if res.ExitCode == 255 && strings.Contains(res.Stderr, "ssh:") {
			return res, fmt.Errorf("ssh %s: %s", s.Target, strings.TrimSpace(res.Stderr))
		}
		if res.ExitCode > 128 && res.ExitCode < 128+32 {
			res.Signal = signalName(res.ExitCode - 128)
		}
	case err != nil:
		return res, fmt.Errorf("ssh %s: %w", s.Target, err)
	}
	return res, nil
}

// signalName names the signals the pipeline treats as emulator or crash faults.
func signalName(n int) string {
	switch syscall.Signal(n) {
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return ""
}

// ReadFile reads a file on the board.
func (s *SSH) ReadFile(ctx context.Context, p string) ([]byte, error) {
	var out, errb bytes.Buffer
	if err := s.ssh(ctx, "cat -- "+quote(s.remote(p)), nil, &out, &errb); err != nil {
		return nil, fmt.Errorf("read %s on %s: %w: %s", p, s.Target, err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// WriteFile writes a file inside the repository. The path is resolved on the board
// (realpath -m follows every symbolic link there) and refused when it leaves the
// repository.
func (s *SSH) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	s.mu.Lock()
	repo := s.repo
	s.mu.Unlock()
	if repo == "" {
		return errors.New("write " + p + ": no repository copied in yet")
	}
	var out, errb bytes.Buffer
	if err := s.ssh(ctx, "realpath -m -- "+quote(s.remote(p)), nil, &out, &errb); err != nil {
		return fmt.Errorf("resolve %s on %s: %w: %s", p, s.Target, err, strings.TrimSpace(errb.String()))
	}
	resolved := strings.TrimSpace(out.String())
	root := s.remote(repo)
	if resolved != root && !strings.HasPrefix(resolved, root+"/") {
		return fmt.Errorf("write %s: it resolves to %s, outside the repository %s", p, resolved, repo)
	}
	script := fmt.Sprintf("mkdir -p %s && cat > %s && chmod %o %s",
		quote(path.Dir(resolved)), quote(resolved), perm.Perm(), quote(resolved))
	errb.Reset()
	if err := s.ssh(ctx, script, bytes.NewReader(data), io.Discard, &errb); err != nil {
		return fmt.Errorf("write %s on %s: %w: %s", p, s.Target, err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// CopyIn copies a host directory or file to the board as a tar stream; a git URL is
// cloned on the board. The first copy below /workspace becomes the repository.
func (s *SSH) CopyIn(ctx context.Context, hostPath, sandboxPath string) error {
	dst := s.remote(sandboxPath)
	var errb bytes.Buffer
	if sandbox.IsGitURL(hostPath) {
		script := fmt.Sprintf("mkdir -p %s && git clone --depth 1 --recurse-submodules %s %s",
			quote(path.Dir(dst)), quote(hostPath), quote(dst))
		if err := s.ssh(ctx, script, nil, io.Discard, &errb); err != nil {
			return fmt.Errorf("clone %s on %s: %w: %s", hostPath, s.Target, err, strings.TrimSpace(errb.String()))
		}
	} else {
		fi, err := os.Stat(hostPath)
		if err != nil {
			return err
		}
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeTar(pw, hostPath, fi.IsDir())) }()
		target := dst
		if !fi.IsDir() {
			target = path.Dir(dst)
		}
		script := fmt.Sprintf("mkdir -p %s && tar -xf - -C %s", quote(target), quote(target))
		if !fi.IsDir() {
			script += fmt.Sprintf(" && mv -f %s %s", quote(path.Join(target, ".atesor-upload")), quote(dst))
		}
		err = s.ssh(ctx, script, pr, io.Discard, &errb)
		pr.Close()
		if err != nil {
			return fmt.Errorf("copy %s to %s:%s: %w: %s", hostPath, s.Target, dst, err, strings.TrimSpace(errb.String()))
		}
	}
	if strings.HasPrefix(path.Clean(sandboxPath), "/workspace/") {
		s.mu.Lock()
		if s.repo == "" {
			s.repo = path.Clean(sandboxPath)
		}
		s.mu.Unlock()
	}
	return nil
}

// CopyOut copies a file or directory from the board to hostPath.
func (s *SSH) CopyOut(ctx context.Context, sandboxPath, hostPath string) error {
	src := s.remote(sandboxPath)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := readTar(pr, path.Base(src), hostPath)
		if err != nil {
			pr.CloseWithError(err) // the remote tar stops writing
		} else {
			_, _ = io.Copy(io.Discard, pr) // tar pads its output after the end marker
		}
		done <- err
	}()
	var errb bytes.Buffer
	err := s.ssh(ctx, fmt.Sprintf("tar -cf - -C %s %s", quote(path.Dir(src)), quote(path.Base(src))), nil, pw, &errb)
	pw.CloseWithError(err)
	rerr := <-done
	if err != nil {
		return fmt.Errorf("copy %s:%s out: %w: %s", s.Target, src, err, strings.TrimSpace(errb.String()))
	}
	return rerr
}

// Close ends the sandbox. Nothing stays open between commands, so there is nothing to
// release; the board keeps the workspace for inspection.
func (s *SSH) Close() error { return nil }

// syncBuffer is a bytes.Buffer safe for the two output goroutines of exec.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
