package accel

import (
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/internal/beneath"
)

const statusText = `Package: gcc-14-riscv64-linux-gnu
Status: install ok installed
Architecture: riscv64
Version: 14.2.0-19
Depends: cpp-14-riscv64-linux-gnu (= 14.2.0-19),
 binutils-riscv64-linux-gnu (>= 2.42)

Package: cpp-14-riscv64-linux-gnu
Status: install ok installed
Architecture: riscv64
Version: 14.2.0-19

Package: binutils-riscv64-linux-gnu
Status: install ok installed
Architecture: riscv64
Version: 2.44-3

Package: g++-14-riscv64-linux-gnu
Status: deinstall ok config-files
Architecture: riscv64
Version: 14.2.0-18

Package: golang-go
Status: install ok installed
Architecture: riscv64
Version: 2:1.24~2
Depends: golang-1.24-go, golang-src (>= 2:1.24~2)

Package: golang-1.24-go
Status: install ok installed
Architecture: riscv64
Version: 1.24.4-1
`

func TestParseDpkgStatus(t *testing.T) {
	got := parseDpkgStatus([]byte(statusText))
	if len(got) != 6 {
		t.Fatalf("got %d packages: %v", len(got), got)
	}
	gcc := got["gcc-14-riscv64-linux-gnu"]
	if gcc.Version != "14.2.0-19" || !gcc.installed() || !strings.Contains(gcc.Depends, "binutils-riscv64-linux-gnu (>= 2.42)") {
		t.Errorf("gcc: %+v", gcc)
	}
	if got["g++-14-riscv64-linux-gnu"].installed() {
		t.Error("a deinstalled package counts as installed")
	}
	if pkg, root := goPackageOf(got); pkg != "golang-1.24-go" || root != "/usr/lib/go-1.24" {
		t.Errorf("goPackageOf = %q %q", pkg, root)
	}
	if m, err := gccMajorOf(got); err != nil || m != "14" {
		t.Errorf("gccMajorOf = %q %v", m, err)
	}
	if _, err := gccMajorOf(nil); err == nil {
		t.Error("gccMajorOf of nothing: no error")
	}
}

func FuzzParseDpkgStatus(f *testing.F) {
	f.Add([]byte(statusText))
	f.Add([]byte("Package: x\n\n\nPackage:\n :\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for name, p := range parseDpkgStatus(data) {
			if name == "" || name != p.Name {
				t.Fatalf("entry %q holds %+v", name, p)
			}
		}
	})
}

func testMeta() Meta {
	return Meta{GCCMajor: "14", Packages: map[string]string{
		"cpp-14-riscv64-linux-gnu": "14.2.0-19cross1", "gcc-14-riscv64-linux-gnu": "14.2.0-19cross1",
		"g++-14-riscv64-linux-gnu": "14.2.0-19cross1", "binutils-riscv64-linux-gnu": "2.44-3"},
		GoPackage: "golang-1.24-go", GoVersion: "1.24.4-1", GoRoot: "/usr/lib/go-1.24"}
}

