package jail

import (
	"fmt"
	"os"
	"strings"
)

// IsolationCheck is one finding of [CheckIsolation].
type IsolationCheck struct {
	// Name says what was checked.
	Name string
	// OK is false when the rootfs sandbox cannot run (Required) or runs weaker.
	OK bool
	// Required marks a check whose failure stops the rootfs sandbox.
	Required bool
	// Detail says what was found, or why it failed and what to do.
	Detail string
}

// CheckIsolation checks what the rootfs sandbox's security model needs from this host:
// seccomp in the kernel and the filter compiled from Docker's profile (required), and
// cgroups for the per-command limits (without them commands run unlimited). The host
// tools (bwrap, slirp4netns, nsenter, ip) are checked by the sandbox package's
// CheckHost. l is the limits the commands will get (zero fields: the defaults, see
// [Limits.Resolve]), which the finding states.
func CheckIsolation(l Limits) []IsolationCheck {
	var out []IsolationCheck
	sc := IsolationCheck{Name: "seccomp filter", Required: true}
	if status, err := os.ReadFile("/proc/self/status"); err != nil || !strings.Contains(string(status), "\nSeccomp:") {
		sc.Detail = "the kernel has no seccomp (no Seccomp: line in /proc/self/status); use a kernel built with CONFIG_SECCOMP_FILTER"
	} else if f, err := seccompFilter(dockerCaps); err != nil {
		sc.Detail = err.Error()
	} else {
		sc.OK, sc.Detail = true, fmt.Sprintf("Docker's default profile, %d BPF instructions", len(f)/8)
	}
	out = append(out, sc)
	lim := IsolationCheck{Name: "per-command limits"}
	if where, err := limitsStatus(); err != nil {
		lim.Detail = "commands run without memory and process limits: " + err.Error()
	} else {
		eff := l.Resolve()
		lim.OK, lim.Detail = true, fmt.Sprintf("%d MiB and %d processes per command (%s, %s), through %s", eff.Memory>>20, eff.Pids, EnvMemoryLimit, EnvPidsLimit, where)
	}
	return append(out, lim)
}
