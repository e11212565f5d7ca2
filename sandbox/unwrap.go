package sandbox

import "github.com/eclipse-atesor/atesor-go"

// Wrapper is implemented by sandboxes that wrap another one (to time it, log it, count
// it): Unwrap returns the wrapped sandbox. A wrapper need not repeat the optional
// interfaces of what it wraps ([HostPather], [ToolchainReporter], ...): [As] finds them
// through it.
type Wrapper interface {
	Unwrap() atesor.Sandbox
}

// HostPather is implemented by sandboxes whose files are visible on the host; HostPath
// maps a sandbox path to the host path that holds it. Readers of sandbox files (the
// artifact scan, the copy-out) use it to read the tree directly, through a [Gate],
// instead of listing and reading it with commands.
type HostPather interface {
	HostPath(sandboxPath string) (string, error)
}

// maxUnwrap bounds the wrapper chain As walks, so a wrapper that returns itself cannot
// make it loop.
const maxUnwrap = 64

// As finds the first sandbox in sb's chain of wrappers (sb, sb.Unwrap(), ...) that is a
// T, sets *target to it and reports whether there was one, as errors.As does for
// errors. T is an interface of an optional capability (HostPather, ToolchainReporter,
// HostProgramRunner) or a backend's type (*Rootfs). Code that decides what a sandbox
// can do asks As, never a type assertion on sb, which a wrapper would defeat.
func As[T any](sb atesor.Sandbox, target *T) bool {
	for range maxUnwrap {
		if sb == nil {
			return false
		}
		if t, ok := sb.(T); ok {
			*target = t
			return true
		}
		w, ok := sb.(Wrapper)
		if !ok {
			return false
		}
		sb = w.Unwrap()
	}
	return false
}

// HostProgramRunner is implemented by sandboxes that can run programs built for the
// host's own architecture inside them, next to the riscv64 system: the root-filesystem
// sandbox runs them natively (the accelerated toolchain is such programs). Performance
// mode copies its host-built instruction counter in only when RunsHostPrograms is true.
type HostProgramRunner interface {
	RunsHostPrograms() bool
}
