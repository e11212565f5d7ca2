package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
)

// accelStaleAfter is how old layers that do not match the root filesystem may get
// before provisioning tries again (the archive may have caught up).
const accelStaleAfter = aptListsMaxAge

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
	cp := pathsFor(o.home, p)
	return provisionAccel(ctx, p, cp.rootfs, o)
}

func provisionAccel(ctx context.Context, p atesor.Platform, rootfs string, o *options) (AccelMeta, error) {
	rep := reporter{o: o, start: time.Now()}
	if profileOf(p) != "debian" {
		return AccelMeta{}, fmt.Errorf("%w: acceleration is made for the Debian profile only", errNoAccel)
	}
	cp := pathsFor(o.home, p)
	rmeta, err := readMeta(cp.meta)
	if err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: the root filesystem is not provisioned: %w", err)
	}
	status, err := readDpkgStatus(rootfs)
	if err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	ap := accelPathsFor(o.home, p)
	rep, unlock, err := lockProvisioning(ctx, ap.lock, rep, "accel-lock")
	if err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator lock: %w", err)
	}
	defer unlock()

	if m, err := readAccelMeta(ap.meta); err == nil && exists(ap.root) {
		_, cwhy := checkC(m, status)
		fresh := m.Layout == accelLayout && m.RootfsCreated.Equal(rmeta.Created) && (cwhy == "" || time.Since(m.Created) < accelStaleAfter)
		if fresh {
			rep.report("accel-ready", ap.root)
			return m, nil
		}
		why := firstNonEmpty(cwhy, "the root filesystem was made again")
		if m.Layout != accelLayout {
			why = fmt.Sprintf("the layers were laid out by an older atesor (layout %d, now %d)", m.Layout, accelLayout)
		}
		o.logger.Info("sandbox: remaking the accelerator layers", "why", why)
	}
	if users := liveRuns(runsDir(o.home), cp.key); len(users) > 0 && exists(ap.root) {
		return AccelMeta{}, fmt.Errorf("sandbox: the accelerator layers need remaking but %w by %s", ErrCacheInUse, users[0])
	}
	_ = os.Remove(ap.meta)
	if err := os.RemoveAll(ap.root); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: remove stale %s: %w", ap.root, err)
	}
	for _, s := range ap.leftovers() {
		_ = os.RemoveAll(s)
	}
	major, err := gccMajorOf(status)
	if err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	tmp, err := os.MkdirTemp(ap.dir, "."+ap.key+".tmp-")
	if err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op after the rename
	amd := filepath.Join(tmp, "amd64")
	out := filepath.Join(tmp, "layers")
	for _, d := range []string{amd, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return AccelMeta{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	cross := crossPackages(major)
	args := []string{"--variant=apt", "--architectures=amd64", "--include=" + strings.Join(append(cross[1:], "golang-go"), ","),
		rmeta.Suite, amd}
	if rmeta.Mirror != "" {
		args = append(args, rmeta.Mirror)
	}
	if o.mirror != "" && rmeta.Mirror == "" {
		args = append(args, o.mirror)
	}
	rep.report("accel-bootstrap", "mmdebstrap "+strings.Join(args, " "))
	if out, err := runMmdebstrapArgs(ctx, args, rep, "accel-bootstrap"); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: mmdebstrap of the amd64 tree (suite %s, mirror %q): %w\n%s",
			rmeta.Suite, rmeta.Mirror, err, proc.Tail(out, 4000))
	}
	amdStatus, err := readDpkgStatus(amd)
	if err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	m := AccelMeta{Layout: accelLayout, Platform: p.SandboxKey(), Suite: rmeta.Suite, Mirror: rmeta.Mirror, Created: time.Now().UTC(),
		RootfsCreated: rmeta.Created, GCCMajor: major, Packages: map[string]string{}}
	for _, name := range cross {
		pk, ok := amdStatus[name]
		if !ok || !pk.installed() {
			return AccelMeta{}, fmt.Errorf("sandbox: accelerator: the amd64 tree lacks %s", name)
		}
		m.Packages[name] = pk.Version
	}
	rep.report("accel-layout", "laying out the native compiler backends, binutils and Go")
	b := &layerBuilder{amd: amd, rootfs: rootfs, out: out, placed: map[string]string{}}
	if m.CFiles, err = b.buildCLayer(major); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	if pkg, goroot := goPackageOf(amdStatus); pkg != "" {
		if tools, err := b.buildGo(goroot); err != nil {
			o.logger.Warn("sandbox: accelerator: no native Go", "err", err)
		} else {
			m.GoPackage, m.GoVersion, m.GoRoot, m.GoTools = pkg, amdStatus[pkg].Version, goroot, tools
		}
	}
	if err := b.addGconv(); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	if err := b.addLibraries(); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	if err := b.checkCollisions(); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	for _, l := range []string{accelCLayer, accelBaseLayer} {
		if err := os.MkdirAll(b.layer(l), 0o755); err != nil {
			return AccelMeta{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := os.Rename(out, ap.root); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: %w", err)
	}
	if err := writeJSONFile(ap.meta, m); err != nil {
		return AccelMeta{}, fmt.Errorf("sandbox: %w", err)
	}
	if _, why := checkC(m, status); why != "" {
		o.logger.Warn("sandbox: the accelerator does not match the root filesystem; C/C++ stays emulated", "why", why)
	}
	rep.report("accel-ready", fmt.Sprintf("%s (made in %s)", ap.root, time.Since(rep.start).Round(time.Second)))
	return m, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
