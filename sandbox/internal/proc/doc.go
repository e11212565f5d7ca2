// Package proc runs the host processes behind a sandbox's commands: in a process group
// of their own, with a timeout and cancellation that kill the whole group, the output
// copied live to the caller's writers and kept in memory within a head and tail bound,
// and the exit classified (signals, faults the riscv64 emulator may have caused).
//
// It is below both the backends of package sandbox (the host and Docker backends run
// their commands through it) and the jail, which starts bwrap through it with the
// descriptors and namespaces it needs and finishes setting up the command's sandbox
// between the start and the command's first instruction ([Process.Started]). A failure
// there is a [*StartError]: the command never ran, so it may be started again.
package proc
