package sandbox

import "github.com/eclipse-atesor/atesor-go/sandbox/internal/jail"

// Limits bounds the resources of one command of the root-filesystem sandbox (the command
// and every process it starts) through a cgroup of its own, and what a run may write:
// Memory (bytes, the kernel kills a process of the command when reached), Pids (processes
// and threads at once; fork fails beyond) and Disk (bytes the run's overlay upper
// directory may hold; a command that takes it beyond is killed with a [*DiskLimitError]).
// Zero means the default (three quarters of the host's memory, 8192 processes, 32 GiB;
// the CLI sets them from [EnvMemoryLimit], [EnvPidsLimit] and [EnvDiskLimit]), a
// negative value no limit.
// The Docker backend gives its container the memory and process limits.
type Limits = jail.Limits

// DiskLimitError says that a run's sandbox holds more bytes (Used) than its disk bound
// (Limit, see [Limits]); the command that took it there was killed.
type DiskLimitError = jail.DiskLimitError

// Environment variables the CLI sets the limits from (bytes with an optional K, M, G
// suffix; a count); the library reads none of them.
const (
	EnvMemoryLimit = jail.EnvMemoryLimit
	EnvPidsLimit   = jail.EnvPidsLimit
	EnvDiskLimit   = jail.EnvDiskLimit
)

// ParseSize parses a byte count as the ATESOR_* size variables take it: "123", "512K",
// "256M", "8G" (powers of 1024), or a negative count for no bound.
func ParseSize(s string) (int64, error) { return jail.ParseSize(s) }

// IsolationCheck is one finding of [CheckIsolation]: what was checked (Name), whether it
// holds (OK), whether the root-filesystem sandbox cannot run without it (Required), and
// what was found or what to do (Detail).
type IsolationCheck = jail.IsolationCheck

// CheckIsolation checks what the root-filesystem sandbox's security model needs from
// this host: seccomp in the kernel and the filter compiled from Docker's profile
// (required), and cgroups for the per-command limits (without them commands run
// unlimited). The host tools (bwrap, slirp4netns, nsenter, ip) are checked by
// [CheckHost]. l is the limits the commands will get (zero fields: the defaults), which
// the finding states.
func CheckIsolation(l Limits) []IsolationCheck { return jail.CheckIsolation(l) }
