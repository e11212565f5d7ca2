package accel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/beneath"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

// Run is the accelerated toolchain of one root-filesystem sandbox run. The C layer is an overlay
// lower layer, mounted only when the root filesystem's compiler and binutils match it;
// the base layer (x86_64 loader and libraries) comes with it. Go's tools are copied into
// the run once its Go package is installed at the matching version. After every
// package-manager command sync checks again, so a run whose toolchain apt replaced goes
// on with what is installed. Safe for concurrent use.
type Run struct {
	mu       sync.Mutex
	logger   *slog.Logger
	meta     Meta
	dir      string // the accelerator directory; "" when there is none
	cache    string // the cached root filesystem (the lowest layer)
	merged   string // the run's merged tree; "" before the mount
	cMounted bool   // the C and base layers are part of the overlay
	state    Toolchain
}

// Prepare decides whether a run on the cache gets the accelerator layers. It never
// fails: when the layers cannot be had, the run is emulated and the reason recorded.
func Prepare(ctx context.Context, p atesor.Platform, cache string, pc provision.Config, off bool) *Run {
	cfg := pc.WithDefaults()
	a := &Run{logger: cfg.Logger, cache: cache}
	if off {
		a.state = emulatedToolchain("acceleration is turned off (--no-accel)")
		return a
	}
	m, err := Provision(ctx, p, cache, *cfg)
	if err != nil {
		if !errors.Is(err, errNoAccel) {
			cfg.Logger.Warn("sandbox: the toolchain stays emulated: the accelerator could not be made", "err", err)
		}
		a.state = emulatedToolchain(strings.TrimPrefix(err.Error(), "sandbox: "))
		return a
	}
	a.meta, a.dir = m, accelPathsFor(cfg.Home, p).root
	status, err := readDpkgStatus(cache)
	if err != nil {
		a.state = emulatedToolchain(fmt.Sprintf("cannot read the root filesystem's packages: %v", err))
		return a
	}
	a.state = startToolchain(m, status)
	a.cMounted = a.state.C.Accelerated
	if !a.cMounted {
		a.state.Go = ToolchainPart{Reason: "the x86_64 libraries come with the C layer, which does not match: " + a.state.C.Reason}
	}
	return a
}

// Lowerdir returns the overlay's lowerdir option value: the accelerator layers (when
// mounted) above the cached root filesystem.
func (a *Run) Lowerdir() string {
	if !a.cMounted {
		return a.cache
	}
	return strings.Join([]string{filepath.Join(a.dir, accelCLayer), filepath.Join(a.dir, accelBaseLayer), a.cache}, ":")
}

// Attach records the run's merged tree, checks the toolchain once and logs which one
// the run uses.
func (a *Run) Attach(merged string) {
	a.mu.Lock()
	a.merged = merged
	a.mu.Unlock()
	a.Sync("start")
	t := a.Toolchain()
	a.logger.Info("sandbox: toolchain", "c", t.C.String(), "go", t.Go.String())
}

