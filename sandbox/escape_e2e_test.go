package sandbox_test

// The escape classes of the sandbox's security model, each tried the way a hostile build
// script would try it, in the real riscv64 sandbox. Every test asserts that the attack
// fails; each one succeeded against the sandbox before it was hardened.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// handleProbe opens a file by handle (the "shocker" escape) relative to every mount
// point it is given, and prints what it reads.
const handleProbe = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 4) return 2;
	int type = atoi(argv[1]);
	const char *hex = argv[2];
	size_t n = strlen(hex) / 2;
	struct file_handle *fh = malloc(sizeof(*fh) + n);
	fh->handle_bytes = n;
	fh->handle_type = type;
	for (size_t i = 0; i < n; i++) sscanf(hex + 2 * i, "%2hhx", &fh->f_handle[i]);
	for (int i = 3; i < argc; i++) {
		int m = open(argv[i], O_RDONLY | O_NONBLOCK | O_NOCTTY);
		if (m < 0) { printf("skip %s: %s\n", argv[i], strerror(errno)); continue; }
		int fd = open_by_handle_at(m, fh, O_RDONLY);
		if (fd < 0) { printf("denied %s: %s\n", argv[i], strerror(errno)); close(m); continue; }
		char buf[256] = {0};
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		printf("OPENED %s: %zd bytes: %s\n", argv[i], r, buf);
		close(fd);
		close(m);
	}
	return 0;
}
`

// plantSecret writes a secret file in dir and returns the secret and the file's handle
// (type and hex bytes) as the host sees it.
func plantSecret(t *testing.T, dir string) (secret string, typ int32, handle string) {
	t.Helper()
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	secret = "host-secret-" + hex.EncodeToString(b)
	p := filepath.Join(dir, "atesor-escape-"+hex.EncodeToString(b[:4]))
	if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, p, 0)
	if err != nil {
		t.Skipf("the host filesystem of %s gives no file handles: %v", dir, err)
	}
	return secret, h.Type(), hex.EncodeToString(h.Bytes())
}

// TestE2EEscapeFileHandle compiles a probe inside the sandbox and tries to open a host
// file planted by the test through every mount the sandbox has (the bind-mounted CA
// bundle was the way in), with network off and on.
func TestE2EEscapeFileHandle(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	sb := newE2ERootfs(t, ctx)
	defer sb.Close()
	if err := os.WriteFile(filepath.Join(sb.Root(), "tmp-probe.c"), []byte(handleProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := sb.Exec(ctx, atesor.Command{Line: "gcc -O0 -o /usr/local/bin/handle-probe /tmp-probe.c", Dir: "/", Timeout: 5 * time.Minute})
	if err != nil || !res.OK() {
		t.Fatalf("compile the probe: %v\n%s", err, res.Output)
	}
	dirs := []string{t.TempDir(), filepath.Dir(sb.UpperDir())}
	for _, network := range []bool{false, true} {
		for _, dir := range dirs {
			secret, typ, handle := plantSecret(t, dir)
			line := fmt.Sprintf(`handle-probe %d %s $(awk '{print $5}' /proc/self/mountinfo | sort -u)`, typ, handle)
			res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: "/", Network: network, Timeout: 5 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("network=%v, file in %s:\n%s", network, dir, res.Output)
			if strings.Contains(res.Output, secret) || strings.Contains(res.Output, "OPENED") {
				t.Errorf("network=%v: a command read a host file by handle:\n%s", network, res.Output)
			}
			if !strings.Contains(res.Output, "denied /") {
				t.Errorf("network=%v: the probe did not run:\n%s", network, res.Output)
			}
		}
	}
}

// TestE2EEscapeHostNetwork connects, with network on, to a listener the test opens on
// the host's loopback and to one on every host address, and then downloads a package from
// the Debian archive, which must still work.
func TestE2EEscapeHostNetwork(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var accepted atomic.Int32
	listen := func(addr string) int {
		l, err := net.Listen("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				t.Logf("accepted a connection from %s on %s", c.RemoteAddr(), addr)
				c.Close()
			}
		}()
		return l.Addr().(*net.TCPAddr).Port
	}
	loPort := listen("127.0.0.1:0")
	anyPort := listen("0.0.0.0:0")
	targets := []string{fmt.Sprintf("127.0.0.1/%d", loPort), fmt.Sprintf("10.0.2.2/%d", loPort)}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
			targets = append(targets, fmt.Sprintf("%s/%d", ipn.IP, anyPort))
		}
	}
	sb := newE2ERootfs(t, ctx)
	defer sb.Close()
	var script strings.Builder
	for _, target := range targets {
		fmt.Fprintf(&script, "if timeout 10 bash -c 'exec 3<>/dev/tcp/%s' 2>/dev/null; then echo CONNECTED %s; else echo refused %s; fi\n", target, target, target)
	}
	res, err := sb.Exec(ctx, atesor.Command{Line: script.String(), Dir: "/", Network: true, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", res.Output)
	if strings.Contains(res.Output, "CONNECTED") || accepted.Load() > 0 {
		t.Errorf("a command with network on reached a host service (%d connections):\n%s", accepted.Load(), res.Output)
	}
	if strings.Count(res.Output, "refused") != len(targets) {
		t.Errorf("the probe did not try every target:\n%s", res.Output)
	}
	// The internet still works: a package downloads from the archive, names resolve.
	res, err = sb.Exec(ctx, atesor.Command{Line: "cd /tmp && apt-get download hello && ls -l hello_*.deb", Dir: "/", Network: true, Timeout: 10 * time.Minute})
	if err != nil || !res.OK() {
		t.Fatalf("download from the archive with network on: %v exit %d\n%s", err, res.ExitCode, res.Output)
	}
	// Without network only loopback exists.
	res, err = sb.Exec(ctx, atesor.Command{Line: "timeout 10 bash -c 'exec 3<>/dev/tcp/" + fmt.Sprintf("127.0.0.1/%d", loPort) + "' && echo CONNECTED", Dir: "/"})
	if err != nil || strings.Contains(res.Output, "CONNECTED") {
		t.Errorf("without network a command reached the host: %v %s", err, res.Output)
	}
}

// TestE2EEscapeKernelSettings tries to change kernel settings from inside: core_pattern
// (written with its current value, so a success changes nothing), a fresh proc mount, a
// remount of /proc/sys, sysrq and /sys, and reads the /proc files Docker masks.
func TestE2EEscapeKernelSettings(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	sb := newE2ERootfs(t, ctx)
	defer sb.Close()
	const script = `
