package accel

// The accelerated native toolchain (Debian profile): the compiler backends and binutils
// of Debian's x86_64 -> riscv64 cross packages, and the amd64 Go of the same version,
// run natively in place of their emulated riscv64 twins. See the package documentation.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/provision"
)

// Meta is stored next to the accelerator layers (<key>-accel.json). Provisioning
// writes it last, so its presence marks the layers as complete.
type Meta struct {
	// Layout is the version of the way the layers are laid out; layers of another
	// version are made again (2: with the x86_64 character-set converters; 3: cc1,
	// cc1plus and lto1 behind a wrapper that runs the emulated program for a compile
	// loading a GCC plugin).
	Layout int `json:"layout"`
	// Platform is the sandbox key whose root filesystem the layers were laid out for.
	Platform string `json:"platform"`
	// Suite and Mirror are those of that root filesystem, used for the amd64 tree.
	Suite  string `json:"suite,omitempty"`
	Mirror string `json:"mirror,omitempty"`
	// Created is when the layers were made.
	Created time.Time `json:"created"`
	// RootfsCreated is the creation time of the cached root filesystem the layers were
	// laid out for; a rebuilt root filesystem gets new layers.
	RootfsCreated time.Time `json:"rootfs_created"`
	// GCCMajor is the GCC major version (14).
	GCCMajor string `json:"gcc_major"`
	// Packages are the versions of the amd64 cross packages that provide the native
	// tools (gcc-14-riscv64-linux-gnu: 14.2.0-19cross1, binutils-riscv64-linux-gnu: ...).
	Packages map[string]string `json:"packages"`
	// GoPackage, GoVersion and GoRoot describe the amd64 Go toolchain (golang-1.24-go,
	// 1.24.4-1, /usr/lib/go-1.24); empty when the suite has none.
	GoPackage string `json:"go_package,omitempty"`
	GoVersion string `json:"go_version,omitempty"`
	GoRoot    string `json:"go_root,omitempty"`
	// GoTools are the names of the swapped tools in GOROOT/pkg/tool/linux_riscv64.
	GoTools []string `json:"go_tools,omitempty"`
	// CFiles are the sandbox paths of the swapped compiler and binutils programs (the
	// wrappers at the compilers' paths among them).
	CFiles []string `json:"c_files"`
	// CExtra are the sandbox paths of the files the C layer adds where no package has
	// one: the wrappers' native shell and the native and emulated compilers they run.
	CExtra []string `json:"c_extra,omitempty"`
}

// ToolchainPart says whether one toolchain runs natively.
type ToolchainPart struct {
	// Accelerated is true while the native (x86_64) builds run in place of the emulated
	// ones.
	Accelerated bool `json:"accelerated"`
	// Versions are the versions of the packages in use, by package name.
	Versions map[string]string `json:"versions,omitempty"`
	// Reason says why the toolchain is emulated.
	Reason string `json:"reason,omitempty"`
}

// Toolchain says which toolchain a sandbox's commands use: the C/C++ compiler backends
// with binutils, and Go.
type Toolchain struct {
	// C covers gcc's cc1, cc1plus, lto1, collect2, lto-wrapper, the LTO plugin and
	// binutils (as, ld, ar, ...), which are swapped together.
	C ToolchainPart `json:"c"`
	// Go covers the Go tools (compile, link, asm, cgo, vet); the go command itself
	// stays emulated.
	Go ToolchainPart `json:"go"`
	// Changes lists what changed during the run (a package-manager command replaced
	// the toolchain), in order.
	Changes []string `json:"changes,omitempty"`
}

// String returns a one-line summary, for example
// "C/C++ accelerated (binutils-riscv64-linux-gnu 2.44-3, gcc-14-riscv64-linux-gnu 14.2.0-19); Go emulated: ...".
func (t Toolchain) String() string {
	return "C/C++ " + t.C.String() + "; Go " + t.Go.String()
}

