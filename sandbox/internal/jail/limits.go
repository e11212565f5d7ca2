package jail

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/bytesize"
	"github.com/eclipse-atesor/atesor-go/internal/procowner"
)

// Limits bounds the resources of one command of the rootfs sandbox (the command and
// every process it starts), through a cgroup of its own. Zero means the default, a
// negative value no limit.
type Limits struct {
	// Memory is the most memory, in bytes, the command's processes may use together;
	// the kernel kills a process of the command when it is reached.
	Memory int64
	// Pids is the most processes and threads the command may have at once; fork fails
	// beyond it.
	Pids int64
	// Disk is the most bytes the run's overlay upper directory (everything the run
	// wrote: the source, the build tree, installed packages) may hold, for the
	// root-filesystem sandbox. A command that takes it beyond is killed with a
	// [*DiskLimitError] (see the root-filesystem sandbox's Exec).
	Disk int64
}

// Environment variables the command line sets the limits from (bytes with an optional
// K, M, G suffix; a count); the library reads none of them.
const (
	EnvMemoryLimit = "ATESOR_SANDBOX_MEMORY"
	EnvPidsLimit   = "ATESOR_SANDBOX_PIDS"
	EnvDiskLimit   = "ATESOR_SANDBOX_DISK"
)

// defaultDisk is the default bound of a run's upper directory: far above what a build
// under emulation writes (a large C++ project with its objects is a few GiB), far below
// a host disk. The root-filesystem sandbox also keeps it below the free space of the disk it writes on.
const defaultDisk = 32 << 30

// defaultPids is the default process limit: far above what a parallel build under
// qemu-user needs (threads count), far below what exhausts the host.
const defaultPids = 8192

// defaultLimits returns the limits a zero field stands for: three quarters of the host's
// memory, 8192 processes and 32 GiB of disk.
func defaultLimits() Limits {
	return Limits{Pids: defaultPids, Memory: hostMemory() / 4 * 3, Disk: defaultDisk}
}

// Resolve fills zero fields from the defaults.
func (l Limits) Resolve() Limits {
	d := defaultLimits()
	if l.Memory == 0 {
		l.Memory = d.Memory
	}
	if l.Pids == 0 {
		l.Pids = d.Pids
	}
	if l.Disk == 0 {
		l.Disk = d.Disk
	}
	return l
}

// ParseSize parses a byte count as the ATESOR_* size variables take it: "123", "512K",
// "256M", "8G" (powers of 1024), or a negative count for no bound.
func ParseSize(s string) (int64, error) { return bytesize.Parse(s) }

// hostMemory returns MemTotal in bytes, or 0 when unknown.
func hostMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cgroupHier is where this process's cgroups of the memory and pids controllers are: one
// cgroup v2 directory for both, or one cgroup v1 directory each.
type cgroupHier struct {
	v2     bool
	memory string // directory of this process's cgroup in the memory hierarchy
	pids   string
}

// findCgroups locates this process's cgroups from /proc/self/mountinfo and
// /proc/self/cgroup. On cgroup v2 the memory and pids controllers must be delegated to
// the process's cgroup's children (cgroup.subtree_control). It returns an error that
// says why limits are not available.
func findCgroups() (cgroupHier, error) {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return cgroupHier{}, err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return cgroupHier{}, err
	}
	return parseCgroups(string(mounts), string(own), func(p string) ([]byte, error) { return os.ReadFile(p) })
}

