// Package sandbox runs commands on a riscv64 system and moves files in and out of it.
//
// Three backends implement [atesor.Sandbox]:
//
//   - [Rootfs], the default: a Debian (or Alpine) riscv64 root filesystem cached under the
//     state home, run through qemu-riscv64-static registered in binfmt_misc, with a
//     per-run overlay mount so that nothing a run does reaches the cache, and every command
//     entered with bwrap (cleared environment plus an allowlist, private /tmp, new pid, ipc,
//     uts and network namespaces; see "Security model" below).
//   - [Docker]: a riscv64 container driven through the docker CLI.
//   - [Host]: commands run on the host in a workspace directory (native riscv64 machines
//     and tests).
//
// Constructors change nothing on the host beyond the state home and their own
// directories: registering qemu-riscv64 in binfmt_misc, which every process on the host
// sees, is [SetupBinfmt], an explicit step of the caller's (the atesor CLI takes it on
// first use; [NewRootfs], [Provision] and [NewDocker] only check it and fail with
// [ErrBinfmtMissing] without it).
//
// [CacheStatus] and [RemoveCache] report on and delete the cached root filesystems (the
// CLI's sandbox status and remove); [HostTools] and [MissingHostTools] list the host
// prerequisites with the apt packages that provide them. A [Rootfs] run directory records
// its owner process, and the next [NewRootfs] removes the run directories of processes
// that died without Close.
//
// # Accelerated toolchain
//
// For the Debian profile a [Rootfs] runs the compiler backends (cc1, cc1plus, lto1,
// collect2, lto-wrapper, the LTO plugin), binutils and Go's compile, link, asm, cgo and vet
// as native x86_64 programs: Debian's x86_64 -> riscv64 cross builds of exactly the
// versions installed in the sandbox. [ProvisionAccel] makes them once beside the cached
// root filesystem (an amd64 mmdebstrap tree of the same suite and mirror, under the same
// lock, temporary-directory and rename rules), and each run gets them as an overlay lower
// layer (Go's tools are copied in once the run installs the matching Go). The emulated
// drivers exec them; the kernel runs an x86_64 program natively. The same compiler version
// with the same input and options writes the same bytes, so artifacts are bit-identical,
// which the end-to-end tests check by SHA-256. Only programs that cannot observe the host
// architecture are swapped: uname, shells, make, cmake, configure checks and the drivers
// stay riscv64. Versions are checked from the dpkg status at start and after every
// package-manager command; when apt replaces the toolchain the run goes on with what is
// installed. [Rootfs.Toolchain] and [AccelStatus] say which toolchain runs and why;
// [WithAccel](false) turns it off.
//
// Build outputs are read through the [Gate] by package verify, which inspects the ELF
// files a build left; this package does not judge them. [ExecRetryingFaults] reruns a command that the emulator may have killed
// and classifies the fault.
//
// The jail (bwrap, seccomp, the network namespace, cgroups and limits), the provisioning
// of the cached root filesystems and the accelerated toolchain are packages of their own
// below this one (sandbox/internal/jail, provision and accel; the process runner is
// sandbox/internal/proc): internal, because an embedder reaches them through this
// package's backends, options and the few functions above, which keep their types.
//
// Package sandboxtest provides an importable fake sandbox for other packages' tests.
//
// # Security model
//
// Everything a [Rootfs] runs is untrusted: the package's build scripts and tests and
// every command a model proposes, run as root inside. The sandbox promises what a
// default Docker container promises, and more on the network:
//
//   - Privileges: Docker's default capability set without CAP_MKNOD, CAP_NET_RAW and
//     CAP_SETPCAP; no_new_privs; Docker's default seccomp profile
//     (github.com/moby/profiles/seccomp), compiled to BPF by go-seccomp-bpf and loaded by
//     bwrap --seccomp (the jail's seccompFilter says what it refuses and what qemu-user needs).
//     bwrap as real root leaves the bounding set full; no_new_privs keeps exec from
//     gaining from it.
//   - Kernel interfaces: /proc/sys, /proc/sysrq-trigger and /proc/fs read-only (bound from
//     the host's /proc, which shows the same kernel), Docker's masked /proc paths masked,
//     /sys not mounted, /dev with the usual devices only.
//   - Files: the only host-backed mounts are the run's overlay root and, for a file://
//     git source, the source's directory read-only. The CA bundle and resolv.conf are
//     copied into the overlay (through an [os.Root], so links made inside cannot
//     redirect the copy).
//   - Network: every command gets its own network namespace. Without network it has
//     loopback only. With network, slirp4netns (--disable-host-loopback) attaches to it:
//     the internet and DNS (the host's resolvers, or slirp4netns's forwarder at 10.0.2.3
//     when the host's are on loopback) work; "prohibit" routes, which the command cannot
//     remove without CAP_NET_ADMIN, keep the host's own addresses, 169.254.0.0/16 (cloud
//     metadata) and 100.100.100.200 out of reach. IPv6 is not routed.
//   - Resources: a cgroup per command (v2 with delegated memory and pids controllers, or
//     v1 memory and pids hierarchies) with [Limits], and an error that names the limit
//     hit; the first [OutputHead] and last [OutputTail] bytes of each output stream kept
//     in memory, all of it to the command's live writers; a tarball copied in is
//     unpacked within the extraction bounds (ATESOR_EXTRACT_MAX_BYTES and
//     ATESOR_EXTRACT_MAX_ENTRIES), and so is a directory's total size.
//
// It does not promise protection from a kernel exploit (the kernel is shared, as with a
// container), nor anything for the [Host] backend, which runs commands on the host
// (--unsafe-host in the CLI). The [Docker] backend runs its container with the same
// capability set, no-new-privileges, Docker's default seccomp profile and the limits;
// its network is Docker's bridge.
package sandbox
