package accel

// Laying out the accelerator layers from an amd64 tree (see the notes in accel.go).

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/osroot"
)

// gccBackends are the GCC programs swapped for their native cross builds: everything
// below /usr/libexec/gcc/riscv64-linux-gnu/N that does real work. The drivers (gcc, g++)
// stay emulated; they only exec these.
var gccBackends = []string{"cc1", "cc1plus", "lto1", "collect2", "lto-wrapper", "liblto_plugin.so"}

// requiredBackends must exist in the amd64 tree.
var requiredBackends = map[string]bool{"cc1": true, "collect2": true, "lto-wrapper": true, "liblto_plugin.so": true}

// binutilsTools are the binutils programs swapped (as /usr/bin/riscv64-linux-gnu-NAME).
// They move together with liblto_plugin.so: an emulated ld cannot load a native plugin.
var binutilsTools = []string{"as", "ld", "ld.bfd", "ar", "nm", "ranlib", "objcopy", "objdump", "strip", "readelf",
	"size", "strings", "addr2line", "c++filt", "elfedit", "gprof"}

// x86Loader is the program interpreter of the x86_64 tools; a riscv64 system has no
// /lib64, so the layer adds /lib64 -> usr/lib64.
const x86Loader = "/lib64/ld-linux-x86-64.so.2"

// x86LibDirs are the default library directories of the x86_64 loader on Debian.
var x86LibDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"}

// layerBuilder places files from the amd64 tree (amd) into the layers under out, for
// the riscv64 root filesystem rootfs.
type layerBuilder struct {
	amd, rootfs, out string
	placed           map[string]string // layer-relative sandbox path -> source host path
	elfs             []string          // host paths of placed ELF files whose libraries to add
}

func (b *layerBuilder) layer(name string) string { return filepath.Join(b.out, name) }

// place copies (hard links when possible) the regular file src to the sandbox path dst
// of the layer.
func (b *layerBuilder) place(layer, dst, src string) error {
	key := layer + ":" + dst
	if _, ok := b.placed[key]; ok {
		return nil
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", src)
	}
	host := osroot.HostPath(b.layer(layer), dst)
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		return err
	}
	if err := os.Link(src, host); err != nil {
		if err := copyFile(src, host, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	b.placed[key] = src
	if isELF(src) && !isRISCV(src) {
		b.elfs = append(b.elfs, src) // the x86_64 loader needs its libraries
	}
	return nil
}

// write makes the regular file dst of a layer with the given contents.
func (b *layerBuilder) write(layer, dst string, data []byte, perm fs.FileMode) error {
	host := osroot.HostPath(b.layer(layer), dst)
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(host, data, perm); err != nil {
		return err
	}
	return os.Chmod(host, perm)
}

// rootfsFile returns the host path of the regular file the riscv64 root filesystem has
// at the sandbox path p (links followed in the tree's coordinates).
func (b *layerBuilder) rootfsFile(p string) (string, bool) {
	r, err := osroot.Resolve(b.rootfs, p)
	if err != nil {
		return "", false
	}
	host := osroot.HostPath(b.rootfs, r)
	fi, err := os.Stat(host)
	return host, err == nil && fi.Mode().IsRegular()
}

// link makes the symbolic link dst -> target in a layer.
func (b *layerBuilder) link(layer, dst, target string) error {
	host := osroot.HostPath(b.layer(layer), dst)
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		return err
	}
	return os.Symlink(target, host)
}

// amdFile resolves a sandbox path of the amd64 tree to the host path of the file it
// names (links followed in the tree's coordinates).
func (b *layerBuilder) amdFile(p string) (string, error) {
	r, err := osroot.Resolve(b.amd, p)
	if err != nil {
		return "", err
	}
	host := osroot.HostPath(b.amd, r)
	if _, err := os.Stat(host); err != nil {
		return "", err
	}
	return host, nil
}

// inRootfs reports whether the riscv64 root filesystem has the sandbox path p (the
// final component not followed).
func (b *layerBuilder) inRootfs(p string) bool {
	dir, err := osroot.Resolve(b.rootfs, path.Dir(p))
	if err != nil {
		return false
	}
	return lstatOK(osroot.HostPath(b.rootfs, path.Join(dir, path.Base(p))))
}

