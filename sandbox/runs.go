package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ownerFile, inside a [Rootfs] run directory, names the process that made it, so that
// the run directories of crashed processes can be found and removed.
const ownerFile = "owner.json"

// runOwner identifies the process that owns a run directory. The start time guards
// against a reused PID; the PID namespace against a process this one cannot see.
type runOwner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // clock ticks after boot, /proc/<pid>/stat field 22
	PIDNS string `json:"pidns"` // the /proc/self/ns/pid link, for example pid:[4026531836]
	Key   string `json:"key"`   // the sandbox key whose cache the run's overlay uses
}

func runsDir(home string) string { return filepath.Join(home, "sandboxes", "runs") }

// currentOwner describes this process as the owner of a run on the cache of key.
func currentOwner(key string) runOwner {
	pid := os.Getpid()
	start, _ := procStart(pid)
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return runOwner{PID: pid, Start: start, PIDNS: ns, Key: key}
}

func writeOwner(runDir string, o runOwner) error {
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(runDir, ownerFile), append(data, '\n'), 0o644)
}

func readOwner(runDir string) (runOwner, error) {
	var o runOwner
	data, err := os.ReadFile(filepath.Join(runDir, ownerFile))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return o, fmt.Errorf("%s: %w", filepath.Join(runDir, ownerFile), err)
	}
	return o, nil
}

// procStart returns the start time of a process (field 22 of /proc/<pid>/stat).
func procStart(pid int) (uint64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces and parentheses: cut at the last ')'.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	const startField = 22 - 3 // fields after the name start with field 3
	if len(fields) <= startField {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields)+2)
	}
	return strconv.ParseUint(fields[startField], 10, 64)
}

// alive reports whether the owner may still be running. An owner in another PID
// namespace cannot be checked and counts as alive.
func (o runOwner) alive() bool {
	if ns, _ := os.Readlink("/proc/self/ns/pid"); ns == "" || o.PIDNS != ns {
		return true
	}
	start, err := procStart(o.PID)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	return start == o.Start
}

func (o runOwner) String() string { return fmt.Sprintf("process %d", o.PID) }

// liveRuns lists the owners of the run directories whose live processes use the cache
// of key.
func liveRuns(runs, key string) []runOwner {
	entries, _ := os.ReadDir(runs)
	var out []runOwner
	for _, e := range entries {
		if o, err := readOwner(filepath.Join(runs, e.Name())); err == nil && o.Key == key && o.alive() {
			out = append(out, o)
		}
	}
	return out
}

// cleanStaleRuns removes the run directories whose owner process is gone (it crashed or
// was killed before Close): their overlay is unmounted first, and a directory whose
// overlay stays mounted is left alone. Directories without an owner file (runs kept
// with [WithKeep], other backends, older versions) are never touched. It returns the
// directories it removed.
func cleanStaleRuns(runs string, logger *slog.Logger) []string {
	entries, err := os.ReadDir(runs)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		dir := filepath.Join(runs, e.Name())
		o, err := readOwner(dir)
		if err != nil || o.alive() {
			continue
		}
		merged := filepath.Join(dir, "merged")
		if isMountPoint(merged) {
			_ = syscall.Unmount(merged, syscall.MNT_DETACH)
			if isMountPoint(merged) {
				logger.Warn("sandbox: a stale run's overlay is still mounted; leaving it", "dir", dir, "owner", o.PID)
				continue
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			logger.Warn("sandbox: could not remove a stale run directory", "dir", dir, "err", err)
			continue
		}
		logger.Info("sandbox: removed the run directory of a process that is gone", "dir", dir, "owner", o.PID)
		removed = append(removed, dir)
	}
	return removed
}

// isMountPoint reports whether dir is a mount point of this mount namespace.
func isMountPoint(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && unescapeMountinfo(f[4]) == real {
			return true
		}
	}
	return false
}

// unescapeMountinfo decodes the octal escapes (\040 for a space, ...) of a mountinfo path.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
