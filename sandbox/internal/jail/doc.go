// Package jail enters a command into a riscv64 root filesystem on this host and holds it
// there: bwrap with Docker's capability set and no_new_privs, Docker's default seccomp
// profile compiled to BPF, read-only and masked kernel interfaces, new pid, ipc, uts and
// network namespaces (slirp4netns behind the network namespace when the command wants
// network, with the host's own and link-local addresses routed to nowhere), the host's
// CA bundle and resolver configuration copied in rather than bound, a cgroup per command
// with memory and process limits, and a bound on what a run writes.
//
// It is a package of its own because it is the security boundary of the
// root-filesystem sandbox: everything it does is about what an untrusted command can
// reach, and keeping it apart from the backends, the provisioning of root filesystems
// and the accelerated toolchain (which all run commands through it) keeps that boundary
// small enough to review. It knows nothing of a sandbox instance: it takes a root
// directory, an environment and a command line ([Command]), and the logger, limits and
// CA bundle of its caller ([Config]).
package jail