func TestCheckToolchain(t *testing.T) {
	base := parseDpkgStatus([]byte(statusText))
	with := func(name, version, st string) map[string]dpkgPackage {
		m := map[string]dpkgPackage{}
		for k, v := range base {
			m[k] = v
		}
		m[name] = dpkgPackage{Name: name, Version: version, Status: st}
		return m
	}
	tests := []struct {
		name   string
		status map[string]dpkgPackage
		c, g   string // "" means accelerated, else a substring of the reason
	}{
		{"match, no g++", base, "", ""},
		{"g++ matches", with("g++-14-riscv64-linux-gnu", "14.2.0-19", "install ok installed"), "", ""},
		{"g++ newer", with("g++-14-riscv64-linux-gnu", "14.2.0-20", "install ok installed"), "g++-14-riscv64-linux-gnu 14.2.0-20", ""},
		{"binutils upgraded", with("binutils-riscv64-linux-gnu", "2.44-4", "install ok installed"), "2.44-4 but the native cross build is 2.44-3", ""},
		{"gcc removed", with("gcc-14-riscv64-linux-gnu", "14.2.0-19", "deinstall ok config-files"), "not installed", ""},
		{"go other version", with("golang-1.24-go", "1.24.5-1", "install ok installed"), "", "1.24.5-1 but the native build is 1.24.4-1"},
		{"go absent", with("golang-1.24-go", "1.24.4-1", "not-installed ok not-installed"), "", "is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := startToolchain(testMeta(), tt.status)
			for _, c := range []struct {
				part ToolchainPart
				want string
			}{{tc.C, tt.c}, {tc.Go, tt.g}} {
				if c.want == "" && !c.part.Accelerated {
					t.Errorf("not accelerated: %s", c.part.Reason)
				}
				if c.want != "" && (c.part.Accelerated || !strings.Contains(c.part.Reason, c.want)) {
					t.Errorf("got %+v, want a reason with %q", c.part, c.want)
				}
			}
		})
	}
	if got := nativeVersion("14.2.0-19cross1"); got != "14.2.0-19" {
		t.Errorf("nativeVersion = %q", got)
	}
	if got := nativeVersion("2.44-3"); got != "2.44-3" {
		t.Errorf("nativeVersion = %q", got)
	}
}

// hostELF returns a dynamically linked x86_64 program of the host.
func hostELF(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("needs an x86_64 Linux host")
	}
	for _, p := range []string{"/usr/bin/true", "/bin/true"} {
		if d, err := elfDeps(p); err == nil && d.interp == x86Loader {
			return p
		}
	}
	t.Skip("no dynamically linked /usr/bin/true")
	return ""
}

func mustWrite(t *testing.T, p string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
}

func mustCopy(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, dst, data, 0o755)
}

func mustLink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// riscvELF is the start of a riscv64 ELF file: enough for isX86 to say no.
var riscvELF = append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xf3\x00"), make([]byte, 44)...)

// fakeTrees makes an amd64 tree whose cross tools are the host's /usr/bin/true (with
// its libraries and loader, laid out as Debian does with merged /usr) and a riscv64
// root filesystem with native programs of the same names.
func fakeTrees(t *testing.T) (amd, rootfs string) {
	t.Helper()
	prog := hostELF(t)
	amd, rootfs = t.TempDir(), t.TempDir()
	mustLink(t, "usr/lib", filepath.Join(amd, "lib"))
	mustLink(t, "usr/lib64", filepath.Join(amd, "lib64"))
	mustLink(t, "usr/lib", filepath.Join(rootfs, "lib"))
	loader, err := filepath.EvalSymlinks(x86Loader)
	if err != nil {
		t.Skip(err)
	}
	mustCopy(t, loader, filepath.Join(amd, "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"))
	mustLink(t, "../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", filepath.Join(amd, "usr/lib64/ld-linux-x86-64.so.2"))
	deps, err := elfDeps(prog)
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range deps.needed {
		src, err := filepath.EvalSymlinks(filepath.Join("/lib/x86_64-linux-gnu", lib))
		if err != nil {
			t.Skip(err)
		}
		mustCopy(t, src, filepath.Join(amd, "usr/lib/x86_64-linux-gnu", filepath.Base(src)))
		if filepath.Base(src) != lib {
			mustLink(t, filepath.Base(src), filepath.Join(amd, "usr/lib/x86_64-linux-gnu", lib))
		}
	}
	for _, n := range gccBackends {
		mustCopy(t, prog, filepath.Join(amd, "usr/libexec/gcc-cross/riscv64-linux-gnu/14", n))
		mustWrite(t, filepath.Join(rootfs, "usr/libexec/gcc/riscv64-linux-gnu/14", n), riscvELF, 0o755)
	}
	for _, n := range []string{"as", "ld.bfd", "ar"} {
		mustCopy(t, prog, filepath.Join(amd, "usr/bin/riscv64-linux-gnu-"+n))
		mustWrite(t, filepath.Join(rootfs, "usr/bin/riscv64-linux-gnu-"+n), riscvELF, 0o755)
	}
	mustLink(t, "riscv64-linux-gnu-ld.bfd", filepath.Join(amd, "usr/bin/riscv64-linux-gnu-ld"))
	mustLink(t, "riscv64-linux-gnu-ld.bfd", filepath.Join(rootfs, "usr/bin/riscv64-linux-gnu-ld"))
	for _, n := range goTools {
		mustCopy(t, prog, filepath.Join(amd, "usr/lib/go-1.24/pkg/tool/linux_amd64", n))
	}
	mustCopy(t, prog, filepath.Join(amd, wrapperShell))
	for _, e := range []string{"vector", "bits"} {
		mustWrite(t, filepath.Join(rootfs, "usr/include/c++/14", e), nil, 0o644)
	}
	mustWrite(t, filepath.Join(rootfs, dpkgStatusFile), []byte(statusText), 0o644)
	return amd, rootfs
}

