// Package riscvisa reads which RISC-V instruction-set extensions an ELF file was built
// for, and compares them with a platform's baseline.
//
// A distribution targets one baseline (Debian trixie: rv64gc with the lp64d ABI); a
// binary compiled with a wider -march (the vector extension, bit manipulation) runs on
// the build machine or an emulator and dies with SIGILL on the distribution's baseline
// hardware. The compiler records the -march it used in the ELF section
// .riscv.attributes (Tag_RISCV_arch), so the question can be answered from the file
// alone, without running it.
//
// The section's contents come from the build being checked and are untrusted: the
// parsers here never allocate from a length field and reject what they cannot read.
package riscvisa