// buildCLayer lays out the compiler and binutils layer and returns the sandbox paths
// of the swapped programs (paths of the root filesystem's packages) and of the files
// it adds where no package has one (the compilers' wrapper interpreter, native and
// emulated programs).
func (b *layerBuilder) buildCLayer(major string) (swapped, extra []string, err error) {
	native := "/usr/libexec/gcc/riscv64-linux-gnu/" + major
	wrapped := false
	for _, n := range gccBackends {
		src, err := b.amdFile("/usr/libexec/gcc-cross/riscv64-linux-gnu/" + major + "/" + n)
		if err != nil {
			if requiredBackends[n] {
				return nil, nil, fmt.Errorf("the amd64 cross compiler lacks %s: %w", n, err)
			}
			continue
		}
		dst := native + "/" + n
		if emul, ok := b.rootfsFile(dst); ok && pluginCompilers[n] {
			// The wrapper goes where the driver looks for the compiler; the two programs it
			// chooses from go below the wrapper directory.
			w := wrapperPaths(major, n)
			if err := b.place(accelCLayer, w.native, src); err != nil {
				return nil, nil, err
			}
			if err := b.place(accelCLayer, w.emulated, emul); err != nil {
				return nil, nil, err
			}
			if err := b.write(accelCLayer, dst, wrapperScript(w), 0o755); err != nil {
				return nil, nil, err
			}
			extra = append(extra, w.native, w.emulated)
			wrapped = true
		} else if err := b.place(accelCLayer, dst, src); err != nil {
			return nil, nil, err
		}
		swapped = append(swapped, dst)
	}
	if wrapped {
		sh, err := b.amdFile(wrapperShell)
		if err != nil {
			return nil, nil, fmt.Errorf("the amd64 tree lacks the shell of the compiler wrappers: %w", err)
		}
		interp := wrapperDir(major) + "/sh"
		if err := b.place(accelCLayer, interp, sh); err != nil {
			return nil, nil, err
		}
		extra = append([]string{interp}, extra...)
	}
	for _, t := range binutilsTools {
		p := "/usr/bin/riscv64-linux-gnu-" + t
		if !b.inRootfs(p) {
			continue // the riscv64 binutils has no such program: add nothing new
		}
		src, err := b.amdFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("the amd64 cross binutils lack %s while the root filesystem has it: %w", p, err)
		}
		if err := b.place(accelCLayer, p, src); err != nil {
			return nil, nil, err
		}
		swapped = append(swapped, p)
	}
	// The cross backends look for GCC's own headers and libraries below gcc-cross.
	if cross := "/usr/lib/gcc-cross/riscv64-linux-gnu/" + major; !b.inRootfs(cross) {
		if err := b.link(accelCLayer, cross, "../../gcc/riscv64-linux-gnu/"+major); err != nil {
			return nil, nil, err
		}
	}
	// ... and for the C++ library headers below /usr/riscv64-linux-gnu/include/c++/N.
	cxx := "/usr/riscv64-linux-gnu/include/c++/" + major
	if !b.inRootfs(cxx) {
		entries, err := os.ReadDir(osroot.HostPath(b.rootfs, "/usr/include/c++/"+major))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		for _, e := range entries {
			if err := b.link(accelCLayer, cxx+"/"+e.Name(), "/usr/include/c++/"+major+"/"+e.Name()); err != nil {
				return nil, nil, err
			}
		}
		if len(entries) > 0 {
			if err := b.link(accelCLayer, cxx+"/riscv64-linux-gnu", "/usr/include/riscv64-linux-gnu/c++/"+major); err != nil {
				return nil, nil, err
			}
		}
	}
	return swapped, extra, nil
}

// goTools are the Go tools swapped for their amd64 builds. The riscv64 go command stays
// emulated: it sets GOOS and GOARCH in the tools' environment, so the amd64 tools
// produce riscv64 code while go itself, go version, go env and go install behave as on
// riscv64.
var goTools = []string{"compile", "link", "asm", "cgo", "vet"}

// buildGo copies the amd64 Go tools to <out>/go/ (a run copies them into its GOROOT
// when its Go package matches) and returns their names.
func (b *layerBuilder) buildGo(goroot string) ([]string, error) {
	dir := filepath.Join(b.out, accelGoDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	for _, t := range goTools {
		src, err := b.amdFile(goroot + "/pkg/tool/linux_amd64/" + t)
		if err != nil {
			return nil, fmt.Errorf("the amd64 Go lacks its %s tool: %w", t, err)
		}
		dst := filepath.Join(dir, t)
		if err := os.Link(src, dst); err != nil {
			if err := copyFile(src, dst, 0o755); err != nil {
				return nil, err
			}
		}
		b.elfs = append(b.elfs, src)
		names = append(names, t)
	}
	return names, nil
}

// x86Gconv is where the x86_64 C library looks for its character-set converters (iconv
// modules): the compiler's -finput-charset, -fexec-charset and -fwide-exec-charset
// convert through them, so without them a native cc1 refuses a charset the emulated
// one accepts.
const x86Gconv = "/usr/lib/x86_64-linux-gnu/gconv"

// addGconv copies the amd64 tree's converter modules and their configuration into the
// base layer at the path the x86_64 C library reads them from, and queues the modules
// so that addLibraries brings the libraries they need.
func (b *layerBuilder) addGconv() error {
	root, err := b.amdFile(x86Gconv)
	if err != nil {
		return fmt.Errorf("the amd64 tree has no character-set converters (%s): %w", x86Gconv, err)
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil // directories are made by place; the tree has no links here
		}
		rel := filepath.ToSlash(mustRel(root, p))
		if err := b.place(accelBaseLayer, x86Gconv+"/"+rel, p); err != nil {
			return err
		}
		if strings.HasSuffix(p, ".so") {
			b.elfs = append(b.elfs, p)
		}
		return nil
	})
}

