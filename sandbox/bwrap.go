package sandbox

import (
	"os"
	"strings"
)

// bwrapSpec describes one bwrap invocation.
type bwrapSpec struct {
	root     string   // host directory mounted as /
	readOnly bool     // mount root read-only
	network  bool     // keep the host network (else a new, empty network namespace)
	caBundle string   // host CA bundle bound over the sandbox's, "" for none
	env      []string // complete environment
	dir      string   // working directory inside
	roBinds  []string // extra host paths bound read-only at the same path
}

// caInside is where the sandbox's CA bundle lives.
const caInside = "/etc/ssl/certs/ca-certificates.crt"

// bwrapArgs returns the bwrap command line (without the program to run): the root
// filesystem as /, fresh /proc and /dev, a private /tmp with mode 1777, new pid, ipc and
// uts namespaces (and network unless wanted), a new session, death with the parent, and
// a cleared environment plus env.
func bwrapArgs(s bwrapSpec) []string {
	bind := "--bind"
	if s.readOnly {
		bind = "--ro-bind"
	}
	args := []string{"bwrap", bind, s.root, "/",
		"--proc", "/proc", "--dev", "/dev",
		"--perms", "1777", "--tmpfs", "/tmp",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", "atesor-riscv64",
		"--new-session", "--die-with-parent", "--clearenv"}
	if !s.network {
		args = append(args, "--unshare-net")
	} else if _, err := os.Stat("/etc/resolv.conf"); err == nil {
		args = append(args, "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf")
	}
	if s.caBundle != "" && !s.readOnly {
		if _, err := os.Stat(s.caBundle); err == nil {
			args = append(args, "--ro-bind", s.caBundle, caInside)
		}
	}
	for _, b := range s.roBinds {
		args = append(args, "--ro-bind", b, b)
	}
	for _, kv := range s.env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	if s.dir != "" {
		args = append(args, "--chdir", s.dir)
	}
	return args
}
