package proc

import (
	"regexp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// qemuUncaught matches qemu-user's report of a fatal guest signal.
var qemuUncaught = regexp.MustCompile(`qemu: uncaught target signal (\d+)(?: \(([A-Za-z ]+)\))?`)

// IsEmulatorFault reports whether a command died in a way that may be the emulator's
// fault: killed by SIGSEGV, SIGILL or SIGBUS, or reported by qemu as an uncaught target
// signal.
func IsEmulatorFault(r atesor.CommandResult) bool {
	if r.TimedOut {
		return false
	}
	switch r.Signal {
	case "SIGSEGV", "SIGILL", "SIGBUS":
		return true
	}
	return qemuUncaught.MatchString(r.Output) || qemuUncaught.MatchString(r.Stderr)
}

// UncaughtSignal returns the target signal number of qemu-user's report of a fatal guest
// signal in out, or "" when out has none.
func UncaughtSignal(out string) string {
	if m := qemuUncaught.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}
