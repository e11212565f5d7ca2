package sandbox

import (
	"context"
	"fmt"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

// DefaultSuite is the Debian suite of the root filesystem.
const DefaultSuite = provision.DefaultSuite

// Progress is one step of a long sandbox operation (provisioning), reported to the
// callback given with [WithProgress]: a short machine-readable Stage (check, binfmt,
// lock, bootstrap, verify, apt-update, ready, and accel-… for the accelerated
// toolchain), a human Message (for example a line of mmdebstrap's output), and the
// Elapsed time since the operation started.
type Progress = provision.Progress

// CacheMeta is stored next to a cached root filesystem (<key>.json); provisioning writes
// it last, so its presence marks the root filesystem as complete. It records the sandbox
// key (Platform), the Suite (or Alpine release) and Mirror it was made from, when it was
// made (Created) and its package lists refreshed (AptUpdated), and the OSID and
// VersionID of its /etc/os-release.
type CacheMeta = provision.CacheMeta

// CacheState says whether a cached root filesystem (or the accelerator's layers) can be
// used: [CacheReady], [CacheIncomplete] (an interrupted provisioning; the next one
// rebuilds it) or [CacheAbsent].
type CacheState = provision.CacheState

// The cache states.
const (
	CacheReady      = provision.CacheReady
	CacheIncomplete = provision.CacheIncomplete
	CacheAbsent     = provision.CacheAbsent
)

// CacheInfo describes the cached root filesystem of one sandbox key: its Key, the Path
// of the tree, its State, the Meta of a ready one, the disk Size it and the leftovers of
// interrupted provisioning use (hard links counted once), and whether another process
// holds the provisioning lock (Busy).
type CacheInfo = provision.CacheInfo

// ErrCacheInUse is returned by [RemoveCache] (and by provisioning that would have to
// rebuild) while a sandbox instance runs on the cache.
var ErrCacheInUse = provision.ErrCacheInUse

// Provision makes sure the cached riscv64 root filesystem of the platform exists under
// the state home (<home>/sandboxes/<profile>-riscv64/) and returns its directory. It
// checks the host prerequisites and that qemu-riscv64 is registered in binfmt_misc (it
// registers nothing: that is [SetupBinfmt], an explicit step), and then, under a lock
// file so that two processes never build it twice, reuses a complete cache after
// checking it (uname -m is riscv64 and /etc/os-release matches the profile; apt lists
// are refreshed when older than a day), or builds it in a temporary directory that is
// renamed into place only when complete. Steps are reported through [WithProgress].
func Provision(ctx context.Context, p atesor.Platform, opts ...Option) (string, error) {
	return provision.Rootfs(ctx, p, buildOptions(opts).provisionConfig())
}

// CacheStatus describes the platform's cached root filesystem under the state home
// ([WithHome]): ready, incomplete or absent, its metadata, the disk space it uses, and
// whether a provisioning is running. It reads without taking the provisioning lock.
// Only a cancelled ctx makes it fail; unreadable files are left out of the size.
func CacheStatus(ctx context.Context, p atesor.Platform, opts ...Option) (CacheInfo, error) {
	return provision.CacheStatus(ctx, p, buildOptions(opts).home)
}

// RemoveCache deletes the platform's cached root filesystem under the state home
// ([WithHome]), with the leftovers of interrupted provisioning. It waits for the
// provisioning lock (another process may be making it), refuses with [ErrCacheInUse]
// while a live process runs a sandbox instance on it, and deletes the metadata first, so
// a half-deleted tree never looks ready. It reports whether there was anything to remove.
func RemoveCache(ctx context.Context, p atesor.Platform, opts ...Option) (bool, error) {
	return provision.RemoveCache(ctx, p, buildOptions(opts).home)
}

// provisionConfig is what provisioning takes from the options.
func (o *options) provisionConfig() provision.Config {
	return provision.Config{Home: o.home, Suite: o.suite, Mirror: o.mirror,
		AlpineMirror: o.alpineMirror, AlpineVersion: o.alpineVersion,
		Progress: o.progress, Logger: o.logger, Jail: o.jailConfig(),
		CheckHost: CheckHost, CheckBinfmt: checkBinfmt}
}

// checkBinfmt says whether qemu-riscv64 is registered in binfmt_misc the way the
// root-filesystem sandbox needs it (enabled, with the F flag, so the interpreter is
// found from inside the sandbox's own root). It changes nothing on the host.
func checkBinfmt() error {
	s := ReadBinfmt()
	if s.Mounted && s.Registered && s.Enabled && s.Fixed() {
		return nil
	}
	return fmt.Errorf("sandbox: the root-filesystem sandbox needs qemu-riscv64 registered and enabled in binfmt_misc with the F flag "+
		"(mounted=%v registered=%v enabled=%v flags=%q): %w; register it first with sandbox.SetupBinfmt (as root; the atesor CLI does), "+
		"or run: update-binfmts --enable qemu-riscv64", s.Mounted, s.Registered, s.Enabled, s.Flags, ErrBinfmtMissing)
}