// String returns "accelerated (versions)" or "emulated: reason".
func (p ToolchainPart) String() string {
	if p.Accelerated {
		return "accelerated (" + versionList(p.Versions) + ")"
	}
	if p.Reason == "" {
		return "emulated"
	}
	return "emulated: " + p.Reason
}

func versionList(m map[string]string) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n+" "+m[n])
	}
	return strings.Join(parts, ", ")
}

// accelPaths are where the accelerator layers of a platform live, beside its cached
// root filesystem.
type accelPaths struct {
	key, dir, root, meta, lock string
}

func accelPathsFor(home string, p atesor.Platform) accelPaths {
	cp := provision.PathsFor(home, p)
	key := cp.Key + "-accel"
	return accelPaths{key: key, dir: cp.Dir, root: filepath.Join(cp.Dir, key),
		meta: filepath.Join(cp.Dir, key+".json"), lock: filepath.Join(cp.Dir, key+".lock")}
}

// accelLayout is the current [Meta.Layout].
const accelLayout = 3

// The parts of the accelerator directory.
const (
	accelCLayer    = "c"    // overlay layer: compiler backends, binutils, include links
	accelBaseLayer = "base" // overlay layer: x86_64 loader and libraries, Go tools
	accelGoDir     = "go"   // the amd64 Go tools, copied into a run whose Go package matches
)

func (ap accelPaths) leftovers() []string { return provision.TempDirs(ap.dir, ap.key) }

func readAccelMeta(file string) (Meta, error) { return provision.ReadJSON[Meta](file) }

// crossPackages are the amd64 cross packages of a GCC major version; the riscv64 root
// filesystem has native packages of the same names.
func crossPackages(major string) []string {
	return []string{"cpp-" + major + "-riscv64-linux-gnu", "gcc-" + major + "-riscv64-linux-gnu",
		"g++-" + major + "-riscv64-linux-gnu", "binutils-riscv64-linux-gnu"}
}

// optionalCross are the cross packages whose native twin may be absent: cc1plus is
// unused without g++.
func optionalCross(name string) bool { return strings.HasPrefix(name, "g++-") }

// checkC compares the native packages installed in a riscv64 tree with the cross
// packages of the layers. It returns the native versions in use, or why they do not
// match.
func checkC(m Meta, status map[string]dpkgPackage) (map[string]string, string) {
	versions := map[string]string{}
	for _, name := range crossPackages(m.GCCMajor) {
		cross, ok := m.Packages[name]
		if !ok {
			return nil, "the accelerator has no " + name
		}
		native, ok := status[name]
		if !ok || !native.installed() {
			if optionalCross(name) {
				continue
			}
			return nil, name + " is not installed in the sandbox"
		}
		if native.Version != nativeVersion(cross) {
			return nil, fmt.Sprintf("the sandbox has %s %s but the native cross build is %s", name, native.Version, cross)
		}
		versions[name] = native.Version
	}
	return versions, ""
}

// checkGo compares the sandbox's Go package with the amd64 one.
func checkGo(m Meta, status map[string]dpkgPackage) (map[string]string, string) {
	if m.GoPackage == "" {
		return nil, "the suite has no amd64 Go toolchain"
	}
	native, ok := status[m.GoPackage]
	if !ok || !native.installed() {
		return nil, fmt.Sprintf("%s is not installed (the native build of %s is ready for when it is)", m.GoPackage, m.GoVersion)
	}
	if native.Version != m.GoVersion {
		return nil, fmt.Sprintf("the sandbox has %s %s but the native build is %s", m.GoPackage, native.Version, m.GoVersion)
	}
	return map[string]string{m.GoPackage: native.Version}, ""
}

