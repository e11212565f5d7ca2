package jail

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

func TestBwrapArgs(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-host")
	env := proc.Env(proc.DefaultPath, proc.SandboxHome, "gcc", "", []string{"FOO=1", "GEMINI_API_KEY=x"})
	base := Spec{Root: "/r", Env: env, Dir: "/workspace/p", seccompFD: 3, infoFD: 4, blockFD: 5}
	has := func(args []string, seq ...string) bool {
		for i := 0; i+len(seq) <= len(args); i++ {
			if slices.Equal(args[i:i+len(seq)], seq) {
				return true
			}
		}
		return false
	}
	args := bwrapArgs(base)
	for _, seq := range [][]string{
		{"bwrap", "--bind", "/r", "/"}, {"--perms", "1777", "--tmpfs", "/tmp"}, {"--unshare-pid"}, {"--unshare-ipc"},
		{"--unshare-uts"}, {"--new-session"}, {"--die-with-parent"}, {"--clearenv"}, {"--unshare-net"},
		{"--setenv", "HOME", "/root"}, {"--setenv", "GOFLAGS", "-buildvcs=false"},
		{"--setenv", "CC", "gcc"}, {"--setenv", "FOO", "1"}, {"--chdir", "/workspace/p"},
		{"--cap-drop", "ALL"}, {"--cap-add", "CAP_CHOWN"}, {"--cap-add", "CAP_SETUID"},
		{"--seccomp", "3"}, {"--info-fd", "4"}, {"--block-fd", "5"},
	} {
		if !has(args, seq...) {
			t.Errorf("%v missing from %v", seq, args)
		}
	}
	// Kernel settings are read-only and Docker's masked files are covered, where this
	// kernel has them.
	if exists("/proc/sys") && !has(args, "--ro-bind", "/proc/sys", "/proc/sys") {
		t.Error("/proc/sys is not read-only")
	}
	if exists("/proc/keys") && !has(args, "--ro-bind", "/dev/null", "/proc/keys") {
		t.Error("/proc/keys is not masked")
	}
	if exists("/proc/acpi") && !has(args, "--tmpfs", "/proc/acpi", "--remount-ro", "/proc/acpi") {
		t.Error("/proc/acpi is not masked")
	}
	// No host file is bound in: the CA bundle and resolv.conf are copied.
	for i, a := range args {
		if (a == "--bind" || a == "--ro-bind") && i+1 < len(args) && strings.HasPrefix(args[i+1], "/etc") {
			t.Errorf("a host file is bound in: %v", args[i:i+3])
		}
	}
	for _, c := range []string{"CAP_SYS_ADMIN", "CAP_DAC_READ_SEARCH", "CAP_NET_ADMIN", "CAP_SYS_PTRACE", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_NET_RAW", "CAP_MKNOD"} {
		if has(args, "--cap-add", c) {
			t.Errorf("%s is kept", c)
		}
	}
	joined := strings.Join(args, " ")
	if strings.Contains(joined, "API_KEY") || strings.Contains(joined, "sk-host") {
		t.Errorf("a key reached bwrap: %s", joined)
	}
	// A command with network runs in the namespace bwrap was started in: bwrap makes
	// none (its own loopback setup would race with slirp4netns).
	own := base
	own.ownNetns = true
	if args := bwrapArgs(own); slices.Contains(args, "--unshare-net") || !slices.Contains(args, "--unshare-pid") {
		t.Errorf("own network namespace: %v", args)
	}
	ro := base
	ro.ReadOnly, ro.seccompFD = true, 0
	if args := bwrapArgs(ro); !has(args, "bwrap", "--ro-bind", "/r", "/") || slices.Contains(args, "--seccomp") {
		t.Errorf("read-only Root: %v", args)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
