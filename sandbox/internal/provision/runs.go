package provision

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/eclipse-atesor/atesor-go/internal/procowner"
)

// OwnerFile, inside a root-filesystem sandbox's run directory, names the process that made it, so that
// the run directories of crashed processes can be found and removed.
const OwnerFile = "owner.json"

// RunOwner identifies the process that owns a run directory (see [procowner.Process]:
// the start time guards against a reused PID, the PID namespace against a process this
// one cannot see) and the cache its overlay uses.
type RunOwner struct {
	procowner.Process
	Key string `json:"key"` // the sandbox key whose cache the run's overlay uses
}

// RunsDir is the directory of the run directories under the state home.
func RunsDir(home string) string { return filepath.Join(home, "sandboxes", "runs") }

// CurrentOwner describes this process as the owner of a run on the cache of key.
func CurrentOwner(key string) RunOwner {
	return RunOwner{Process: procowner.Current(), Key: key}
}

// WriteOwner records o as the owner of the run directory runDir.
func WriteOwner(runDir string, o RunOwner) error {
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(runDir, OwnerFile), append(data, '\n'), 0o644)
}

func readOwner(runDir string) (RunOwner, error) {
	var o RunOwner
	data, err := os.ReadFile(filepath.Join(runDir, OwnerFile))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return o, fmt.Errorf("%s: %w", filepath.Join(runDir, OwnerFile), err)
	}
	return o, nil
}

// LiveRuns lists the owners of the run directories whose live processes use the cache
// of key.
func LiveRuns(runs, key string) []RunOwner {
	entries, _ := os.ReadDir(runs)
	var out []RunOwner
	for _, e := range entries {
		if o, err := readOwner(filepath.Join(runs, e.Name())); err == nil && o.Key == key && o.Alive() {
			out = append(out, o)
		}
	}
	return out
}

// CleanStaleRuns removes the run directories whose owner process is gone (it crashed or
// was killed before Close): their overlay is unmounted first, and a directory whose
// overlay stays mounted is left alone. Directories without an owner file (runs kept
// kept by the sandbox, other backends, older versions) are never touched. It returns the
// directories it removed.
func CleanStaleRuns(runs string, logger *slog.Logger) []string {
	entries, err := os.ReadDir(runs)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		dir := filepath.Join(runs, e.Name())
		o, err := readOwner(dir)
		if err != nil || o.Alive() {
			continue
		}
		merged := filepath.Join(dir, "merged")
		wasMounted := isMountPoint(merged)
		if wasMounted {
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
		// Said at warning level: a run that ends this way was killed or crashed, and the
		// user sees where its leftovers went.
		logger.Warn("sandbox: reclaimed the sandbox of a run that ended without closing it (killed or crashed)",
			"dir", dir, "owner", o.PID, "overlay_unmounted", wasMounted)
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