func parseCgroups(mountinfo, self string, read func(string) ([]byte, error)) (cgroupHier, error) {
	v1 := map[string]string{} // controller -> mount point
	v2mount := ""
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, pf := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(pf) < 3 {
			continue
		}
		switch pf[0] {
		case "cgroup2":
			if v2mount == "" {
				v2mount = f[4]
			}
		case "cgroup":
			for _, opt := range strings.Split(pf[2], ",") {
				if opt == "memory" || opt == "pids" {
					v1[opt] = f[4]
				}
			}
		}
	}
	paths := map[string]string{} // controller ("" for v2) -> path
	for _, line := range strings.Split(strings.TrimSpace(self), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			paths[c] = parts[2]
		}
	}
	if v1["memory"] != "" && v1["pids"] != "" && paths["memory"] != "" && paths["pids"] != "" {
		return cgroupHier{memory: filepath.Join(v1["memory"], paths["memory"]), pids: filepath.Join(v1["pids"], paths["pids"])}, nil
	}
	if v2mount != "" && paths[""] != "" {
		dir := filepath.Join(v2mount, paths[""])
		ctl, err := read(filepath.Join(dir, "cgroup.subtree_control"))
		if err != nil {
			return cgroupHier{}, fmt.Errorf("cgroup v2 at %s: %w", dir, err)
		}
		have := strings.Fields(string(ctl))
		if !containsName(have, "memory") || !containsName(have, "pids") {
			return cgroupHier{}, fmt.Errorf("cgroup v2: the memory and pids controllers are not delegated to %s (cgroup.subtree_control has %q); run atesor in a cgroup that delegates them, for example with systemd-run --scope -p Delegate=yes", dir, strings.TrimSpace(string(ctl)))
		}
		return cgroupHier{v2: true, memory: dir, pids: dir}, nil
	}
	return cgroupHier{}, errors.New("no cgroup v2 and no cgroup v1 memory and pids hierarchies are mounted")
}

// limitsStatus says whether and how per-command limits are enforced on this host.
func limitsStatus() (string, error) {
	h, err := findCgroups()
	if err != nil {
		return "", err
	}
	if h.v2 {
		return "cgroup v2 at " + h.memory, nil
	}
	return "cgroup v1 memory at " + h.memory + ", pids at " + h.pids, nil
}

var cgroupSeq atomic.Int64

// commandCgroup is the cgroup (one directory per hierarchy) of one command.
type commandCgroup struct {
	h      cgroupHier
	dirs   []string
	limits Limits
}

// newCommandCgroup makes the cgroup of one command with the limits (negative fields are
// not set).
func newCommandCgroup(h cgroupHier, l Limits) (*commandCgroup, error) {
	name := fmt.Sprintf("atesor-%d-%d-%d", cgroupOwner.PID, cgroupOwner.Start, cgroupSeq.Add(1))
	c := &commandCgroup{h: h, limits: l}
	dirs := []string{filepath.Join(h.memory, name)}
	if !h.v2 {
		dirs = append(dirs, filepath.Join(h.pids, name))
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			c.remove()
			return nil, fmt.Errorf("sandbox: make the command's cgroup: %w", err)
		}
		c.dirs = append(c.dirs, d)
	}
	memFile, memDir, pidsDir := "memory.max", dirs[0], dirs[0]
	if !h.v2 {
		memFile, pidsDir = "memory.limit_in_bytes", dirs[1]
	}
	var errs []error
	if l.Memory > 0 {
		errs = append(errs, os.WriteFile(filepath.Join(memDir, memFile), []byte(strconv.FormatInt(l.Memory, 10)), 0))
		if h.v2 {
			// No swap beyond the limit, so the limit is what the command gets.
			_ = os.WriteFile(filepath.Join(memDir, "memory.swap.max"), []byte("0"), 0)
		}
	}
	if l.Pids > 0 {
		errs = append(errs, os.WriteFile(filepath.Join(pidsDir, "pids.max"), []byte(strconv.FormatInt(l.Pids, 10)), 0))
	}
	if err := errors.Join(errs...); err != nil {
		c.remove()
		return nil, fmt.Errorf("sandbox: set the command's limits: %w", err)
	}
	return c, nil
}

// add moves the processes into the cgroup.
func (c *commandCgroup) add(pids ...int) error {
	for _, d := range c.dirs {
		for _, pid := range pids {
			if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("sandbox: move process %d into %s: %w", pid, d, err)
			}
		}
	}
	return nil
}

