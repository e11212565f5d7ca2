package accel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/proc"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

// accelStaleAfter is how old layers that do not match the root filesystem may get
// before provisioning tries again (the archive may have caught up).
const accelStaleAfter = provision.ListsMaxAge

// Provision makes sure the accelerator layers of the platform exist beside its cached
// root filesystem rootfs (<home>/sandboxes/<key>-accel/) and returns their metadata: an
// amd64 tree of the root filesystem's suite and mirror with the x86_64 -> riscv64 cross
// compiler, cross binutils and the amd64 Go, from which only the programs that cannot
// observe the host architecture and the x86_64 libraries they need are kept; made under
// a lock file in a temporary directory renamed into place only when complete, and
// reused while they match the root filesystem (or, when they do not, for a day).
func Provision(ctx context.Context, p atesor.Platform, rootfs string, pc provision.Config) (Meta, error) {
	cfg := pc.WithDefaults()
	rep := provision.NewReporter(*cfg)
	if provision.ProfileOf(p) != "debian" {
		return Meta{}, fmt.Errorf("%w: acceleration is made for the Debian profile only", errNoAccel)
	}
	cp := provision.PathsFor(cfg.Home, p)
	rmeta, err := provision.ReadMeta(cp.Meta)
	if err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: the root filesystem is not provisioned: %w", err)
	}
	status, err := readDpkgStatus(rootfs)
	if err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	ap := accelPathsFor(cfg.Home, p)
	rep, unlock, err := provision.Lock(ctx, ap.lock, rep, "accel-lock")
	if err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator lock: %w", err)
	}
	defer unlock()

	if m, err := readAccelMeta(ap.meta); err == nil && provision.Exists(ap.root) {
		_, cwhy := checkC(m, status)
		fresh := m.Layout == accelLayout && m.RootfsCreated.Equal(rmeta.Created) && (cwhy == "" || time.Since(m.Created) < accelStaleAfter)
		if fresh {
			rep.Report("accel-ready", ap.root)
			return m, nil
		}
		why := firstNonEmpty(cwhy, "the root filesystem was made again")
		if m.Layout != accelLayout {
			why = fmt.Sprintf("the layers were laid out by an older atesor (layout %d, now %d)", m.Layout, accelLayout)
		}
		cfg.Logger.Info("sandbox: remaking the accelerator layers", "why", why)
	}
	if users := provision.LiveRuns(provision.RunsDir(cfg.Home), cp.Key); len(users) > 0 && provision.Exists(ap.root) {
		return Meta{}, fmt.Errorf("sandbox: the accelerator layers need remaking but %w by %s", provision.ErrCacheInUse, users[0])
	}
	_ = os.Remove(ap.meta)
	if err := os.RemoveAll(ap.root); err != nil {
		return Meta{}, fmt.Errorf("sandbox: remove stale %s: %w", ap.root, err)
	}
	for _, s := range ap.leftovers() {
		_ = os.RemoveAll(s)
	}
	major, err := gccMajorOf(status)
	if err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	tmp, err := os.MkdirTemp(ap.dir, "."+ap.key+".tmp-")
	if err != nil {
		return Meta{}, fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op after the rename
	amd := filepath.Join(tmp, "amd64")
	out := filepath.Join(tmp, "layers")
	for _, d := range []string{amd, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return Meta{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	cross := crossPackages(major)
	args := []string{"--variant=apt", "--architectures=amd64", "--include=" + strings.Join(append(cross[1:], "golang-go"), ","),
		rmeta.Suite, amd}
	if rmeta.Mirror != "" {
		args = append(args, rmeta.Mirror)
	}
	if cfg.Mirror != "" && rmeta.Mirror == "" {
		args = append(args, cfg.Mirror)
	}
	rep.Report("accel-bootstrap", "mmdebstrap "+strings.Join(args, " "))
	if out, err := provision.Mmdebstrap(ctx, args, rep, "accel-bootstrap"); err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: mmdebstrap of the amd64 tree (suite %s, mirror %q): %w\n%s",
			rmeta.Suite, rmeta.Mirror, err, proc.Tail(out, 4000))
	}
	amdStatus, err := readDpkgStatus(amd)
	if err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	m := Meta{Layout: accelLayout, Platform: p.SandboxKey(), Suite: rmeta.Suite, Mirror: rmeta.Mirror, Created: time.Now().UTC(),
		RootfsCreated: rmeta.Created, GCCMajor: major, Packages: map[string]string{}}
	for _, name := range cross {
		pk, ok := amdStatus[name]
		if !ok || !pk.installed() {
			return Meta{}, fmt.Errorf("sandbox: accelerator: the amd64 tree lacks %s", name)
		}
		m.Packages[name] = pk.Version
	}
	rep.Report("accel-layout", "laying out the native compiler backends, binutils and Go")
	b := &layerBuilder{amd: amd, rootfs: rootfs, out: out, placed: map[string]string{}}
	if m.CFiles, m.CExtra, err = b.buildCLayer(major); err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	if pkg, goroot := goPackageOf(amdStatus); pkg != "" {
		if tools, err := b.buildGo(goroot); err != nil {
			cfg.Logger.Warn("sandbox: accelerator: no native Go", "err", err)
		} else {
			m.GoPackage, m.GoVersion, m.GoRoot, m.GoTools = pkg, amdStatus[pkg].Version, goroot, tools
		}
	}
	if err := b.addGconv(); err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	if err := b.addLibraries(); err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	if err := b.checkCollisions(); err != nil {
		return Meta{}, fmt.Errorf("sandbox: accelerator: %w", err)
	}
	for _, l := range []string{accelCLayer, accelBaseLayer} {
		if err := os.MkdirAll(b.layer(l), 0o755); err != nil {
			return Meta{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := os.Rename(out, ap.root); err != nil {
		return Meta{}, fmt.Errorf("sandbox: %w", err)
	}
	if err := provision.WriteJSON(ap.meta, m); err != nil {
		return Meta{}, fmt.Errorf("sandbox: %w", err)
	}
	if _, why := checkC(m, status); why != "" {
		cfg.Logger.Warn("sandbox: the accelerator does not match the root filesystem; C/C++ stays emulated", "why", why)
	}
	rep.Report("accel-ready", fmt.Sprintf("%s (made in %s)", ap.root, rep.Elapsed().Round(time.Second)))
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