// Toolchain returns a copy of the current state.
func (a *Run) Toolchain() Toolchain {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.state
	t.C.Versions = cloneMap(t.C.Versions)
	t.Go.Versions = cloneMap(t.Go.Versions)
	t.Changes = append([]string(nil), t.Changes...)
	return t
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Sync checks the installed packages of the run against the accelerator after trigger
// (a package-manager command line, or "start"): matching packages get their native
// programs back where a reinstall replaced them, and when the compiler or binutils no
// longer match, the native programs still in place are replaced with the root
// filesystem's, so the emulated ld never meets a native LTO plugin. Problems are logged;
// they leave the run emulated.
func (a *Run) Sync(trigger string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.cMounted || a.merged == "" {
		return
	}
	root, err := os.OpenRoot(a.merged)
	if err != nil {
		a.logger.Warn("sandbox: toolchain check", "err", err)
		return
	}
	defer root.Close()
	// Reads go through the gate: the run's commands may have replaced the status file or
	// a program with a FIFO or a link to the tree's dev/zero.
	g, err := beneath.OpenDir(a.merged)
	if err != nil {
		a.logger.Warn("sandbox: toolchain check", "err", err)
		return
	}
	defer g.Close()
	status, err := dpkgStatusIn(g)
	if err != nil {
		a.logger.Warn("sandbox: toolchain check: cannot read the packages; the toolchain stays as it is", "err", err)
		return
	}
	a.syncC(root, g, status, trigger)
	a.syncGo(root, g, status, trigger)
}

func (a *Run) syncC(root *os.Root, g *beneath.Dir, status map[string]dpkgPackage, trigger string) {
	versions, why := checkC(a.meta, status)
	was := a.state.C.Accelerated
	layer := filepath.Join(a.dir, accelCLayer)
	if why == "" {
		for _, f := range a.meta.CFiles {
			if !rootLexists(root, f) || a.fromCLayer(g, f) {
				continue // removed with its package, or still the layer's program
			}
			if err := a.copyIn(root, layer, f); err != nil {
				why = fmt.Sprintf("cannot put the native %s back: %v", f, err)
				break
			}
		}
	}
	if why == "" {
		// What the wrappers run is at paths no package owns: put back whatever is
		// missing, as a wrapper in place would otherwise run nothing.
		for _, f := range a.meta.CExtra {
			if sameSize(root, osroot.HostPath(layer, f), f) {
				continue
			}
			if err := a.copyIn(root, layer, f); err != nil {
				why = fmt.Sprintf("cannot put the native toolchain's %s back: %v", f, err)
				break
			}
		}
	}
	if why == "" {
		a.state.C = ToolchainPart{Accelerated: true, Versions: versions}
		if !was {
			a.change(trigger, "the compiler and binutils match the native cross builds again; C/C++ runs natively")
		}
		return
	}
	a.state.C = ToolchainPart{Reason: why}
	var errs []error
	for _, f := range a.meta.CFiles {
		if a.fromCLayer(g, f) {
			errs = append(errs, a.restore(root, f))
		}
	}
	// The files of CExtra stay: nothing runs them once the wrappers are gone.
	if err := errors.Join(errs...); err != nil {
		// Better no program than a mix that cannot link.
		a.logger.Error("sandbox: could not put back the emulated toolchain", "err", err)
		a.state.C.Reason += fmt.Sprintf("; putting back the emulated programs failed: %v", err)
	}
	if was {
		a.change(trigger, why+"; C/C++ is emulated from then on")
	}
}

func (a *Run) syncGo(root *os.Root, g *beneath.Dir, status map[string]dpkgPackage, trigger string) {
	if a.meta.GoPackage == "" {
		a.state.Go = ToolchainPart{Reason: "the suite has no amd64 Go toolchain"}
		return
	}
	versions, why := checkGo(a.meta, status)
	was := a.state.Go.Accelerated
	if why == "" {
		for _, t := range a.meta.GoTools {
			f := a.goToolPath(t)
			if isX86(g, f) {
				continue
			}
			if err := a.copyFile(root, filepath.Join(a.dir, accelGoDir, t), f); err != nil {
				why = fmt.Sprintf("cannot put the native Go %s in place: %v", t, err)
				break
			}
		}
	}
	if why == "" {
		a.state.Go = ToolchainPart{Accelerated: true, Versions: versions}
		if !was && trigger != "start" {
			a.change(trigger, fmt.Sprintf("%s %s is installed; its compile, link, asm, cgo and vet run natively", a.meta.GoPackage, a.meta.GoVersion))
		}
		return
	}
	a.state.Go = ToolchainPart{Reason: why}
	if was {
		a.change(trigger, why+"; Go is emulated from then on")
	}
}

// goToolPath is the sandbox path of a Go tool of the riscv64 Go.
func (a *Run) goToolPath(tool string) string {
	return path.Join(a.meta.GoRoot, "pkg/tool/linux_riscv64", tool)
}

func (a *Run) change(trigger, what string) {
	msg := fmt.Sprintf("after %q: %s", trigger, what)
	a.state.Changes = append(a.state.Changes, msg)
	a.logger.Info("sandbox: toolchain changed", "change", msg)
}

// copyIn copies the file at sandbox path f of the host layer directory into the run.
func (a *Run) copyIn(root *os.Root, layer, f string) error {
	return a.copyFile(root, osroot.HostPath(layer, f), f)
}

// copyFile writes the host file src to the sandbox path f of the run, through the
// os.Root of the merged tree: a link planted inside the sandbox cannot send the write
// to the host.
func (a *Run) copyFile(root *os.Root, src, f string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	rel := strings.TrimPrefix(path.Clean(f), "/")
	if err := osroot.MkdirAll(root, path.Dir(rel), 0o755); err != nil {
		return err
	}
	return osroot.WriteFile(root, rel, in, 0o755, time.Time{})
}

// restore replaces the sandbox path f of the run with the cached root filesystem's
// entry (a file or a link), or removes it when the root filesystem has none.
func (a *Run) restore(root *os.Root, f string) error {
	rel := strings.TrimPrefix(path.Clean(f), "/")
	orig := osroot.HostPath(a.cache, f)
	fi, err := os.Lstat(orig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return root.Remove(rel)
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(orig)
		if err != nil {
			return err
		}
		if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return osroot.Symlink(root, target, rel)
	default:
		return a.copyFile(root, orig, f)
	}
}

// dpkgStatusIn reads the dpkg status file of a tree through its gate: a regular file of at
// most [BoundDpkgStatus], links followed inside the tree.
func dpkgStatusIn(g *beneath.Dir) (map[string]dpkgPackage, error) {
	data, err := g.ReadFile(context.Background(), dpkgStatusFile, beneath.FollowInside, BoundDpkgStatus)
	if err != nil {
		return nil, err
	}
	return parseDpkgStatus(data), nil
}

// fromCLayer reports whether the sandbox path f of the gate's tree holds the C layer's
// program: a native one, or the wrapper the layer put at a compiler's path.
func (a *Run) fromCLayer(g *beneath.Dir, f string) bool {
	return isX86(g, f) || sameSmallFile(g, f, osroot.HostPath(filepath.Join(a.dir, accelCLayer), f))
}

// maxWrapper bounds the comparison of a run's file with a wrapper of the layer: the
// wrappers are a few hundred bytes, so a larger file (a compiler) is never one.
const maxWrapper = 64 << 10

// sameSmallFile reports whether the sandbox path f of the gate's tree is a regular file
// of at most [maxWrapper] bytes with the contents of the host file layerFile.
func sameSmallFile(g *beneath.Dir, f, layerFile string) bool {
	fi, err := os.Stat(layerFile)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxWrapper {
		return false
	}
	want, err := os.ReadFile(layerFile)
	if err != nil {
		return false
	}
	got, err := g.ReadFile(context.Background(), f, beneath.NoFollow, beneath.Bound{Kind: "program", Max: maxWrapper})
	return err == nil && bytes.Equal(got, want)
}

// sameSize reports whether the sandbox path f of root is a regular file of the size of
// the host file layerFile: a file of CExtra left as the layer made it (no package
// writes these paths).
func sameSize(root *os.Root, layerFile, f string) bool {
	want, err := os.Stat(layerFile)
	if err != nil {
		return false
	}
	got, err := root.Lstat(strings.TrimPrefix(path.Clean(f), "/"))
	return err == nil && got.Mode().IsRegular() && got.Size() == want.Size()
}

// rootLexists reports whether the sandbox path f exists in root (a final link counts).
func rootLexists(root *os.Root, f string) bool {
	_, err := root.Lstat(strings.TrimPrefix(path.Clean(f), "/"))
	return err == nil
}

// isX86 reports whether the sandbox path f of the gate's tree is a regular file holding an
// x86_64 ELF program or library (a link never is: the layers hold regular files).
func isX86(g *beneath.Dir, f string) bool {
	// Only the header is read, whatever the size.
	h, err := g.Open(context.Background(), f, beneath.NoFollow, beneath.Bound{Kind: "program", Max: -1})
	if err != nil {
		return false
	}
	defer h.Close()
	var hdr [20]byte
	if _, err := h.ReadAt(hdr[:], 0); err != nil {
		return false
	}
	const emX86_64 = 62
	return string(hdr[:4]) == "\x7fELF" && hdr[5] == 1 && uint16(hdr[18])|uint16(hdr[19])<<8 == emX86_64
}
