// Package provision makes and keeps the cached riscv64 root filesystems the sandbox's
// runs start from: bootstrapped once (mmdebstrap for Debian, the minirootfs and apk for
// Alpine) in a temporary directory renamed into place only when complete, checked
// before each reuse, its package lists refreshed when old, all under a lock file whose
// holder says what it is doing to the processes waiting for it. It also records which
// live runs use a cache (the owner file of each run directory), so that nothing is
// rebuilt or removed under a mounted overlay, and reclaims the run directories of
// processes that died.
//
// It is a package of its own because a cache outlives every run and is shared by
// processes: its rules (locking, completeness marked by the metadata written last, no
// rebuild while in use) are one concern apart from running commands in an instance.
// It changes nothing on the host beyond the state home: the host checks it needs
// (tools, binfmt_misc) are its caller's ([Config.CheckHost], [Config.CheckBinfmt]).
// The accelerator layers kept beside a cache use its paths, lock and reporting.
package provision
