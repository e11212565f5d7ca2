package jail

import (
	"errors"
	"net"
	"os"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestResolvConf(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"nameserver 10.255.255.53\n", "nameserver 10.255.255.53\n"},
		{"nameserver 127.0.0.53\noptions edns0\n", "options edns0\nnameserver 10.0.2.3\n"},
		{"search example\nnameserver 127.0.0.11\nnameserver 192.0.2.1\n", "search example\nnameserver 192.0.2.1\n"},
		{"nameserver ::1\n", "nameserver 10.0.2.3\n"},
		{"", "nameserver 10.0.2.3\n"},
	} {
		if got := string(resolvConf([]byte(tc.host))); got != tc.want {
			t.Errorf("resolvConf(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

func TestBlockedRoutes(t *testing.T) {
	addrs := []net.Addr{
		&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
		&net.IPNet{IP: net.ParseIP("192.0.2.7"), Mask: net.CIDRMask(24, 32)},
		&net.IPNet{IP: net.ParseIP("192.0.2.7"), Mask: net.CIDRMask(24, 32)},
		&net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)},
	}
	got := blockedRoutes(addrs)
	want := []string{"route add prohibit 169.254.0.0/16", "route add prohibit 100.100.100.200/32", "route add prohibit 192.0.2.7/32"}
	if !slices.Equal(got, want) {
		t.Errorf("blockedRoutes = %q, want %q", got, want)
	}
	args := slirpArgs(42)
	for _, a := range []string{"--disable-host-loopback", "--configure", "--exit-fd=4", "42", "tap0"} {
		if !slices.Contains(args, a) {
			t.Errorf("slirp4netns args %v lack %s", args, a)
		}
	}
}

func TestParseCgroups(t *testing.T) {
	const v1mounts = `31 30 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`
	const v1self = "8:pids:/\n4:memory:/a/b\n0::/\n"
	const v2mounts = `30 22 0:27 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw`
	const v2self = "0::/user.slice/x.scope\n"
	ctl := func(s string) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return []byte(s), nil }
	}
	h, err := parseCgroups(v1mounts, v1self, ctl(""))
	if err != nil || h.v2 || h.memory != "/sys/fs/cgroup/memory/a/b" || h.pids != "/sys/fs/cgroup/pids" {
		t.Errorf("v1: %+v %v", h, err)
	}
	h, err = parseCgroups(v2mounts, v2self, ctl("cpu memory pids\n"))
	if err != nil || !h.v2 || h.memory != "/sys/fs/cgroup/user.slice/x.scope" {
		t.Errorf("v2: %+v %v", h, err)
	}
	if _, err := parseCgroups(v2mounts, v2self, ctl("cpu\n")); err == nil || !strings.Contains(err.Error(), "Delegate") {
		t.Errorf("v2 without delegation: %v", err)
	}
	if _, err := parseCgroups(v2mounts, v2self, func(string) ([]byte, error) { return nil, errors.New("gone") }); err == nil {
		t.Error("v2 without cgroup.subtree_control: no error")
	}
	if _, err := parseCgroups("", "", ctl("")); err == nil {
		t.Error("no cgroups: no error")
	}
}

func TestParseSizeAndDefaultLimits(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "4k": 4096, "256M": 256 << 20, " 8G ": 8 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	if _, err := ParseSize("lots"); err == nil {
		t.Error("ParseSize(lots): no error")
	}
	t.Setenv(EnvMemoryLimit, "2G") // read by the command line only
	if l := defaultLimits(); l.Memory == 2<<30 || l.Pids != defaultPids || l.Disk != defaultDisk {
		t.Errorf("defaultLimits = %+v", l)
	}
	if l := (Limits{Memory: -1}).Resolve(); l.Memory != -1 || l.Pids != defaultPids {
		t.Errorf("resolve = %+v", l)
	}
}

func TestLimitAnnotation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		if err := osWriteFile(dir+"/"+name, s); err != nil {
			t.Fatal(err)
		}
	}
	write("memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
	write("pids.events", "max 0\n")
	c := &commandCgroup{h: cgroupHier{v2: true}, dirs: []string{dir}, limits: Limits{Memory: 256 << 20, Pids: 64}}
	res := atesor.CommandResult{ExitCode: 137}
	c.annotate(&res)
	if !strings.Contains(res.Output, "memory limit of 256 MiB") || !strings.Contains(res.Output, EnvMemoryLimit) || strings.Contains(res.Output, "process limit") {
		t.Errorf("memory: %q", res.Output)
	}
	write("memory.events", "oom_kill 0\n")
	write("pids.events", "max 12\n")
	res = atesor.CommandResult{ExitCode: 0}
	c.annotate(&res)
	if !strings.Contains(res.Output, "process limit of 64") || res.ExitCode == 0 {
		t.Errorf("pids: %+v", res)
	}
	write("pids.events", "max 0\n")
	res = atesor.CommandResult{}
	c.annotate(&res)
	if res.Output != "" {
		t.Errorf("no limit hit: %q", res.Output)
	}
}

func osWriteFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