cp=$(cat /proc/sys/kernel/core_pattern)
printf '%s\n' "$cp" > /proc/sys/kernel/core_pattern 2>/dev/null && echo ESCAPED write core_pattern
mount -o remount,rw /proc/sys 2>/dev/null && printf '%s\n' "$cp" > /proc/sys/kernel/core_pattern 2>/dev/null && echo ESCAPED remount /proc/sys
mkdir -p /tmp/p && mount -t proc proc /tmp/p 2>/dev/null && printf '%s\n' "$cp" > /tmp/p/sys/kernel/core_pattern 2>/dev/null && echo ESCAPED fresh proc mount
umount /proc/sys 2>/dev/null && printf '%s\n' "$cp" > /proc/sys/kernel/core_pattern 2>/dev/null && echo ESCAPED umount /proc/sys
test -w /proc/sysrq-trigger && echo ESCAPED sysrq-trigger writable
mkdir -p /tmp/s && mount -t sysfs sysfs /tmp/s 2>/dev/null && echo ESCAPED sysfs mount
if mountpoint -q /sys; then test -w /sys/kernel && echo ESCAPED /sys writable; fi
for f in /proc/kcore /proc/keys /proc/timer_list /proc/sched_debug; do
	if [ -e $f ] && [ "$(head -c 64 $f 2>/dev/null | wc -c)" -gt 0 ]; then echo ESCAPED $f readable; fi
done
echo done
`
	res, err := sb.Exec(ctx, atesor.Command{Line: script, Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", res.Output)
	if strings.Contains(res.Output, "ESCAPED") {
		t.Errorf("a command changed or read kernel settings:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "done") {
		t.Errorf("the probe did not finish:\n%s", res.Output)
	}
}

// countingWriter counts what the build log would get.
type countingWriter struct{ n atomic.Int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }

// TestE2EOutputFlood prints 200 MB and measures the heap of this process while it runs:
// the result keeps a bounded head and tail, the live writer (the build log) gets it all.
func TestE2EOutputFlood(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	sb := newE2ERootfs(t, ctx)
	defer sb.Close()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()
	const flood = 200_000_000
	var log countingWriter
	res, err := sb.Exec(ctx, atesor.Command{Line: fmt.Sprintf("echo first-line; yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c %d; echo; echo last-line", flood),
		Dir: "/", Timeout: 15 * time.Minute, Stdout: &log, Stderr: io.Discard})
	close(stop)
	wg.Wait()
	if err != nil || !res.OK() {
		t.Fatalf("flood: %v exit %d", err, res.ExitCode)
	}
	grew := int64(peak.Load()) - int64(before.HeapAlloc)
	t.Logf("heap grew by %d MiB at most; result output %d bytes; log got %d bytes", grew>>20, len(res.Output), log.n.Load())
	if grew > 64<<20 {
		t.Errorf("a 200 MB flood grew the heap by %d MiB", grew>>20)
	}
	if len(res.Output) > 16<<20 || len(res.Stdout) > 16<<20 {
		t.Errorf("the result keeps %d bytes of output", len(res.Output))
	}
	if log.n.Load() < flood {
		t.Errorf("the live writer got %d bytes, want the whole %d", log.n.Load(), flood)
	}
	for _, want := range []string{"first-line", "last-line", "omitted"} {
		if !bytes.Contains([]byte(res.Output), []byte(want)) {
			t.Errorf("the kept output lacks %q", want)
		}
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// A porter's checkout holds a .env with provider keys and an SSH key; the package's
// scripts look for them in the real sandbox.
func TestE2ESecretFilesStayOnTheHost(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	src := t.TempDir()
	for p, text := range map[string]string{
		"Makefile":        "all:\n\ttrue\n",
		".env":            "OPENAI_API_KEY=sk-ESCAPED\n",
		".env.local":      "ANTHROPIC_API_KEY=ESCAPED\n",
		".ssh/id_rsa":     "ESCAPED\n",
		"keys/id_ed25519": "ESCAPED\n",
		".env.example":    "OPENAI_API_KEY=\n",
	} {
		full := filepath.Join(src, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sb := newE2ERootfs(t, ctx)
	defer sb.Close()
	if err := sb.CopyIn(ctx, src, "/workspace/pkg"); err != nil {
		t.Fatal(err)
	}
	res, err := sb.Exec(ctx, atesor.Command{Line: "grep -r ESCAPED /workspace; ls -a /workspace/pkg; echo done", Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "ESCAPED") {
		t.Errorf("a secret file reached the sandbox:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, ".env.example") || !strings.Contains(res.Output, "Makefile") {
		t.Errorf("the sources themselves did not arrive:\n%s", res.Output)
	}
}
