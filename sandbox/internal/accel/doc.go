// Package accel is the accelerated toolchain of the Debian root-filesystem sandbox: the
// compiler backends (cc1, cc1plus, lto1, collect2, lto-wrapper, the LTO plugin),
// binutils and Go's compile, link, asm, cgo and vet run as native x86_64 programs,
// Debian's x86_64 -> riscv64 cross builds of exactly the versions installed in the
// sandbox, in place of their emulated twins. The compilers (cc1, cc1plus, lto1) are
// wrappers that keep the emulated program at hand for the one thing a native compiler
// cannot do, loading a riscv64 GCC plugin: that compile runs emulated, every other one
// natively. [Provision] lays them out once beside the
// cached root filesystem as overlay layers (with the x86_64 loader, libraries and
// character-set converters they need, and nothing that would hide a file of the root
// filesystem); a [Run] mounts them for one sandbox instance and, after every
// package-manager command, checks the installed versions again, putting the emulated
// programs back when apt replaced the toolchain.
//
// It is a package of its own because it is an optimisation with its own invariants
// (the same compiler version writes the same bytes, so artifacts stay bit-identical;
// only programs that cannot observe the host architecture are swapped) that the
// backends and the jail need not know: a run gets a lowerdir, a toolchain report and a
// sync after package-manager commands. Reads of the run's tree go through
// [beneath.Dir], bounded, since the run's commands may have replaced any file.
package accel