// gccMajorOf returns the highest GCC major version whose native riscv64 compiler is
// installed in a root filesystem (gcc-14-riscv64-linux-gnu -> "14").
func gccMajorOf(status map[string]dpkgPackage) (string, error) {
	re := regexp.MustCompile(`^gcc-([0-9]+)-riscv64-linux-gnu$`)
	best := 0
	for name, p := range status {
		if m := re.FindStringSubmatch(name); m != nil && p.installed() {
			var n int
			fmt.Sscan(m[1], &n)
			best = max(best, n)
		}
	}
	if best == 0 {
		return "", errors.New("no gcc-N-riscv64-linux-gnu is installed in the root filesystem")
	}
	return fmt.Sprint(best), nil
}

// goPackageOf returns the versioned Go package that golang-go depends on
// (golang-1.24-go) and its GOROOT (/usr/lib/go-1.24).
func goPackageOf(status map[string]dpkgPackage) (pkg, goroot string) {
	gg, ok := status["golang-go"]
	if !ok {
		return "", ""
	}
	m := regexp.MustCompile(`\bgolang-([0-9]+\.[0-9]+)-go\b`).FindStringSubmatch(gg.Depends)
	if m == nil {
		return "", ""
	}
	return "golang-" + m[1] + "-go", "/usr/lib/go-" + m[1]
}

// Info describes the accelerator layers of one sandbox key.
type Info struct {
	// Key is the accelerator's key (debian-riscv64-accel).
	Key string `json:"key"`
	// Path is the directory of the layers.
	Path string `json:"path"`
	// State is ready, incomplete or absent.
	State provision.CacheState `json:"state"`
	// Meta is the metadata of ready layers.
	Meta *Meta `json:"meta,omitempty"`
	// Toolchain is what a run starting now on the cached root filesystem would use.
	Toolchain Toolchain `json:"toolchain"`
}

func emulatedToolchain(reason string) Toolchain {
	return Toolchain{C: ToolchainPart{Reason: reason}, Go: ToolchainPart{Reason: reason}}
}

// startToolchain is the toolchain a run on a tree with this dpkg status starts with.
func startToolchain(m Meta, status map[string]dpkgPackage) Toolchain {
	var t Toolchain
	if v, why := checkC(m, status); why == "" {
		t.C = ToolchainPart{Accelerated: true, Versions: v}
	} else {
		t.C.Reason = why
	}
	if v, why := checkGo(m, status); why == "" {
		t.Go = ToolchainPart{Accelerated: true, Versions: v}
	} else {
		t.Go.Reason = why
	}
	return t
}

// errNoAccel marks a reason not to accelerate that is no failure (another profile,
// acceleration turned off).
var errNoAccel = errors.New("no acceleration")

// lstatOK reports whether p exists (without following a final link).
func lstatOK(p string) bool {
	_, err := os.Lstat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// Status describes the accelerator layers of the platform under the state home
// (home) and what toolchain a new run would use. It changes nothing.
func Status(ctx context.Context, p atesor.Platform, home string) (Info, error) {
	ap := accelPathsFor(home, p)
	info := Info{Key: ap.key, Path: ap.root, State: provision.CacheAbsent}
	if err := ctx.Err(); err != nil {
		return info, err
	}
	if provision.ProfileOf(p) != "debian" {
		info.Toolchain = emulatedToolchain("acceleration is made for the Debian profile only")
		return info, nil
	}
	m, err := readAccelMeta(ap.meta)
	switch {
	case err == nil && provision.Exists(ap.root):
		info.State, info.Meta = provision.CacheReady, &m
	case provision.Exists(ap.root) || provision.Exists(ap.meta) || len(ap.leftovers()) > 0:
		info.State = provision.CacheIncomplete
	}
	if info.Meta == nil {
		info.Toolchain = emulatedToolchain("the accelerator is not made yet (the next run makes it, about 2 minutes)")
		return info, nil
	}
	cp := provision.PathsFor(home, p)
	status, err := readDpkgStatus(cp.Rootfs)
	if err != nil {
		info.Toolchain = emulatedToolchain("the cached root filesystem is not ready")
		return info, nil
	}
	info.Toolchain = startToolchain(m, status)
	return info, nil
}