// counter reads "key value" lines of a cgroup file and returns the value of key.
func counter(path, key string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == key {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}

// annotate says in the result which limit the command hit, and how to raise it.
func (c *commandCgroup) annotate(res *atesor.CommandResult) {
	memEvents, pidsEvents := filepath.Join(c.dirs[0], "memory.events"), filepath.Join(c.dirs[0], "pids.events")
	if !c.h.v2 {
		memEvents, pidsEvents = filepath.Join(c.dirs[0], "memory.oom_control"), filepath.Join(c.dirs[1], "pids.events")
	}
	var msg string
	if c.limits.Memory > 0 && counter(memEvents, "oom_kill") > 0 {
		msg += fmt.Sprintf("\n[atesor] the command reached its memory limit of %d MiB and the kernel killed a process of it; raise the limit with %s (for example %s=16G) or sandbox.WithLimits\n",
			c.limits.Memory>>20, EnvMemoryLimit, EnvMemoryLimit)
	}
	if c.limits.Pids > 0 && counter(pidsEvents, "max") > 0 {
		msg += fmt.Sprintf("\n[atesor] the command reached its process limit of %d processes and threads, so a fork failed; raise the limit with %s or sandbox.WithLimits\n",
			c.limits.Pids, EnvPidsLimit)
	}
	if msg == "" {
		return
	}
	res.Output += msg
	res.Stderr += msg
	if res.ExitCode == 0 {
		res.ExitCode = 1
	}
}

// remove kills what is left in the cgroup and removes it.
func (c *commandCgroup) remove() {
	for _, d := range c.dirs {
		for i := 0; i < 50; i++ {
			if err := os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			if data, err := os.ReadFile(filepath.Join(d, "cgroup.procs")); err == nil {
				for _, f := range strings.Fields(string(data)) {
					if pid, err := strconv.Atoi(f); err == nil {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// cgroupOwner is this process, whose PID and start time name its command cgroups, so
// that a later process can tell them from a live process's (see [removeStaleCgroups]).
var cgroupOwner = procowner.Current()

// cgroupOwnerOf returns the process that made a command cgroup, from its name
// (atesor-PID-START-SEQ; older versions named them atesor-PID-SEQ, whose owner is known
// by PID only, with an unknown start time of 0).
func cgroupOwnerOf(name string) (procowner.Process, bool) {
	f := strings.Split(strings.TrimPrefix(name, "atesor-"), "-")
	if !strings.HasPrefix(name, "atesor-") || len(f) < 2 || len(f) > 3 {
		return procowner.Process{}, false
	}
	nums := make([]uint64, len(f))
	for i, s := range f {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return procowner.Process{}, false
		}
		nums[i] = n
	}
	p := procowner.Process{PID: int(nums[0]), PIDNS: cgroupOwner.PIDNS}
	if len(f) == 3 {
		p.Start = nums[1]
	}
	return p, p.PID > 0
}

// cgroupGone reports whether the process that made a command cgroup is gone.
func cgroupGone(p procowner.Process) bool {
	if p.Start == 0 {
		// An older name: only a PID that no process has is known to be gone.
		return syscall.Kill(p.PID, 0) == syscall.ESRCH
	}
	return !p.Alive()
}

// removeStaleCgroups removes the command cgroups of processes that are gone (killed or
// crashed while a command ran; a cgroup that still holds processes cannot be removed and
// stays), and says so. It returns how many it removed.
func removeStaleCgroups(h cgroupHier, logger *slog.Logger) int {
	n := 0
	for _, dir := range []string{h.memory, h.pids} {
		if dir == "" {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "atesor-*"))
		for _, m := range matches {
			owner, ok := cgroupOwnerOf(filepath.Base(m))
			if !ok || !cgroupGone(owner) {
				continue
			}
			if err := os.Remove(m); err == nil {
				n++
				logger.Warn("sandbox: removed the command cgroup of a run that ended without removing it (killed or crashed)", "cgroup", m, "owner", owner.PID)
			}
		}
	}
	return n
}
