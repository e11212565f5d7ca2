package jail

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"

	bpfseccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// dockerCaps is the capability set of a command in the rootfs sandbox: Docker's default
// set without CAP_MKNOD, CAP_NET_RAW (no build needs device nodes or raw sockets) and
// CAP_SETPCAP. Everything else, CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH (open_by_handle_at),
// CAP_NET_ADMIN, CAP_SYS_PTRACE, CAP_SYS_MODULE, CAP_SYS_RAWIO, ..., is dropped from the
// effective, permitted, inheritable and ambient sets. bwrap running as real root leaves
// the bounding set alone; no_new_privs (which bwrap sets) is what keeps an exec from
// gaining capabilities back from it, and without CAP_SETPCAP the inheritable set cannot
// be raised toward it either. apt and dpkg need CHOWN, DAC_OVERRIDE, FOWNER, FSETID,
// SETUID and SETGID (the _apt user), SETFCAP (packages that ship file capabilities) and
// KILL.
var dockerCaps = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SYS_CHROOT",
	"CAP_NET_BIND_SERVICE", "CAP_AUDIT_WRITE",
}

// seccompFilter returns the seccomp program that bwrap loads with --seccomp (an array of
// struct sock_filter, in the host's byte order) for a process with the capability set
// caps. It is Docker's default profile ([mobyseccomp.DefaultProfile], resolved for caps,
// the host's architecture and kernel by the profile library itself) compiled to BPF by
// go-seccomp-bpf: an allowlist whose default answer is EPERM, with Docker's argument
// conditions (clone without namespace flags, socket families, personality values), and
// ENOSYS for clone3 so that glibc falls back to clone, whose flags the filter can see.
// Other architectures' system calls (i386 through int 0x80, x32) are refused.
//
// What this denies, as Docker does: open_by_handle_at and name_to_handle_at, the mount
// family (mount, umount2, pivot_root, fsopen, fsmount, move_mount, open_tree), unshare
// and setns and namespace flags of clone, kexec_load, init_module and delete_module,
// bpf, perf_event_open, add_key, request_key and keyctl, userfaultfd, ptrace,
// process_vm_readv/writev, iopl/ioperm, swapon/swapoff, reboot, acct, settimeofday, ...
//
// The filter is inherited by qemu-riscv64, which the kernel runs (binfmt_misc) for every
// riscv64 program and which turns the guest's system calls into host ones. What qemu-user
// itself needs is all inside Docker's allowlist (which is why multi-arch Docker builds
// work under the default profile): mmap, mprotect, munmap, mremap, madvise and brk for
// the guest address space and its translated-code buffer; rt_sigaction,
// rt_sigprocmask, sigaltstack, rt_sigreturn, tgkill and gettid for guest signals; clone
// (threads and fork of the guest; clone3 answers ENOSYS and qemu falls back), futex,
// set_robust_list, set_tid_address, arch_prctl and prctl; execve and execveat (guest
// programs exec'd through binfmt_misc); openat, readlinkat and fstat (/proc/self/exe,
// /proc/self/maps), getrandom, membarrier, and the guest's own calls translated 1:1.
func seccompFilter(caps []string) ([]byte, error) {
	goarch := runtime.GOARCH
	info, err := archInfo(goarch)
	if err != nil {
		return nil, err
	}
	spec := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: caps}}}
	prof, err := mobyseccomp.GetDefaultProfile(spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp: Docker's default profile: %w", err)
	}
	policy, err := policyFromProfile(prof, info)
	if err != nil {
		return nil, err
	}
	insts, err := assemble(policy)
	if err != nil {
		return nil, err
	}
	raw, err := assembleRaw(insts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, r := range raw {
		_ = binary.Write(&buf, binary.NativeEndian, r)
	}
	return buf.Bytes(), nil
}

// assemble compiles the policy. go-seccomp-bpf accepts only bare actions as the default
// (an errno rides in SECCOMP_RET_DATA), so the policy is compiled with SECCOMP_RET_TRAP,
// which no rule of the profile uses, as the default, and the default's return
// instructions are then given the real action.
func assemble(p *bpfseccomp.Policy) ([]bpf.Instruction, error) {
	def := p.DefaultAction
	for _, g := range p.Syscalls {
		if g.Action == bpfseccomp.ActionTrap {
			return nil, errors.New("sandbox: seccomp: the profile uses SECCOMP_RET_TRAP")
		}
	}
	q := *p
	q.DefaultAction = bpfseccomp.ActionTrap
	insts, err := q.Assemble()
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp: compile the filter: %w", err)
	}
	for i, in := range insts {
		if rc, ok := in.(bpf.RetConstant); ok && rc.Val == uint32(bpfseccomp.ActionTrap) {
			insts[i] = bpf.RetConstant{Val: uint32(def)}
		}
	}
	return insts, nil
}

// archInfo returns go-seccomp-bpf's system call table of a Go architecture.
func archInfo(goarch string) (*arch.Info, error) {
	name := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i386", "arm": "arm"}[goarch]
	if name == "" {
		return nil, fmt.Errorf("sandbox: seccomp: no system call table for %s; the rootfs sandbox needs an amd64 or arm64 host", goarch)
	}
	info, err := arch.GetInfo(name)
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp: %w", err)
	}
	return info, nil
}

