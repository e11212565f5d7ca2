package provision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/filelock"
)

// CacheMeta is stored next to a cached root filesystem (<key>.json). Provisioning
// writes it last, so its presence marks the root filesystem as complete.
type CacheMeta struct {
	// Platform is the sandbox key, for example debian-riscv64.
	Platform string `json:"platform"`
	// Suite is the Debian suite (or the Alpine release) that was bootstrapped.
	Suite string `json:"suite,omitempty"`
	// Mirror is the archive the root filesystem came from ("" for mmdebstrap's default).
	Mirror string `json:"mirror,omitempty"`
	// Created is when the root filesystem was made.
	Created time.Time `json:"created"`
	// AptUpdated is when the package lists were last refreshed (zero: refresh next time).
	AptUpdated time.Time `json:"apt_updated,omitzero"`
	// OSID and VersionID come from the root filesystem's /etc/os-release.
	OSID      string `json:"os_id"`
	VersionID string `json:"version_id,omitempty"`
}

// CacheState says whether a cached root filesystem can be used.
type CacheState string

// The cache states.
const (
	// CacheReady: the root filesystem and its metadata are complete.
	CacheReady CacheState = "ready"
	// CacheIncomplete: something is there but not a complete root filesystem (an
	// interrupted provisioning); the next provisioning rebuilds it.
	CacheIncomplete CacheState = "incomplete"
	// CacheAbsent: nothing is cached.
	CacheAbsent CacheState = "absent"
)

// CacheInfo describes the cached root filesystem of one sandbox key.
type CacheInfo struct {
	// Key is the sandbox key (debian-riscv64, alpine-riscv64).
	Key string `json:"key"`
	// Path is the directory of the root filesystem.
	Path string `json:"path"`
	// State is ready, incomplete or absent.
	State CacheState `json:"state"`
	// Meta is the metadata of a ready root filesystem.
	Meta *CacheMeta `json:"meta,omitempty"`
	// Size is the disk space the root filesystem and any leftovers of interrupted
	// provisioning use, in bytes (hard links counted once).
	Size int64 `json:"size"`
	// Busy is set while another process holds the provisioning lock.
	Busy bool `json:"busy,omitempty"`
}

// Paths are where a platform's cached root filesystem lives.
type Paths struct {
	// Key is the sandbox key (debian-riscv64); Dir is <home>/sandboxes, which holds the
	// root filesystem (Rootfs), its metadata (Meta) and its lock file (Lock).
	Key, Dir, Rootfs, Meta, Lock string
}

// PathsFor returns where the platform's cache lives under the state home.
func PathsFor(home string, p atesor.Platform) Paths {
	key := p.SandboxKey()
	dir := filepath.Join(home, "sandboxes")
	return Paths{
		Key:    key,
		Dir:    dir,
		Rootfs: filepath.Join(dir, key),
		Meta:   filepath.Join(dir, key+".json"),
		Lock:   filepath.Join(dir, key+".lock"),
	}
}

// Ready returns the metadata of a complete cached root filesystem: the metadata reads
// and the tree is a directory. (Provisioning still checks a ready tree before reusing it.)
func (cp Paths) Ready() (CacheMeta, bool) {
	m, err := ReadMeta(cp.Meta)
	if err != nil {
		return m, false
	}
	if fi, err := os.Stat(cp.Rootfs); err != nil || !fi.IsDir() {
		return m, false
	}
	return m, true
}

// Leftovers returns the temporary directories of interrupted provisioning runs.
func (cp Paths) Leftovers() []string { return TempDirs(cp.Dir, cp.Key) }

// TempDirs returns the temporary directories (made with os.MkdirTemp(dir, "."+key+".tmp-"))
// that interrupted runs making key in dir left behind.
func TempDirs(dir, key string) []string {
	stale, _ := filepath.Glob(filepath.Join(dir, "."+key+".tmp-*"))
	return stale
}

// MarkListsStale makes the next provisioning of the platform's cache under home refresh
// its package lists (a run found them stale). A cache without metadata is left alone.
func MarkListsStale(home string, p atesor.Platform) {
	cp := PathsFor(home, p)
	if m, err := ReadMeta(cp.Meta); err == nil {
		m.AptUpdated = time.Time{}
		_ = writeMeta(cp.Meta, m)
	}
}

// ReadMeta reads a cache's metadata file.
func ReadMeta(file string) (CacheMeta, error) { return ReadJSON[CacheMeta](file) }

// ReadJSON reads the JSON value of type T that WriteJSON wrote.
func ReadJSON[T any](file string) (T, error) {
	var v T
	data, err := os.ReadFile(file)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("%s: %w", file, err)
	}
	return v, nil
}

