package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
)

// hostCLI prepares a run on the host sandbox: it needs make and a C compiler, and gets a
// fake apt-get first on PATH so that the plan's package installs never touch the machine
// running the tests.
func hostCLI(t *testing.T) *cli {
	t.Helper()
	if runtime.GOARCH == "riscv64" {
		t.Skip("on a riscv64 host the host sandbox verifies; this test wants a foreign host")
	}
	for _, tool := range []string{"make", "cc", "ar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	c := newCLI(t)
	bin := filepath.Join(c.dir, "..", "fakebin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "apt-get"), []byte("#!/bin/sh\necho \"fake apt-get $*\"\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.env["PATH"] = bin + string(os.PathListSeparator) + c.env["PATH"]
	return c
}

// TestPortHostNotVerified runs the whole pipeline offline on the host sandbox: the
// sample package builds for the host's architecture, so the port must end not verified
// (exit 1), with the x86-64 (or other foreign) artifacts in the JSON report.
func TestPortHostNotVerified(t *testing.T) {
	c := hostCLI(t)
	o := c.run("port", "--sandbox", "host", "--unsafe-host", "--offline", "--json", "--package", helloSource(t))
	if o.code != exitFailed {
		t.Fatalf("want exit 1; %s", o)
	}
	var res graph.Report
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil {
		t.Fatalf("--json output is not a report: %v; %s", err, o)
	}
	if file, err := os.ReadFile(res.Files[atesor.FileReport]); err != nil || string(file) != o.stdout {
		t.Errorf("--json printed another document than the report file (%v)", err)
	}
	if res.Status.Succeeded() || res.Verified || res.FailureClass != atesor.FailureVerify {
		t.Errorf("status %s, verified %v, failure class %q; want a verify failure", res.Status, res.Verified, res.FailureClass)
	}
	foreign := 0
	for _, a := range res.Artifacts {
		if !a.RISCV64 && a.Machine != "" {
			foreign++
		}
	}
	if foreign == 0 {
		t.Errorf("no foreign-architecture artifact in the report: %+v", res.Artifacts)
	}
	if res.LLM.Calls != 0 || !res.Offline {
		t.Errorf("an offline run made %d model calls", res.LLM.Calls)
	}
	for _, k := range []string{"recipe", "report", "package"} {
		if _, err := os.Stat(res.Files[k]); err != nil {
			t.Errorf("output %s: %v", k, err)
		}
	}
	if !strings.Contains(o.stderr, "verify") {
		t.Errorf("no progress on stderr; %s", o)
	}
	if strings.Contains(o.stderr, "    ar rcs libhello.a") {
		t.Errorf("build output lines on stderr without -v; %s", o)
	}
	checkZip(t, res.Files["package"], "hello/hello_recipe.md", "hello/hello_report.json", "hello/hello_state.json",
		"hello/hello_build.log")

	// -v: every build output line on stderr; the human summary on stdout ends with the verdict.
	o = c.run("port", "--sandbox", "host", "--unsafe-host", "--offline", "-v", helloSource(t))
	if o.code != exitFailed || !strings.Contains(o.stderr, "    ar rcs libhello.a") {
		t.Errorf("-v: want exit 1 and the build output on stderr; %s", o)
	}
	if !strings.HasSuffix(o.stdout, "verdict: not_verified\n") || !strings.Contains(o.stdout, "failure:   verify") {
		t.Errorf("summary on stdout; %s", o)
	}
}

// TestPortInterrupted interrupts a run during its build: exit 130 with the state saved,
// and --resume continues it.
func TestPortInterrupted(t *testing.T) {
	c := hostCLI(t)
	src := filepath.Join(c.dir, "slow")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	// The build blocks until the test interrupts it (the sandbox kills it then).
	if err := os.WriteFile(filepath.Join(src, "Makefile"), []byte("all:\n\tsleep 600\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "port", "--sandbox", "host", "--unsafe-host", "--offline", src)
	cmd.Dir = c.dir
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.Contains(sc.Text(), "$ make") {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("want exit %d, got %v; stderr:\n%s", exitInterrupted, err, strings.Join(seen, "\n"))
	}
	if !strings.Contains(strings.Join(seen, "\n"), "--resume") {
		t.Errorf("the interrupt message does not say how to resume:\n%s", strings.Join(seen, "\n"))
	}
	states, _ := filepath.Glob(filepath.Join(c.home, "runs", "*", "state.json"))
	if len(states) != 1 {
		t.Fatalf("saved states: %v", states)
	}
	// Resume: the build is changed to finish, and the run continues at the build.
	if err := os.WriteFile(filepath.Join(src, "Makefile"), []byte("all:\n\ttrue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := c.run("port", "--sandbox", "host", "--unsafe-host", "--offline", "--resume", src)
	if o.code != exitFailed || strings.Contains(o.stderr, "] init") || !strings.Contains(o.stderr, "] build") {
		t.Errorf("resume: want the run continued from the build and ended not verified; %s", o)
	}
}

// TestPortSIGTERM sends SIGTERM to a port whose build hangs (a Makefile that sleeps for
// ten minutes) on the host sandbox: atesor ends within seconds with exit 130, says the
// state is saved, and the saved state is there to resume from.
func TestPortSIGTERM(t *testing.T) {
	c := hostCLI(t)
	src := filepath.Join(t.TempDir(), "hang")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "Makefile"), []byte("all:\n\tsleep 600\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "port", "--sandbox", "host", "--unsafe-host", "--offline", "-v", src)
	cmd.Dir = c.dir
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var log strings.Builder
	building := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "sleep 600") {
				once = true
				close(building)
			}
		}
	}()
	select {
	case <-building:
	case <-time.After(90 * time.Second):
		t.Fatal("the build never started")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	waited := make(chan error, 1)
	go func() { <-copied; waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			t.Fatalf("atesor ended with %v, want exit %d\n%s", err, exitInterrupted, log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("atesor still runs 30 s after SIGTERM\n%s", log.String())
	}
	t.Logf("ended %s after SIGTERM; last lines:\n%s", time.Since(at).Round(time.Millisecond), log.String()[max(0, log.Len()-600):])
	if !strings.Contains(log.String(), "the run state is saved") {
		t.Errorf("atesor did not say the state is saved:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(c.dir, "atesor-out", "hang_state.json")); err != nil {
		matches, _ := filepath.Glob(filepath.Join(c.dir, "*", "hang_state.json"))
		if len(matches) == 0 {
			t.Errorf("no saved state: %v", err)
		}
	}
}
