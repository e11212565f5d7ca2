package optimize

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
)

// The files of the counter's tool directory.
const (
	counterLoader = "ld-linux-x86-64.so.2"
	counterQemu   = "qemu-riscv64"
	counterPlugin = "insncount.so"
)

// insnPluginSource is the counting plugin (insncount/insncount.c), compiled on the host.
//
//go:embed insncount/insncount.c
var insnPluginSource []byte

// ErrNoCounter is wrapped by [PrepareCounter]'s errors when the host lacks what
// counting needs.
var ErrNoCounter = errors.New("no instruction counter")

// HostCounter returns an [Optimizer.CounterTools] that prepares the counter's tools in
// cacheDir (see [PrepareCounter]).
func HostCounter(cacheDir string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) { return PrepareCounter(ctx, cacheDir) }
}

// PrepareCounter lays out, under cacheDir, the tools that count guest instructions and
// returns their directory: the host's dynamically linked qemu-riscv64 (Debian's
// qemu-user, built with TCG plugins, unlike the static emulator binfmt runs), every
// shared library it loads and the host's x86-64 loader (so it runs inside the riscv64
// sandbox), and the counting plugin compiled from its embedded source with the host's
// C compiler. A directory made before for the same emulator and plugin is reused.
func PrepareCounter(ctx context.Context, cacheDir string) (string, error) {
	qemu, cc, err := counterHostTools()
	if err != nil {
		return "", err
	}
	sum, err := fileSum(qemu)
	if err != nil {
		return "", fmt.Errorf("%w: read %s: %v", ErrNoCounter, qemu, err)
	}
	h := sha256.New()
	h.Write(sum)
	h.Write(insnPluginSource)
	dir := filepath.Join(cacheDir, hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, counterPlugin)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoCounter, err)
	}
	tmp, err := os.MkdirTemp(cacheDir, ".tmp-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoCounter, err)
	}
	defer os.RemoveAll(tmp)
	if err := layOutCounter(ctx, tmp, qemu, cc); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoCounter, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, counterPlugin)); serr == nil {
			return dir, nil // made meanwhile by another run
		}
		return "", fmt.Errorf("%w: %v", ErrNoCounter, err)
	}
	return dir, nil
}

// CheckCounter reports whether the host has what counting guest instructions needs (see
// [PrepareCounter]) without laying anything out; its error, wrapping [ErrNoCounter],
// says what to install.
func CheckCounter() error {
	_, _, err := counterHostTools()
	return err
}

// counterHostTools finds the host's dynamically linked qemu-riscv64 and C compiler.
func counterHostTools() (qemu, cc string, err error) {
	qemu, err = exec.LookPath(counterQemu)
	if err != nil {
		return "", "", fmt.Errorf("%w: the host has no dynamically linked qemu-riscv64 with TCG plugin support; install it with: apt-get install -y --no-install-recommends qemu-user", ErrNoCounter)
	}
	if !dynamic(qemu) {
		return "", "", fmt.Errorf("%w: %s is statically linked, and a static qemu-user cannot load TCG plugins; install Debian's qemu-user (apt-get install -y --no-install-recommends qemu-user)", ErrNoCounter, qemu)
	}
	for _, c := range []string{"gcc", "cc"} {
		if p, err := exec.LookPath(c); err == nil {
			return qemu, p, nil
		}
	}
	return "", "", fmt.Errorf("%w: the host has no C compiler to build the counting plugin; install it with: apt-get install -y gcc", ErrNoCounter)
}

func layOutCounter(ctx context.Context, dir, qemu, cc string) error {
	src := filepath.Join(dir, "insncount.c")
	if err := os.WriteFile(src, insnPluginSource, 0o644); err != nil {
		return err
	}
	build := exec.CommandContext(ctx, cc, "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o", filepath.Join(dir, counterPlugin), src)
	build.Env = hostenv.Environ()
	out, err := build.CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the counting plugin with %s failed: %v: %s", cc, err, lastLine(string(out)))
	}
	ldd := exec.CommandContext(ctx, "ldd", qemu)
	ldd.Env = hostenv.Environ()
	out, err = ldd.Output()
	if err != nil {
		return fmt.Errorf("listing the libraries of %s (ldd) failed: %v", qemu, err)
	}
	libs, loader, err := ParseLdd(string(out))
	if err != nil {
		return fmt.Errorf("the libraries of %s: %w", qemu, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		return err
	}
	for name, p := range libs {
		if err := copyHostFile(p, filepath.Join(dir, "lib", name), 0o644); err != nil {
			return err
		}
	}
	if err := copyHostFile(loader, filepath.Join(dir, counterLoader), 0o755); err != nil {
		return err
	}
	return copyHostFile(qemu, filepath.Join(dir, counterQemu), 0o755)
}

// ParseLdd reads ldd's output: the libraries by the name the program asks for, with the
// file each resolves to, and the program's loader. A library ldd could not find is an
// error.
func ParseLdd(out string) (libs map[string]string, loader string, err error) {
	libs = map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "linux-vdso") || strings.HasPrefix(line, "linux-gate") {
			continue
		}
		name, target, arrow := strings.Cut(line, " => ")
		if !arrow {
			// The loader: "/lib64/ld-linux-x86-64.so.2 (0x...)".
			if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "/") {
				loader = f[0]
			}
			continue
		}
		f := strings.Fields(target)
		if len(f) == 0 || f[0] == "not" {
			return nil, "", fmt.Errorf("%s is not found on the host", strings.TrimSpace(name))
		}
		libs[strings.TrimSpace(name)] = f[0]
	}
	if loader == "" {
		return nil, "", errors.New("ldd named no loader")
	}
	if len(libs) == 0 {
		return nil, "", errors.New("ldd named no libraries")
	}
	return libs, loader, nil
}

// dynamic reports whether the ELF file p has a program interpreter.
func dynamic(p string) bool {
	f, err := elf.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

func fileSum(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// copyHostFile copies the file src resolves to (links followed) to dest.
func copyHostFile(src, dest string, perm os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dest, b, perm)
}