func TestLayerBuilder(t *testing.T) {
	amd, rootfs := fakeTrees(t)
	out := t.TempDir()
	b := &layerBuilder{amd: amd, rootfs: rootfs, out: out, placed: map[string]string{}}
	swapped, extra, err := b.buildCLayer("14")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{}
	for _, n := range gccBackends {
		want = append(want, "/usr/libexec/gcc/riscv64-linux-gnu/14/"+n)
	}
	for _, n := range []string{"as", "ld", "ld.bfd", "ar"} {
		want = append(want, "/usr/bin/riscv64-linux-gnu-"+n)
	}
	if diff := cmp.Diff(sortedCopy(want), sortedCopy(swapped)); diff != "" {
		t.Errorf("swapped files (-want +got):\n%s", diff)
	}
	// cc1, cc1plus and lto1 are wrappers that run the native program or the root
	// filesystem's, both kept below the wrapper directory with the wrappers' shell.
	wantExtra := []string{"/usr/libexec/gcc/riscv64-linux-gnu/14/accel/sh"}
	for _, n := range []string{"cc1", "cc1plus", "lto1"} {
		w := wrapperPaths("14", n)
		wantExtra = append(wantExtra, w.native, w.emulated)
		script, err := os.ReadFile(filepath.Join(out, "c/usr/libexec/gcc/riscv64-linux-gnu/14", n))
		if err != nil || !strings.HasPrefix(string(script), "#!/usr/libexec/gcc/riscv64-linux-gnu/14/accel/sh\n") ||
			!strings.Contains(string(script), "exec "+w.native+` "$@"`) || !strings.Contains(string(script), "exec "+w.emulated+` "$@"`) {
			t.Errorf("%s is not the wrapper: %q %v", n, script, err)
		}
		if !isELFx86(t, filepath.Join(out, "c", w.native)) {
			t.Errorf("%s is not the native program", w.native)
		}
		if data, err := os.ReadFile(filepath.Join(out, "c", w.emulated)); err != nil || string(data) != string(riscvELF) {
			t.Errorf("%s is not the root filesystem's program: %v", w.emulated, err)
		}
	}
	if diff := cmp.Diff(wantExtra, extra); diff != "" {
		t.Errorf("added files (-want +got):\n%s", diff)
	}
	if _, err := b.buildGo("/usr/lib/go-1.24"); err != nil {
		t.Fatal(err)
	}
	if err := b.addLibraries(); err != nil {
		t.Fatal(err)
	}
	if err := b.checkCollisions(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"c/usr/bin/riscv64-linux-gnu-ld", "c/usr/libexec/gcc/riscv64-linux-gnu/14/cc1",
		"c/usr/libexec/gcc/riscv64-linux-gnu/14/collect2", "c/usr/libexec/gcc/riscv64-linux-gnu/14/accel/sh",
		"base/usr/lib/x86_64-linux-gnu/libc.so.6", "base/usr/lib64/ld-linux-x86-64.so.2", "go/compile", "go/link"} {
		fi, err := os.Lstat(filepath.Join(out, p))
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v %v", p, fi, err)
		}
	}
	links := map[string]string{
		"base/lib64": "usr/lib64",
		"c/usr/lib/gcc-cross/riscv64-linux-gnu/14":                 "../../gcc/riscv64-linux-gnu/14",
		"c/usr/riscv64-linux-gnu/include/c++/14/vector":            "/usr/include/c++/14/vector",
		"c/usr/riscv64-linux-gnu/include/c++/14/riscv64-linux-gnu": "/usr/include/riscv64-linux-gnu/c++/14",
	}
	for p, target := range links {
		if got, err := os.Readlink(filepath.Join(out, p)); err != nil || got != target {
			t.Errorf("%s -> %q (%v), want %q", p, got, err, target)
		}
	}

	// A library the root filesystem already has would be hidden: refused.
	mustWrite(t, filepath.Join(rootfs, "usr/lib/x86_64-linux-gnu/libc.so.6"), nil, 0o644)
	if err := b.checkCollisions(); err == nil || !strings.Contains(err.Error(), "libc.so.6") {
		t.Errorf("collision not refused: %v", err)
	}
}

