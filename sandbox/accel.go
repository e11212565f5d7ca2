package sandbox

import (
	"context"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/accel"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

// Toolchain says which toolchain a sandbox's commands use: the C/C++ compiler backends
// with binutils (C: gcc's cc1, cc1plus, lto1, collect2, lto-wrapper, the LTO plugin and
// binutils, swapped together) and Go (the compile, link, asm, cgo and vet tools; the go
// command itself stays emulated), each a [ToolchainPart], and the Changes made during
// the run (a package-manager command replaced the toolchain), in order. Its String
// method gives a one-line summary.
type Toolchain = accel.Toolchain

// ToolchainPart says whether one toolchain runs natively: Accelerated while the native
// (x86_64) builds run in place of the emulated ones, the Versions of the packages in use
// by package name, or the Reason it is emulated.
type ToolchainPart = accel.ToolchainPart

// AccelMeta is stored next to the accelerator layers (<key>-accel.json); provisioning
// writes it last, so its presence marks the layers as complete. It records the layout
// version, the sandbox key, suite and mirror of the root filesystem the layers were laid
// out for and when that was made, the GCC major version, the versions of the amd64 cross
// packages, the amd64 Go (package, version, GOROOT, tools) and the swapped programs.
type AccelMeta = accel.Meta

// AccelInfo describes the accelerator layers of one sandbox key: their Key and Path,
// their State, the Meta of ready layers, and the Toolchain a run starting now on the
// cached root filesystem would use.
type AccelInfo = accel.Info

// ToolchainReporter is implemented by sandboxes that can say which toolchain their
// commands use ([Rootfs]).
type ToolchainReporter interface {
	Toolchain() Toolchain
}

// WithAccel turns the accelerated native toolchain of the Debian root-filesystem
// sandbox on or off (default on).
func WithAccel(on bool) Option { return func(o *options) { o.noAccel = !on } }

// ProvisionAccel makes sure the accelerator layers of the platform exist beside its
// cached root filesystem (<home>/sandboxes/<key>-accel/) and returns their metadata.
// It takes the root filesystem from [Provision] (call that first). Like Provision, it
// works under a lock file, builds in a temporary directory renamed into place only when
// complete, and reuses complete layers: an amd64 tree of the root filesystem's suite and
// mirror (mmdebstrap --variant=apt) with the x86_64 -> riscv64 cross compiler, cross
// binutils and the amd64 Go, from which only the programs that cannot observe the host
// architecture and the x86_64 libraries they need are kept. Layers whose versions do not
// match the root filesystem are kept too (a run then says why it is emulated), and made
// again when the root filesystem is newer or a day has passed.
func ProvisionAccel(ctx context.Context, p atesor.Platform, opts ...Option) (AccelMeta, error) {
	o := buildOptions(opts)
	return accel.Provision(ctx, p, provision.PathsFor(o.home, p).Rootfs, o.provisionConfig())
}

// AccelStatus describes the accelerator layers of the platform under the state home
// ([WithHome]) and what toolchain a new run would use. It changes nothing.
func AccelStatus(ctx context.Context, p atesor.Platform, opts ...Option) (AccelInfo, error) {
	return accel.Status(ctx, p, buildOptions(opts).home)
}
