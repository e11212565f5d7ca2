package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// lockedBuffer is a bytes.Buffer a running process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tarPackage writes a source tarball of a make package whose build runs build first.
func tarPackage(t *testing.T, dir, name, build string) string {
	t.Helper()
	src := filepath.Join(dir, name+"-1.0")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	makefile := name + ": main.c\n" + build + "\t$(CC) -O2 -o " + name + " main.c\n\ncheck: " + name + "\n\t./" + name + "\n"
	files := map[string]string{
		"Makefile": makefile,
		"main.c":   "#include <stdio.h>\nint main(void) { puts(\"" + name + "\"); return 0; }\n",
	}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(src, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tarball := filepath.Join(dir, name+"-1.0.tar.gz")
	if out, err := exec.Command("tar", "-C", dir, "-czf", tarball, name+"-1.0").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v: %s", err, out)
	}
	return tarball
}

// processRunning reports whether a process whose command line contains s runs.
func processRunning(s string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, _ := os.ReadFile(p)
		if strings.Contains(strings.ReplaceAll(string(data), "\x00", " "), s) {
			return true
		}
	}
	return false
}

// mountedUnder returns the mount points of this mount namespace under dir.
func mountedUnder(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			out = append(out, f[4])
		}
	}
	return out
}

// cgroupsOf returns the command cgroups made by process pid.
func cgroupsOf(pid int) []string {
	var out []string
	prefix := fmt.Sprintf("atesor-%d-", pid)
	_ = filepath.WalkDir("/sys/fs/cgroup", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), prefix) {
			out = append(out, p)
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// runDirOf returns the rootfs run directory owned by process pid, if there is one.
func runDirOf(pid int) string {
	runs := filepath.Join(sandbox.StateHome(), "sandboxes", "runs")
	entries, _ := os.ReadDir(runs)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(runs, e.Name(), "owner.json"))
		if err != nil {
			continue
		}
		var o struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(data, &o) == nil && o.PID == pid {
			real, err := filepath.EvalSymlinks(filepath.Join(runs, e.Name()))
			if err != nil {
				return filepath.Join(runs, e.Name())
			}
			return real
		}
	}
	return ""
}

// TestE2EKilledPortIsReclaimed kills a port (offline, a package whose build sleeps) with
// SIGKILL in the middle of its build, when nothing can be cleaned up by the process
// itself: its sandbox dies with it, and the next port reclaims what it left (the overlay
// mount and run directory, the command cgroups, the unpacked source), and says so.
func TestE2EKilledPortIsReclaimed(t *testing.T) {
	c := e2eCLI(t)
	tmp := filepath.Join(c.dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	c.env["TMPDIR"] = tmp // the temporary sources of this test's runs only
	const mark = "6017"   // the sleep of the build, recognisable among the host's processes
	slow := tarPackage(t, c.dir, "sleepy", "\tsleep "+mark+"\n")
	quick := tarPackage(t, c.dir, "quick", "")

	cmd := exec.Command(binary, "port", "--offline", "--force", "--out", filepath.Join(c.dir, "out-slow"), slow)
	cmd.Dir = c.dir
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	var runDir string
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		if runDir == "" {
			runDir = runDirOf(pid)
		}
		if runDir != "" && processRunning("sleep "+mark) {
			break
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the port ended before its build (%v):\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the build did not start within 10 minutes (run %q):\n%s", runDir, stderr.String())
		}
	}
	t.Logf("building in %s after %s", runDir, time.Since(start).Round(time.Second))
	sources, _ := filepath.Glob(filepath.Join(tmp, "atesor-src-*"))
	cgroups := cgroupsOf(pid)
	if len(sources) != 1 || len(mountedUnder(t, runDir)) == 0 {
		t.Fatalf("mid-build: sources %v, mounts %v under %s", sources, mountedUnder(t, runDir), runDir)
	}

	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	exited <- <-exited // reaped; the deferred Kill finds it gone
	// The sandbox dies with atesor (bwrap --die-with-parent, slirp4netns's exit
	// descriptor), whatever it was running.
	for deadline := time.Now().Add(30 * time.Second); processRunning("sleep " + mark); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the build's sleep outlived the killed atesor by 30 s")
		}
	}
	// SIGKILL leaves everything behind: the test sees what the next start must reclaim.
	if _, err := os.Stat(sources[0]); err != nil {
		t.Fatalf("the killed run's source is gone already: %v", err)
	}
	t.Logf("left behind: mounts %v, cgroups %v, source %s", mountedUnder(t, runDir), cgroups, sources[0])

	o := c.runFor(20*time.Minute, "port", "--offline", "--force", "--out", filepath.Join(c.dir, "out-quick"), quick)
	if o.code != 0 {
		t.Errorf("the next port: exit %d\n%s", o.code, o)
	}
	if m := mountedUnder(t, runDir); len(m) > 0 {
		t.Errorf("still mounted after the next start: %v", m)
	}
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("the killed run's directory %s is still there (%v)", runDir, err)
	}
	if _, err := os.Stat(sources[0]); !os.IsNotExist(err) {
		t.Errorf("the killed run's source %s is still there (%v)", sources[0], err)
	}
	if left := cgroupsOf(pid); len(left) > 0 {
		t.Errorf("the killed run's cgroups are still there: %v", left)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "atesor-*"))
	if len(left) > 0 {
		t.Errorf("temporary directories left after the next port: %v", left)
	}
	for _, want := range []string{"reclaimed the sandbox of a run", "reclaimed " + sources[0]} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("the next port does not say %q:\n%s", want, o.stderr)
		}
	}
}