// TestLayerBuilderGconv: the native compiler converts charsets through the x86_64 C
// library's converter modules, so the base layer carries them (configuration, cache and
// modules, the modules' own libraries too) at the path that library reads.
func TestLayerBuilderGconv(t *testing.T) {
	amd, rootfs := fakeTrees(t)
	prog, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	gconv := filepath.Join(amd, "usr/lib/x86_64-linux-gnu/gconv")
	mustWrite(t, filepath.Join(gconv, "gconv-modules"), []byte("module CP932// INTERNAL CP932 1\n"), 0o644)
	mustWrite(t, filepath.Join(gconv, "gconv-modules.d", "gconv-modules-extra.conf"), []byte("alias SJIS// CP932//\n"), 0o644)
	mustCopy(t, prog, filepath.Join(gconv, "CP932.so"))
	out := t.TempDir()
	b := &layerBuilder{amd: amd, rootfs: rootfs, out: out, placed: map[string]string{}}
	if err := b.addGconv(); err != nil {
		t.Fatal(err)
	}
	if err := b.addLibraries(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"gconv-modules", "gconv-modules.d/gconv-modules-extra.conf", "CP932.so"} {
		if fi, err := os.Lstat(filepath.Join(out, "base", x86Gconv, p)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(out, "base/usr/lib/x86_64-linux-gnu/libc.so.6")); err != nil {
		t.Errorf("the module's C library was not added: %v", err)
	}

	// Without converters in the amd64 tree the layout fails with a reason.
	amd2, rootfs2 := fakeTrees(t)
	b2 := &layerBuilder{amd: amd2, rootfs: rootfs2, out: t.TempDir(), placed: map[string]string{}}
	if err := b2.addGconv(); err == nil || !strings.Contains(err.Error(), "character-set converters") {
		t.Errorf("missing converters: %v", err)
	}
}

func TestLayerBuilderMissing(t *testing.T) {
	amd, rootfs := fakeTrees(t)
	if err := os.Remove(filepath.Join(amd, "usr/libexec/gcc-cross/riscv64-linux-gnu/14/cc1")); err != nil {
		t.Fatal(err)
	}
	b := &layerBuilder{amd: amd, rootfs: rootfs, out: t.TempDir(), placed: map[string]string{}}
	if _, _, err := b.buildCLayer("14"); err == nil || !strings.Contains(err.Error(), "cc1") {
		t.Errorf("missing cc1: %v", err)
	}
	amd, rootfs = fakeTrees(t)
	matches, _ := filepath.Glob(filepath.Join(amd, "usr/lib/x86_64-linux-gnu/libc.so*"))
	for _, m := range matches {
		os.Remove(m)
	}
	b = &layerBuilder{amd: amd, rootfs: rootfs, out: t.TempDir(), placed: map[string]string{}}
	if _, _, err := b.buildCLayer("14"); err != nil {
		t.Fatal(err)
	}
	if err := b.addLibraries(); err == nil || !strings.Contains(err.Error(), "libc.so.6") {
		t.Errorf("missing libc: %v", err)
	}
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// syncFixture is a run whose merged tree is a plain copy of the root filesystem with
// the accelerator's files put in, as the overlay would show it.
type syncFixture struct {
	a              *Run
	merged, rootfs string
}

func newSyncFixture(t *testing.T) syncFixture {
	t.Helper()
	amd, rootfs := fakeTrees(t)
	dir := t.TempDir()
	b := &layerBuilder{amd: amd, rootfs: rootfs, out: dir, placed: map[string]string{}}
	files, extra, err := b.buildCLayer("14")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := b.buildGo("/usr/lib/go-1.24")
	if err != nil {
		t.Fatal(err)
	}
	m := testMeta()
	m.CFiles, m.CExtra, m.GoTools = files, extra, tools
	merged := t.TempDir()
	if err := copyDir(rootfs, merged); err != nil {
		t.Fatal(err)
	}
	if err := copyDir(filepath.Join(dir, accelCLayer), merged); err != nil {
		t.Fatal(err)
	}
	a := &Run{logger: slog.New(slog.NewTextHandler(io.Discard, nil)), meta: m, dir: dir, cache: rootfs, cMounted: true,
		state: startToolchain(m, parseDpkgStatus([]byte(statusText)))}
	a.Attach(merged)
	return syncFixture{a: a, merged: merged, rootfs: rootfs}
}

func (f syncFixture) setStatus(t *testing.T, text string) {
	t.Helper()
	mustWrite(t, filepath.Join(f.merged, dpkgStatusFile), []byte(text), 0o644)
}

func (f syncFixture) x86(t *testing.T, p string) bool {
	t.Helper()
	g, err := beneath.OpenDir(f.merged)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	return isX86(g, p)
}

// ours reports whether the run's file p is the C layer's (a native program or a wrapper).
func (f syncFixture) ours(t *testing.T, p string) bool {
	t.Helper()
	g, err := beneath.OpenDir(f.merged)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	return f.a.fromCLayer(g, p)
}

// isELFx86 reports whether the host file p is an x86_64 ELF file.
func isELFx86(t *testing.T, p string) bool {
	t.Helper()
	g, err := beneath.OpenDir(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	return isX86(g, filepath.Base(p))
}

func TestAccelSync(t *testing.T) {
	f := newSyncFixture(t)
	cc1 := "/usr/libexec/gcc/riscv64-linux-gnu/14/cc1"
	ld := "/usr/bin/riscv64-linux-gnu-ld"
	compile := "/usr/lib/go-1.24/pkg/tool/linux_riscv64/compile"
	tc := f.a.Toolchain()
	// cc1 is the wrapper that runs the native program (or the emulated one for a plugin).
	native := wrapperPaths("14", "cc1").native
	if !tc.C.Accelerated || !tc.Go.Accelerated || !f.ours(t, cc1) || f.x86(t, cc1) || !f.x86(t, native) || !f.x86(t, ld) || !f.x86(t, compile) {
		t.Fatalf("start: %+v", tc)
	}

	// A reinstall of the same version puts the riscv64 program back: made native again.
	mustWrite(t, filepath.Join(f.merged, cc1), riscvELF, 0o755)
	f.a.Sync("apt-get install --reinstall cpp-14")
	if !f.ours(t, cc1) || !f.a.Toolchain().C.Accelerated {
		t.Errorf("after a same-version reinstall cc1 is not native: %+v", f.a.Toolchain())
	}

	// What a wrapper runs is put back when it went missing.
	if err := os.Remove(filepath.Join(f.merged, native)); err != nil {
		t.Fatal(err)
	}
	f.a.Sync("rm")
	if !f.x86(t, native) || !f.a.Toolchain().C.Accelerated {
		t.Errorf("the wrapper's native cc1 was not put back: %+v", f.a.Toolchain())
	}

	// An upgrade of binutils: every native program goes, ld included, and the links of
	// the root filesystem come back as links.
	f.setStatus(t, strings.Replace(statusText, "Version: 2.44-3", "Version: 2.44-4", 1))
	mustWrite(t, filepath.Join(f.merged, "/usr/bin/riscv64-linux-gnu-as"), riscvELF, 0o755)
	f.a.Sync("apt-get install -y binutils")
	tc = f.a.Toolchain()
	if tc.C.Accelerated || !strings.Contains(tc.C.Reason, "2.44-4") || len(tc.Changes) != 1 || !strings.Contains(tc.Changes[0], "apt-get install -y binutils") {
		t.Errorf("after the upgrade: %+v", tc)
	}
	for _, p := range f.a.meta.CFiles {
		if f.ours(t, p) {
			t.Errorf("%s is still the native build", p)
		}
	}
	if data, err := os.ReadFile(filepath.Join(f.merged, cc1)); err != nil || string(data) != string(riscvELF) {
		t.Errorf("cc1 is not the root filesystem's program again: %v", err)
	}
	if target, err := os.Readlink(filepath.Join(f.merged, ld)); err != nil || target != "riscv64-linux-gnu-ld.bfd" {
		t.Errorf("ld -> %q %v, want the root filesystem's link", target, err)
	}

	// Go's package removed: Go is emulated (nothing to run), and says so.
	f.setStatus(t, strings.Replace(statusText, "Version: 1.24.4-1", "Version: 1.24.5-1", 1))
	f.a.Sync("apt-get install -y golang-go")
	if tc := f.a.Toolchain(); tc.Go.Accelerated || !strings.Contains(tc.Go.Reason, "1.24.5-1") {
		t.Errorf("after a Go upgrade: %+v", tc.Go)
	}
}

// TestAccelSyncLinkAttack: a build plants links where the native programs go; putting
// them in place must not write through the links to the host.
func TestAccelSyncLinkAttack(t *testing.T) {
	f := newSyncFixture(t)
	victim := filepath.Join(t.TempDir(), "victim")
	mustWrite(t, victim, []byte("host file"), 0o644)
	for _, p := range []string{"/usr/lib/go-1.24/pkg/tool/linux_riscv64/compile", "/usr/libexec/gcc/riscv64-linux-gnu/14/cc1"} {
		host := filepath.Join(f.merged, p)
		os.Remove(host)
		mustLink(t, victim, host)
	}
	// The parent directory as a link to the host.
	tools := filepath.Join(f.merged, "/usr/lib/go-1.24/pkg/tool/linux_riscv64")
	if err := os.RemoveAll(tools); err != nil {
		t.Fatal(err)
	}
	mustLink(t, filepath.Dir(victim), tools)
	f.a.Sync("apt-get install -y golang-go")
	if data, err := os.ReadFile(victim); err != nil || string(data) != "host file" {
		t.Fatalf("the host file was written through a link: %q %v", data, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(victim)); len(entries) != 1 {
		t.Errorf("files were created on the host: %v", entries)
	}
}

func TestToolchainString(t *testing.T) {
	tc := Toolchain{C: ToolchainPart{Accelerated: true, Versions: map[string]string{"gcc-14-riscv64-linux-gnu": "14.2.0-19", "binutils-riscv64-linux-gnu": "2.44-3"}},
		Go: ToolchainPart{Reason: "golang-1.24-go is not installed"}}
	want := "C/C++ accelerated (binutils-riscv64-linux-gnu 2.44-3, gcc-14-riscv64-linux-gnu 14.2.0-19); Go emulated: golang-1.24-go is not installed"
	if got := tc.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// copyDir copies the tree src (directories, regular files, links) into dest, replacing
// what is there, as an overlay's merged tree shows a layer over another.
func copyDir(src, dest string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dest, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_ = os.Remove(to)
			return os.Symlink(target, to)
		default:
			fi, err := d.Info()
			if err != nil {
				return err
			}
			_ = os.Remove(to)
			return copyFile(p, to, fi.Mode().Perm())
		}
	})
}
