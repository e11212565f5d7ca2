package jail

import (
	"encoding/binary"
	"runtime"
	"testing"

	bpfseccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data the way x/net/bpf's VM reads it: 32-bit
// loads are big-endian there, so each 32-bit word is stored big-endian and a 64-bit
// argument as its low word, then its high word (the little-endian kernel's order).
func seccompData(nr int, auditArch uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[16+8*i+4:], uint32(a>>32))
	}
	return b
}

func TestSeccompFilter(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the table of system call numbers below is amd64's")
	}
	raw, err := seccompFilter(dockerCaps)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw)%8 != 0 || len(raw) == 0 {
		t.Fatalf("filter of %d bytes", len(raw))
	}
	insts := make([]bpf.RawInstruction, len(raw)/8)
	for i := range insts {
		r := raw[8*i:]
		insts[i] = bpf.RawInstruction{Op: binary.NativeEndian.Uint16(r), Jt: r[2], Jf: r[3], K: binary.NativeEndian.Uint32(r[4:])}
	}
	decoded, ok := bpf.Disassemble(insts)
	if !ok {
		t.Fatal("the filter does not disassemble")
	}
	vm, err := bpf.NewVM(decoded)
	if err != nil {
		t.Fatal(err)
	}
	const (
		x86_64 = unix.AUDIT_ARCH_X86_64
		i386   = unix.AUDIT_ARCH_I386
		allow  = uint32(bpfseccomp.ActionAllow)
		eperm  = uint32(bpfseccomp.ActionErrno) | uint32(unix.EPERM)
		enosys = uint32(bpfseccomp.ActionErrno) | uint32(unix.ENOSYS)
	)
	threadFlags := uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD | unix.CLONE_SYSVSEM | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID)
	for _, tc := range []struct {
		name string
		data []byte
		want uint32
	}{
		{"read", seccompData(unix.SYS_READ, x86_64), allow},
		{"openat", seccompData(unix.SYS_OPENAT, x86_64), allow},
		{"execve (binfmt_misc runs qemu)", seccompData(unix.SYS_EXECVE, x86_64), allow},
		{"mmap (qemu's guest memory and code buffer)", seccompData(unix.SYS_MMAP, x86_64), allow},
		{"rt_sigaction (qemu's guest signals)", seccompData(unix.SYS_RT_SIGACTION, x86_64), allow},
		{"chroot (CAP_SYS_CHROOT is kept)", seccompData(unix.SYS_CHROOT, x86_64), allow},
		{"clone of a thread", seccompData(unix.SYS_CLONE, x86_64, threadFlags), allow},
		{"clone with a new user namespace", seccompData(unix.SYS_CLONE, x86_64, unix.CLONE_NEWUSER), eperm},
		{"clone with a new mount namespace", seccompData(unix.SYS_CLONE, x86_64, unix.CLONE_NEWNS|uint64(unix.SIGCHLD)), eperm},
		{"clone3 (glibc falls back to clone)", seccompData(unix.SYS_CLONE3, x86_64), enosys},
		{"open_by_handle_at", seccompData(unix.SYS_OPEN_BY_HANDLE_AT, x86_64), eperm},
		// Allowed by Docker too: a handle is useless without open_by_handle_at.
		{"name_to_handle_at", seccompData(unix.SYS_NAME_TO_HANDLE_AT, x86_64), allow},
		{"mount", seccompData(unix.SYS_MOUNT, x86_64), eperm},
		{"umount2", seccompData(unix.SYS_UMOUNT2, x86_64), eperm},
		{"fsopen", seccompData(unix.SYS_FSOPEN, x86_64), eperm},
		{"pivot_root", seccompData(unix.SYS_PIVOT_ROOT, x86_64), eperm},
		{"unshare", seccompData(unix.SYS_UNSHARE, x86_64), eperm},
		{"setns", seccompData(unix.SYS_SETNS, x86_64), eperm},
		{"kexec_load", seccompData(unix.SYS_KEXEC_LOAD, x86_64), eperm},
		{"init_module", seccompData(unix.SYS_INIT_MODULE, x86_64), eperm},
		{"finit_module", seccompData(unix.SYS_FINIT_MODULE, x86_64), eperm},
		{"bpf", seccompData(unix.SYS_BPF, x86_64), eperm},
		{"perf_event_open", seccompData(unix.SYS_PERF_EVENT_OPEN, x86_64), eperm},
		{"keyctl", seccompData(unix.SYS_KEYCTL, x86_64), eperm},
		{"add_key", seccompData(unix.SYS_ADD_KEY, x86_64), eperm},
		{"userfaultfd", seccompData(unix.SYS_USERFAULTFD, x86_64), eperm},
		// Docker allows ptrace on kernels from 4.8 (no seccomp bypass through it); the pid
		// namespace limits it to the command's own processes.
		{"ptrace", seccompData(unix.SYS_PTRACE, x86_64), allow},
		{"reboot", seccompData(unix.SYS_REBOOT, x86_64), eperm},
		{"socket AF_INET", seccompData(unix.SYS_SOCKET, x86_64, unix.AF_INET), allow},
		{"socket AF_UNIX", seccompData(unix.SYS_SOCKET, x86_64, unix.AF_UNIX), allow},
		{"socket AF_VSOCK", seccompData(unix.SYS_SOCKET, x86_64, unix.AF_VSOCK), eperm},
		{"socket AF_ALG", seccompData(unix.SYS_SOCKET, x86_64, unix.AF_ALG), eperm},
		{"personality query", seccompData(unix.SYS_PERSONALITY, x86_64, 0xffffffff), allow},
		{"personality ADDR_NO_RANDOMIZE", seccompData(unix.SYS_PERSONALITY, x86_64, 0x0040000), eperm},
		{"an i386 system call", seccompData(unix.SYS_READ, i386), eperm},
		{"an x32 system call", seccompData(unix.SYS_READ|0x40000000, x86_64), enosys},
		{"a number no kernel has", seccompData(4000, x86_64), eperm},
	} {
		// The VM returns the number of bytes to accept; for seccomp that is the action.
		got, err := vm.Run(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if uint32(got) != tc.want {
			t.Errorf("%s: action %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

func TestConditionsRefuseWhatTheyCannotExpress(t *testing.T) {
	if _, err := action("SCMP_ACT_NOTIFY", nil); err == nil {
		t.Error("a notify action was accepted")
	}
	if _, err := conditions(nil); err != nil {
		t.Error(err)
	}
}
