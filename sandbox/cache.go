package sandbox

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

// cachePaths are where a platform's cached root filesystem lives.
type cachePaths struct {
	key, dir, rootfs, meta, lock string
}

func pathsFor(home string, p atesor.Platform) cachePaths {
	key := p.SandboxKey()
	dir := filepath.Join(home, "sandboxes")
	return cachePaths{
		key:    key,
		dir:    dir,
		rootfs: filepath.Join(dir, key),
		meta:   filepath.Join(dir, key+".json"),
		lock:   filepath.Join(dir, key+".lock"),
	}
}

// ready returns the metadata of a complete cached root filesystem: the metadata reads
// and the tree is a directory. (Provisioning still checks a ready tree before reusing it.)
func (cp cachePaths) ready() (CacheMeta, bool) {
	m, err := readMeta(cp.meta)
	if err != nil {
		return m, false
	}
	if fi, err := os.Stat(cp.rootfs); err != nil || !fi.IsDir() {
		return m, false
	}
	return m, true
}

// leftovers returns the temporary directories of interrupted provisioning runs.
func (cp cachePaths) leftovers() []string { return tempDirsOf(cp.dir, cp.key) }

// tempDirsOf returns the temporary directories (made with os.MkdirTemp(dir, "."+key+".tmp-"))
// that interrupted runs making key in dir left behind.
func tempDirsOf(dir, key string) []string {
	stale, _ := filepath.Glob(filepath.Join(dir, "."+key+".tmp-*"))
	return stale
}

func readMeta(file string) (CacheMeta, error) { return readJSONFile[CacheMeta](file) }

// readJSONFile reads the JSON value of type T that writeJSONFile wrote.
func readJSONFile[T any](file string) (T, error) {
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

func writeMeta(file string, m CacheMeta) error { return writeJSONFile(file, m) }

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

// CacheStatus describes the platform's cached root filesystem under the state home
// ([WithHome]): ready, incomplete or absent, its metadata, the disk space it uses, and
// whether a provisioning is running. It reads without taking the provisioning lock.
// Only a cancelled ctx makes it fail; unreadable files are left out of the size.
func CacheStatus(ctx context.Context, p atesor.Platform, opts ...Option) (CacheInfo, error) {
	cp := pathsFor(buildOptions(opts).home, p)
	info := CacheInfo{Key: cp.key, Path: cp.rootfs, State: CacheAbsent, Busy: lockHeld(cp.lock)}
	if m, ok := cp.ready(); ok {
		info.State, info.Meta = CacheReady, &m
	} else if exists(cp.rootfs) || exists(cp.meta) || len(cp.leftovers()) > 0 {
		info.State = CacheIncomplete
	}
	seen := map[[2]uint64]bool{}
	for _, dir := range append([]string{cp.rootfs}, cp.leftovers()...) {
		n, err := diskUsage(ctx, dir, seen)
		if err != nil {
			return info, fmt.Errorf("sandbox: size of %s: %w", dir, err)
		}
		info.Size += n
	}
	return info, nil
}

func exists(p string) bool {
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

// RemoveCache deletes the platform's cached root filesystem under the state home
// ([WithHome]), with the leftovers of interrupted provisioning. It waits for the
// provisioning lock (another process may be making it), refuses with [ErrCacheInUse]
// while a live process runs a sandbox instance on it, and deletes the metadata first, so
// a half-deleted tree never looks ready. It reports whether there was anything to remove.
func RemoveCache(ctx context.Context, p atesor.Platform, opts ...Option) (bool, error) {
	o := buildOptions(opts)
	cp := pathsFor(o.home, p)
	if !exists(cp.rootfs) && !exists(cp.meta) && len(cp.leftovers()) == 0 {
		return false, nil
	}
	unlock, err := lockFile(ctx, cp.lock)
	if err != nil {
		return false, fmt.Errorf("sandbox: lock: %w", err)
	}
	defer unlock()
	if users := liveRuns(runsDir(o.home), cp.key); len(users) > 0 {
		return false, fmt.Errorf("sandbox: %s: %w by %s; let those runs finish first", cp.rootfs, ErrCacheInUse, users[0])
	}
	if err := os.Remove(cp.meta); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("sandbox: remove %s: %w", cp.meta, err)
	}
	for _, dir := range append([]string{cp.rootfs}, cp.leftovers()...) {
		if err := os.RemoveAll(dir); err != nil {
			return false, fmt.Errorf("sandbox: remove %s: %w (files made by root need root to remove)", dir, err)
		}
	}
	return true, nil
}
