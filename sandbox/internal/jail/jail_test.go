package jail

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// needJail skips unless the end-to-end tier runs (these tests make real namespaces,
// cgroups and slirp4netns processes on the host) and this process can run bwrap as root (the host's own root filesystem, read-only, stands in for the riscv64
// one: no qemu needed).
func needJail(t *testing.T, tools ...string) {
	t.Helper()
	e2e.Short(t)
	e2e.Root(t)
	for _, tool := range append([]string{"bwrap"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

func capMask(names []string) uint64 {
	bits := map[string]uint{"CAP_CHOWN": unix.CAP_CHOWN, "CAP_DAC_OVERRIDE": unix.CAP_DAC_OVERRIDE, "CAP_FOWNER": unix.CAP_FOWNER,
		"CAP_FSETID": unix.CAP_FSETID, "CAP_KILL": unix.CAP_KILL, "CAP_SETGID": unix.CAP_SETGID, "CAP_SETUID": unix.CAP_SETUID,
		"CAP_SETFCAP": unix.CAP_SETFCAP, "CAP_SYS_CHROOT": unix.CAP_SYS_CHROOT, "CAP_NET_BIND_SERVICE": unix.CAP_NET_BIND_SERVICE,
		"CAP_AUDIT_WRITE": unix.CAP_AUDIT_WRITE}
	var m uint64
	for _, n := range names {
		b, ok := bits[n]
		if !ok {
			panic(n)
		}
		m |= 1 << b
	}
	return m
}

// TestE2EJailHostRoot runs commands in the jail over the host's root filesystem and checks
// what they get: the capability set, no_new_privs, the seccomp filter, the command's
// cgroup, read-only kernel settings, and loopback only without network.
func TestE2EJailHostRoot(t *testing.T) {
	needJail(t)
	j, err := New(Config{Limits: Limits{Memory: 512 << 20, Pids: 100}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Run(context.Background(), Command{Spec: Spec{Root: "/", ReadOnly: true, Dir: "/"}, Timeout: time.Minute,
		Line: "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status; cat /proc/self/cgroup; cat /proc/net/dev; " +
			"echo x > /proc/sys/kernel/core_pattern || echo core_pattern-refused"})
	if err != nil || !res.OK() {
		t.Fatalf("%v %+v", err, res)
	}
	for _, want := range []string{fmt.Sprintf("CapEff:\t%016x", capMask(dockerCaps)), "NoNewPrivs:\t1", "Seccomp:\t2", "core_pattern-refused"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "eth0") || strings.Contains(res.Output, "tap0") {
		t.Errorf("a command without network sees more than loopback:\n%s", res.Output)
	}
	if j.cgroups != nil && !strings.Contains(res.Output, "/atesor-") {
		t.Errorf("the command is not in its own cgroup:\n%s", res.Output)
	}
}

// TestE2EJailNetwork gives a command Network: it gets tap0 from slirp4netns and the routes
// that keep the host's addresses out.
func TestE2EJailNetwork(t *testing.T) {
	needJail(t, "slirp4netns", "nsenter", "ip")
	j, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Run(context.Background(), Command{Spec: Spec{Root: "/", ReadOnly: true, Dir: "/"}, Network: true, Timeout: time.Minute,
		Line: "ip -o -4 addr; ip route; ip route del prohibit 169.254.0.0/16 && echo ROUTE-REMOVED"})
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Output)
	}
	for _, want := range []string{"tap0", "10.0.2.100", "prohibit 169.254.0.0/16"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "ROUTE-REMOVED") {
		t.Errorf("the command removed a blocking route:\n%s", res.Output)
	}
}

// TestE2EJailBwrapFails reports bwrap's own error when it cannot build the sandbox, as a
// failed command or an error, never a success.
func TestE2EJailBwrapFails(t *testing.T) {
	needJail(t)
	j, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	root := "/nonexistent-root-" + t.Name()
	res, err := j.Run(context.Background(), Command{Spec: Spec{Root: root, ReadOnly: true, Dir: "/"}, Line: "true", Timeout: time.Minute})
	if err == nil && (res.OK() || !strings.Contains(res.Output, root)) {
		t.Fatalf("err = %v, result %+v", err, res)
	}
}