// policyFromProfile turns a resolved Docker profile into a go-seccomp-bpf policy for
// the architecture: one group per action (first match wins, so the conditional and
// errno rules come before the plain allowlist). Names the architecture does not have
// (other architectures' calls, calls newer than the table) are left out, which refuses
// them; a condition go-seccomp-bpf cannot express is an error, never a weaker filter.
func policyFromProfile(prof *specs.LinuxSeccomp, info *arch.Info) (*bpfseccomp.Policy, error) {
	def, err := action(prof.DefaultAction, prof.DefaultErrnoRet)
	if err != nil {
		return nil, err
	}
	type key struct {
		act bpfseccomp.Action
	}
	groups := map[key]*bpfseccomp.SyscallGroup{}
	var order []key
	plain := map[string]bool{} // names allowed without conditions
	for _, sc := range prof.Syscalls {
		if len(sc.Args) == 0 && sc.Action == specs.ActAllow {
			for _, n := range sc.Names {
				plain[n] = true
			}
		}
	}
	for _, sc := range prof.Syscalls {
		act, err := action(sc.Action, sc.ErrnoRet)
		if err != nil {
			return nil, err
		}
		k := key{act}
		g := groups[k]
		if g == nil {
			g = &bpfseccomp.SyscallGroup{Action: act}
			groups[k] = g
			order = append(order, k)
		}
		conds, err := conditions(sc.Args)
		if err != nil {
			return nil, fmt.Errorf("sandbox: seccomp: %v: %w", sc.Names, err)
		}
		for _, n := range sc.Names {
			if _, ok := info.SyscallNames[n]; !ok {
				continue
			}
			switch {
			case len(conds) == 0:
				if !containsName(g.Names, n) {
					g.Names = append(g.Names, n)
				}
			case act == bpfseccomp.ActionAllow && plain[n]:
				// Allowed unconditionally anyway.
			default:
				g.NamesWithCondtions = append(g.NamesWithCondtions, bpfseccomp.NameWithConditions{Name: n, Conditions: conds})
			}
		}
	}
	p := &bpfseccomp.Policy{DefaultAction: def}
	// Errno rules first, then the allowlist: a name in both (none in Docker's profile)
	// gets the refusal.
	for _, k := range order {
		if k.act != bpfseccomp.ActionAllow {
			p.Syscalls = append(p.Syscalls, *groups[k])
		}
	}
	for _, k := range order {
		if k.act == bpfseccomp.ActionAllow {
			p.Syscalls = append(p.Syscalls, *groups[k])
		}
	}
	return p, nil
}

func containsName(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// action maps a runtime-spec action to go-seccomp-bpf's (an errno rides in the low 16
// bits of SECCOMP_RET_ERRNO; Docker's default errno is EPERM).
func action(a specs.LinuxSeccompAction, errno *uint) (bpfseccomp.Action, error) {
	switch a {
	case specs.ActAllow:
		return bpfseccomp.ActionAllow, nil
	case specs.ActErrno:
		e := uint(unix.EPERM)
		if errno != nil {
			e = *errno
		}
		return bpfseccomp.Action(uint32(bpfseccomp.ActionErrno) | uint32(e&0xffff)), nil
	case specs.ActKillProcess:
		return bpfseccomp.ActionKillProcess, nil
	case specs.ActKill, specs.ActKillThread:
		return bpfseccomp.ActionKillThread, nil
	}
	return 0, fmt.Errorf("sandbox: seccomp: action %q is not supported", a)
}

// conditions maps runtime-spec argument comparisons (all must hold) to go-seccomp-bpf's.
func conditions(args []specs.LinuxSeccompArg) (bpfseccomp.ArgumentConditions, error) {
	var out bpfseccomp.ArgumentConditions
	for _, a := range args {
		c := bpfseccomp.Condition{Argument: uint32(a.Index), Value: a.Value}
		switch a.Op {
		case specs.OpEqualTo:
			c.Operation = bpfseccomp.Equal
		case specs.OpNotEqual:
			c.Operation = bpfseccomp.NotEqual
		case specs.OpLessThan:
			c.Operation = bpfseccomp.LessThan
		case specs.OpLessEqual:
			c.Operation = bpfseccomp.LessOrEqual
		case specs.OpGreaterThan:
			c.Operation = bpfseccomp.GreaterThan
		case specs.OpGreaterEqual:
			c.Operation = bpfseccomp.GreaterOrEqual
		case specs.OpMaskedEqual:
			// (arg & mask) == 0 is "none of the mask's bits set".
			if a.ValueTwo != 0 {
				return nil, fmt.Errorf("masked comparison with a non-zero value %#x", a.ValueTwo)
			}
			c.Operation = bpfseccomp.BitsNotSet
		default:
			return nil, fmt.Errorf("comparison %q is not supported", a.Op)
		}
		out = append(out, c)
	}
	return out, nil
}

// assembleRaw encodes the instructions as the kernel's struct sock_filter.
func assembleRaw(insts []bpf.Instruction) ([]bpf.RawInstruction, error) {
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("sandbox: seccomp: %w", err)
	}
	if len(raw) > 4096 {
		return nil, fmt.Errorf("sandbox: seccomp: the filter has %d instructions, more than the kernel's 4096", len(raw))
	}
	return raw, nil
}

// Capabilities returns the capability set of a command (CAP_ names): Docker's default
// set without CAP_MKNOD, CAP_NET_RAW and CAP_SETPCAP, which the Docker backend gives
// its container too.
func Capabilities() []string { return append([]string(nil), dockerCaps...) }