// addLibraries puts the program interpreter and every shared library the placed ELF
// files need (transitively, following DT_NEEDED with RUNPATH and the default
// directories) into the base layer, at the paths the x86_64 loader looks in.
func (b *layerBuilder) addLibraries() error {
	seen := map[string]bool{}
	queue := append([]string(nil), b.elfs...)
	needLoader := false
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f] {
			continue
		}
		seen[f] = true
		deps, err := elfDeps(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if deps.interp != "" {
			if deps.interp != x86Loader {
				return fmt.Errorf("%s: program interpreter %s, want %s", f, deps.interp, x86Loader)
			}
			needLoader = true
		}
		for _, lib := range deps.needed {
			dst, src, err := b.findLibrary(lib, deps.runpath, f)
			if err != nil {
				return err
			}
			if err := b.place(accelBaseLayer, dst, src); err != nil {
				return err
			}
			queue = append(queue, src)
		}
	}
	if needLoader {
		src, err := b.amdFile(x86Loader)
		if err != nil {
			return fmt.Errorf("the amd64 tree lacks the loader: %w", err)
		}
		if err := b.place(accelBaseLayer, "/usr/lib64/"+path.Base(x86Loader), src); err != nil {
			return err
		}
		if !b.inRootfs("/lib64") {
			if err := b.link(accelBaseLayer, "/lib64", "usr/lib64"); err != nil {
				return err
			}
		}
	}
	return nil
}

// findLibrary finds a needed library in the amd64 tree and returns its canonical
// sandbox path (directory links resolved, the name kept) and the host file.
func (b *layerBuilder) findLibrary(name string, runpath []string, from string) (string, string, error) {
	origin := "/" + filepath.ToSlash(mustRel(b.amd, filepath.Dir(from)))
	var dirs []string
	for _, rp := range runpath {
		for _, d := range strings.Split(rp, ":") {
			if d != "" {
				dirs = append(dirs, strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", origin), "$ORIGIN", origin))
			}
		}
	}
	dirs = append(dirs, x86LibDirs...)
	for _, d := range dirs {
		rd, err := osroot.Resolve(b.amd, d)
		if err != nil {
			continue
		}
		p := path.Join(rd, name)
		src, err := b.amdFile(p)
		if err != nil || !isELF(src) {
			continue
		}
		return p, src, nil
	}
	return "", "", fmt.Errorf("library %s needed by %s is not in the amd64 tree", name, from)
}

func mustRel(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return ""
	}
	return r
}

// elfInfo is what the loader needs of one ELF file.
type elfInfo struct {
	interp  string
	needed  []string
	runpath []string
}

func elfDeps(file string) (elfInfo, error) {
	f, err := elf.Open(file)
	if err != nil {
		return elfInfo{}, err
	}
	defer f.Close()
	var info elfInfo
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			data := make([]byte, p.Filesz)
			if _, err := p.ReadAt(data, 0); err != nil {
				return info, err
			}
			info.interp = strings.TrimRight(string(data), "\x00")
		}
	}
	if f.Section(".dynamic") == nil {
		return info, nil
	}
	if info.needed, err = f.DynString(elf.DT_NEEDED); err != nil {
		return info, err
	}
	rp, _ := f.DynString(elf.DT_RUNPATH)
	rpath, _ := f.DynString(elf.DT_RPATH)
	info.runpath = append(rp, rpath...)
	return info, nil
}

// isELF reports whether the file starts with the ELF magic.
func isELF(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = f.ReadAt(magic[:], 0)
	return err == nil && string(magic[:]) == elf.ELFMAG
}

// isRISCV reports whether the ELF file is a riscv64 one (the root filesystem's program a
// wrapper falls back to), whose libraries the root filesystem has.
func isRISCV(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	var hdr [20]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return false
	}
	return elf.Machine(binary.LittleEndian.Uint16(hdr[18:])) == elf.EM_RISCV
}

// checkCollisions refuses a base layer that would hide a file of the root filesystem:
// only the C layer replaces files, and only the ones it is meant to.
func (b *layerBuilder) checkCollisions() error {
	var hidden []string
	base := b.layer(accelBaseLayer)
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := "/" + filepath.ToSlash(mustRel(base, p))
		if b.inRootfs(rel) {
			hidden = append(hidden, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(hidden) > 0 {
		sort.Strings(hidden)
		return fmt.Errorf("the x86_64 files would hide files of the root filesystem: %s", strings.Join(hidden, ", "))
	}
	return nil
}

// copyFile copies the host file src to dest (a host program or library put into a
// sandbox layer: trusted input), replacing a link at dest instead of writing through it.
func copyFile(src, dest string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if li, err := os.Lstat(dest); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if err := os.Remove(dest); err != nil {
			return err
		}
	}
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dest, perm)
}
