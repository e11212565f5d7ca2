package sandbox

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

// IsEmulatorFault reports whether a command died in a way that may be the emulator's
// fault: killed by SIGSEGV, SIGILL or SIGBUS, or reported by qemu as an uncaught target
// signal.
func IsEmulatorFault(r atesor.CommandResult) bool { return proc.IsEmulatorFault(r) }

// FaultClass is the verdict on a command that hit an emulator fault.
type FaultClass string

// The fault classes.
const (
	// FaultNone: the command did not hit an emulator fault.
	FaultNone FaultClass = ""
	// FaultInfra: the fault was the emulator's or the toolchain's, not the package's
	// (the rerun passed, or the toolchain itself crashed differently).
	FaultInfra FaultClass = "infra"
	// FaultArchitecture: the fault reproduced the same way in the package's own code: a
	// real build failure of category architecture.
	FaultArchitecture FaultClass = "architecture"
)

// toolchainCrash matches reports of a crashing compiler, linker or build tool.
var toolchainCrash = regexp.MustCompile(`(?i)(internal compiler error|cc1(plus)?: .*(signal|segmentation)|` +
	`collect2: fatal error: .*terminated with signal|ld(\.bfd|\.gold)?: .*(signal|segmentation fault)|` +
	`terminated with signal \d+|gcc: fatal error: Killed signal|` +
	`rustc.*(SIGSEGV|SIGILL|SIGBUS|signal: \d+)|error: could not compile .*signal|` +
	`^(fatal error: )?unexpected signal during runtime execution|go: .*signal (SIGSEGV|SIGILL|SIGBUS)|` +
	`/(cc1|cc1plus|ld|as|go|compile|link|rustc)\b.*(Segmentation fault|Illegal instruction|Bus error))`)

// faultSignature summarises how a command crashed, so that two crashes can be compared:
// the signal, the qemu-reported target signal, and whether the toolchain crashed.
func faultSignature(r atesor.CommandResult) string {
	out := r.Output
	if out == "" {
		out = r.Stdout + r.Stderr
	}
	parts := []string{r.Signal}
	if sig := proc.UncaughtSignal(out); sig != "" {
		parts = append(parts, "qemu:"+sig)
	}
	if m := toolchainCrash.FindString(out); m != "" {
		parts = append(parts, "toolchain:"+strings.TrimSpace(m))
	}
	return strings.Join(parts, "|")
}

// toolchainCrashed reports whether the output shows the toolchain itself (cc1, ld, go,
// rustc, ...) crashing, as opposed to a program the build ran.
func toolchainCrashed(r atesor.CommandResult) bool {
	return toolchainCrash.MatchString(r.Output) || toolchainCrash.MatchString(r.Stdout+r.Stderr)
}

// ClassifyFault decides what an emulator fault means, given the first result and the
// result of its single rerun. The rerun passing, or the toolchain crashing in a way that
// differs between the runs, is an infra fault; the same crash again is a real failure of
// category architecture. A first result without a fault is FaultNone.
func ClassifyFault(first, rerun atesor.CommandResult) FaultClass {
	if !IsEmulatorFault(first) {
		return FaultNone
	}
	if rerun.OK() {
		return FaultInfra
	}
	if (toolchainCrashed(first) || toolchainCrashed(rerun)) && faultSignature(first) != faultSignature(rerun) {
		return FaultInfra
	}
	return FaultArchitecture
}

// ExecRetryingFaults runs cmd and, when it hits an emulator fault, runs it once more.
// It returns the last result and the fault class (FaultNone when the first run had no
// emulator fault). The live writers of cmd see both runs, separated by a note.
func ExecRetryingFaults(ctx context.Context, sb atesor.Sandbox, cmd atesor.Command) (atesor.CommandResult, FaultClass, error) {
	first, err := sb.Exec(ctx, cmd)
	if err != nil || !IsEmulatorFault(first) {
		return first, FaultNone, err
	}
	note := fmt.Sprintf("\n[atesor] possible emulator fault (%s); rerunning once\n", strings.Trim(faultSignature(first), "|"))
	if cmd.Stderr != nil {
		_, _ = cmd.Stderr.Write([]byte(note))
	}
	rerun, err := sb.Exec(ctx, cmd)
	if err != nil {
		return first, FaultInfra, fmt.Errorf("sandbox: rerun after emulator fault: %w", err)
	}
	return rerun, ClassifyFault(first, rerun), nil
}