// writeMeta writes a cache's metadata file (write it last: it marks the cache complete).
func writeMeta(file string, m CacheMeta) error { return WriteJSON(file, m) }

// lockFile takes the exclusive lock of file (see [filelock]), waiting until it is free
// or ctx ends, and returns its release.
func lockFile(ctx context.Context, file string) (func(), error) {
	return lockFileWaiting(ctx, file, nil)
}

// lockFileWaiting is lockFile calling waiting (when not nil) each time it finds the lock
// held, before it waits for it again.
func lockFileWaiting(ctx context.Context, file string, waiting func()) (func(), error) {
	l, err := filelock.AcquireWaiting(ctx, file, waiting)
	if err != nil {
		return nil, fmt.Errorf("another process is provisioning: %w", err)
	}
	return func() { _ = l.Release() }, nil
}

// lockHeld reports whether another process holds the exclusive lock on file.
func lockHeld(file string) bool { return filelock.Held(file) }

// Exists reports whether p exists (a final link counts, whatever it points to).
func Exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// diskUsage sums the allocated blocks below dir, counting each inode once.
func diskUsage(ctx context.Context, dir string, seen map[[2]uint64]bool) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			total += fi.Size()
			return nil
		}
		id := [2]uint64{uint64(st.Dev), st.Ino}
		if !seen[id] {
			seen[id] = true
			total += st.Blocks * 512
		}
		return nil
	})
	return total, err
}

// ErrCacheInUse is returned by [RemoveCache] while a sandbox instance runs on the cache.
var ErrCacheInUse = errors.New("the cached root filesystem is in use")

// CacheStatus describes the platform's cached root filesystem under the state home
// (home): ready, incomplete or absent, its metadata, the disk space it uses, and
// whether a provisioning is running. It reads without taking the provisioning lock.
// Only a cancelled ctx makes it fail; unreadable files are left out of the size.
func CacheStatus(ctx context.Context, p atesor.Platform, home string) (CacheInfo, error) {
	cp := PathsFor(home, p)
	info := CacheInfo{Key: cp.Key, Path: cp.Rootfs, State: CacheAbsent, Busy: lockHeld(cp.Lock)}
	if m, ok := cp.Ready(); ok {
		info.State, info.Meta = CacheReady, &m
	} else if Exists(cp.Rootfs) || Exists(cp.Meta) || len(cp.Leftovers()) > 0 {
		info.State = CacheIncomplete
	}
	seen := map[[2]uint64]bool{}
	for _, dir := range append([]string{cp.Rootfs}, cp.Leftovers()...) {
		n, err := diskUsage(ctx, dir, seen)
		if err != nil {
			return info, fmt.Errorf("sandbox: size of %s: %w", dir, err)
		}
		info.Size += n
	}
	return info, nil
}

// RemoveCache deletes the platform's cached root filesystem under the state home
// (home), with the leftovers of interrupted provisioning. It waits for the
// provisioning lock (another process may be making it), refuses with [ErrCacheInUse]
// while a live process runs a sandbox instance on it, and deletes the metadata first, so
// a half-deleted tree never looks ready. It reports whether there was anything to remove.
func RemoveCache(ctx context.Context, p atesor.Platform, home string) (bool, error) {
	cp := PathsFor(home, p)
	if !Exists(cp.Rootfs) && !Exists(cp.Meta) && len(cp.Leftovers()) == 0 {
		return false, nil
	}
	unlock, err := lockFile(ctx, cp.Lock)
	if err != nil {
		return false, fmt.Errorf("sandbox: lock: %w", err)
	}
	defer unlock()
	if users := LiveRuns(RunsDir(home), cp.Key); len(users) > 0 {
		return false, fmt.Errorf("sandbox: %s: %w by %s; let those runs finish first", cp.Rootfs, ErrCacheInUse, users[0])
	}
	if err := os.Remove(cp.Meta); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("sandbox: remove %s: %w", cp.Meta, err)
	}
	for _, dir := range append([]string{cp.Rootfs}, cp.Leftovers()...) {
		if err := os.RemoveAll(dir); err != nil {
			return false, fmt.Errorf("sandbox: remove %s: %w (files made by root need root to remove)", dir, err)
		}
	}
	return true, nil
}

// WriteJSON writes v as indented JSON to file atomically (see internal/atomicfile: a
// temporary file of its own, synced, renamed over file, the directory synced), so a
// reader never sees half a metadata file and two writers never share a temporary name.
func WriteJSON(file string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(file, append(data, '\n'), 0o644)
}
