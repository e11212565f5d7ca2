package jail

import (
	"os"
	"strconv"
	"strings"
)

// Spec describes one bwrap invocation.
type Spec struct {
	Root     string   // host directory mounted as /
	ReadOnly bool     // mount root read-only
	Env      []string // complete environment
	Dir      string   // working directory inside
	ROBinds  []string // extra host paths bound read-only at the same path
	caps     []string // capabilities kept (all others dropped); nil keeps dockerCaps
	// ownNetns says bwrap's own process was started in a network namespace made for the
	// command (see [Jail.Run]): bwrap then makes none and leaves its loopback alone.
	ownNetns bool
	// Descriptors of the bwrap process (0 for none): the seccomp program, where bwrap
	// reports the sandbox's pid, and what bwrap waits on before it runs the command.
	seccompFD, infoFD, blockFD int
}

// CABundleInside is where the sandbox's CA bundle lives.
const CABundleInside = "/etc/ssl/certs/ca-certificates.crt"

// readOnlyProc are /proc entries bound read-only (as Docker's readonlyPaths; bwrap's
// --proc itself covers /proc/irq and /proc/bus). They are bound from the host's /proc,
// which shows the same kernel.
var readOnlyProc = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/fs"}

// maskedProc are /proc entries Docker masks: files are covered with /dev/null,
// directories with an empty read-only tmpfs.
var maskedProc = []string{"/proc/asound", "/proc/acpi", "/proc/interrupts", "/proc/kcore", "/proc/keys",
	"/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi"}

// bwrapArgs returns the bwrap command line (without the program to run): the root
// filesystem as /, fresh /proc (kernel settings read-only, Docker's masked paths
// masked) and /dev, a private /tmp with mode 1777, new pid, ipc, uts and network
// namespaces (the network namespace holds only loopback until slirp4netns attaches; with
// ownNetns the namespace bwrap was started in is the command's),
// Docker's default capability set and nothing more, a new session, death with the
// parent, and a cleared environment plus env. bwrap sets no_new_privs itself.
func bwrapArgs(s Spec) []string {
	bind := "--bind"
	if s.ReadOnly {
		bind = "--ro-bind"
	}
	args := []string{"bwrap", bind, s.Root, "/",
		"--proc", "/proc", "--dev", "/dev",
		"--perms", "1777", "--tmpfs", "/tmp",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts"}
	if !s.ownNetns {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--hostname", "atesor-riscv64", "--new-session", "--die-with-parent", "--clearenv")
	for _, p := range readOnlyProc {
		if _, err := os.Lstat(p); err == nil {
			args = append(args, "--ro-bind", p, p)
		}
	}
	for _, p := range maskedProc {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			args = append(args, "--tmpfs", p, "--remount-ro", p)
		default:
			args = append(args, "--ro-bind", "/dev/null", p)
		}
	}
	caps := s.caps
	if caps == nil {
		caps = dockerCaps
	}
	args = append(args, "--cap-drop", "ALL")
	for _, c := range caps {
		args = append(args, "--cap-add", c)
	}
	for _, fd := range []struct {
		flag string
		fd   int
	}{{"--seccomp", s.seccompFD}, {"--info-fd", s.infoFD}, {"--block-fd", s.blockFD}} {
		if fd.fd > 0 {
			args = append(args, fd.flag, strconv.Itoa(fd.fd))
		}
	}
	for _, b := range s.ROBinds {
		args = append(args, "--ro-bind", b, b)
	}
	for _, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	if s.Dir != "" {
		args = append(args, "--chdir", s.Dir)
	}
	return args
}
