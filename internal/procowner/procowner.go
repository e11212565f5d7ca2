package procowner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Process identifies a process across PID reuse.
type Process struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // clock ticks after boot, /proc/<pid>/stat field 22
	PIDNS string `json:"pidns"` // the /proc/self/ns/pid link, for example pid:[4026531836]
}

// Current describes this process.
func Current() Process {
	pid := os.Getpid()
	start, _ := StartTime(pid)
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return Process{PID: pid, Start: start, PIDNS: ns}
}

// Alive reports whether the process may still be running: it is, or it cannot be told
// (another PID namespace, an unreadable /proc). Only a process known to be gone is not.
func (p Process) Alive() bool {
	if ns, _ := os.Readlink("/proc/self/ns/pid"); ns == "" || p.PIDNS != ns {
		return true
	}
	start, err := StartTime(p.PID)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	return start == p.Start
}

func (p Process) String() string { return fmt.Sprintf("process %d", p.PID) }

// StartTime returns the start time of a process (field 22 of /proc/<pid>/stat).
func StartTime(pid int) (uint64, error) {
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

// File is the name of the owner file [MkdirTemp] writes into the directories it makes.
const File = ".atesor-owner.json"

// MkdirTemp makes a temporary directory as [os.MkdirTemp] does and records this process
// as its owner, so that [RemoveStale] can remove it once this process is gone.
func MkdirTemp(dir, pattern string) (string, error) {
	tmp, err := os.MkdirTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(Current())
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, File), append(data, '\n'), 0o644)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("record the owner of %s: %w", tmp, err)
	}
	return tmp, nil
}

// Read returns the owner recorded in dir by [MkdirTemp].
func Read(dir string) (Process, error) {
	var p Process
	data, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("%s: %w", filepath.Join(dir, File), err)
	}
	return p, nil
}

// Stale is a directory [RemoveStale] removed, with the process that had owned it.
type Stale struct {
	Dir   string
	Owner Process
}

// RemoveStale removes the directories matching pattern (a [filepath.Glob] pattern)
// whose recorded owner is gone. Directories without an owner file, or whose owner may
// be alive, are left alone. It returns what it removed and the errors of what it could
// not remove.
func RemoveStale(pattern string) ([]Stale, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	var removed []Stale
	var errs []error
	for _, dir := range matches {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		owner, err := Read(dir)
		if err != nil || owner.Alive() {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, Stale{Dir: dir, Owner: owner})
	}
	return removed, errors.Join(errs...)
}
