// Package sandbox runs commands on a riscv64 system and moves files in and out of it.
//
// Three backends implement [atesor.Sandbox]:
//
//   - [Rootfs], the default: a Debian (or Alpine) riscv64 root filesystem cached under the
//     state home, run through qemu-riscv64-static registered in binfmt_misc, with a
//     per-run overlay mount so that nothing a run does reaches the cache, and every command
//     entered with bwrap (cleared environment plus an allowlist, private /tmp, new pid, ipc
//     and uts namespaces, network per command).
//   - [Docker]: a riscv64 container driven through the docker CLI.
//   - [Host]: commands run on the host in a workspace directory (native riscv64 machines
//     and tests).
//
// [CacheStatus] and [RemoveCache] report on and delete the cached root filesystems (the
// CLI's sandbox status and remove); [HostTools] and [MissingHostTools] list the host
// prerequisites with the apt packages that provide them. A [Rootfs] run directory records
// its owner process, and the next [NewRootfs] removes the run directories of processes
// that died without Close.
//
// The package also verifies build outputs: [InspectELF] reads one ELF file or static
// archive with debug/elf, and [ScanArtifacts] finds every ELF artifact below a directory
// of a sandbox. [ExecRetryingFaults] reruns a command that the emulator may have killed
// and classifies the fault.
//
// Package sandboxtest provides an importable fake sandbox for other packages' tests.
package sandbox
