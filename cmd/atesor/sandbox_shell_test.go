package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func TestExitStatus(t *testing.T) {
	for _, tt := range []struct {
		res  atesor.CommandResult
		want int
	}{
		{atesor.CommandResult{ExitCode: 0}, 0},
		{atesor.CommandResult{ExitCode: 7}, 7},
		{atesor.CommandResult{ExitCode: -1, Signal: "SIGSEGV"}, 139},
		{atesor.CommandResult{ExitCode: -1, Signal: "SIGKILL"}, 137},
		{atesor.CommandResult{ExitCode: 124, TimedOut: true}, 124},
	} {
		if got := exitStatus(tt.res); got != tt.want {
			t.Errorf("exitStatus(%+v) = %d, want %d", tt.res, got, tt.want)
		}
	}
}

func TestSandboxRunUsage(t *testing.T) {
	c := newCLI(t)
	if o := c.run("sandbox", "run"); o.code != exitUsage || !strings.Contains(o.stderr, "want a command after --") {
		t.Errorf("no command: %s", o)
	}
	if o := c.run("sandbox", "run", "--source", "x", "--from", "y", "--", "true"); o.code != exitUsage || !strings.Contains(o.stderr, "do not go together") {
		t.Errorf("--source with --from: %s", o)
	}
	if o := c.run("replay"); o.code != exitUsage {
		t.Errorf("replay without an argument: %s", o)
	}
	if o := c.run("replay", "nosuchpkg"); o.code != exitUsage || !strings.Contains(o.stderr, "no cached recipe") {
		t.Errorf("replay of an unknown package: %s", o)
	}
}

// TestE2ESandboxRunPassesExitCodes runs commands in the real riscv64 sandbox with the
// sample package placed: exit codes pass through, and the interactive shell reads its
// commands from stdin.
//
//	ATESOR_E2E=1 go test -p 1 -run TestE2ESandboxRunPassesExitCodes ./cmd/atesor/
func TestE2ESandboxRunPassesExitCodes(t *testing.T) {
	e2e.Short(t)
	e2e.Root(t)
	c := newCLI(t)
	c.env["ATESOR_HOME"] = sandbox.StateHome() // the cached sandbox shared on this machine
	src, _ := filepath.Abs("../../testdata/packages/vecsum")
	for _, tt := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--source", src, "--", "sh", "-c", "test -f vecsum.c && uname -m && exit 7"}, 7, "riscv64"},
		{[]string{"--", "true"}, 0, ""},
		{[]string{"--network=false", "--", "sh -c 'kill -SEGV $$'"}, 139, ""},
	} {
		o := c.run(append([]string{"sandbox", "run"}, tt.args...)...)
		if o.code != tt.code || !strings.Contains(o.stdout, tt.out) {
			t.Errorf("sandbox run %q: want exit %d and %q, got %s", tt.args, tt.code, tt.out, o)
		}
	}
	cmd := exec.Command(binary, "sandbox", "shell", "--source", src)
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = c.dir
	cmd.Stdin = strings.NewReader("echo in-$(basename $PWD)-$(uname -m)\nexit 5\n")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 || !strings.Contains(so.String(), "in-vecsum-riscv64") {
		t.Errorf("sandbox shell: %v\nstdout:\n%s\nstderr:\n%s", err, so.String(), se.String())
	}
}
