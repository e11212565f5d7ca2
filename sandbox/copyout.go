package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/beneath"
	"github.com/eclipse-atesor/atesor-go/internal/ctxio"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
)

// What a sandbox hands back is written by a build that may be hostile: a program
// replaced by a link to /dev/zero, a 2 GiB sparse file, a FIFO, a link to a host
// directory. Copying out therefore takes regular files only, counts each file's
// logical size (a sparse file counts in full) against a per-file and a per-copy bound
// before reading a byte, reads no more than it counted, and writes only through an
// [os.Root] of the destination, replacing whatever sits at a destination name instead
// of writing through it.

// Environment variables that raise the copy-out bounds; the CLI maps them onto the
// settings, and errors name them.
const (
	EnvCopyMaxFileBytes = "ATESOR_COPY_MAX_FILE_BYTES"
	EnvCopyMaxBytes     = "ATESOR_COPY_MAX_BYTES"
)

// DefaultCopyTimeout bounds one copy out of a sandbox: far more than the default
// bounds take on any disk, so only a stuck copy reaches it.
const DefaultCopyTimeout = 20 * time.Minute

// CopyLimits bounds what one copy out of a sandbox writes on the host. Zero or
// negative byte fields mean no bound.
type CopyLimits struct {
	// MaxFileBytes bounds each file, by its logical size.
	MaxFileBytes int64
	// MaxTotalBytes bounds all the files of the copy (or of every copy sharing one
	// [CopyBudget]).
	MaxTotalBytes int64
	// FileSetting and TotalSetting name what raises each bound; errors repeat them
	// (default: [EnvCopyMaxFileBytes] and [EnvCopyMaxBytes]).
	FileSetting, TotalSetting string
	// Timeout bounds the copy's wall time (default [DefaultCopyTimeout]).
	Timeout time.Duration
}

// DefaultCopyLimits returns the bounds of copies the backends make: 1 GiB per file and
// 4 GiB per copy, above the largest shared libraries and static archives a port makes
// (a libLLVM with its debug information is a few hundred MiB), below what fills a disk.
func DefaultCopyLimits() CopyLimits {
	return CopyLimits{MaxFileBytes: 1 << 30, MaxTotalBytes: 4 << 30,
		FileSetting: EnvCopyMaxFileBytes, TotalSetting: EnvCopyMaxBytes, Timeout: DefaultCopyTimeout}
}

func (l CopyLimits) fileSetting() string {
	if l.FileSetting == "" {
		return EnvCopyMaxFileBytes
	}
	return l.FileSetting
}

func (l CopyLimits) totalSetting() string {
	if l.TotalSetting == "" {
		return EnvCopyMaxBytes
	}
	return l.TotalSetting
}

// CopyLimitError says that a copy out of a sandbox went beyond a bound of [CopyLimits].
type CopyLimitError struct {
	Path    string // the sandbox-side file
	What    string // "file" (the per-file bound) or "total" (the per-copy bound)
	Size    int64  // the file's logical size, or the bytes the copy would reach
	Limit   int64
	Setting string // what raises the bound
}

func (e *CopyLimitError) Error() string {
	if e.What == "file" {
		return fmt.Sprintf("%s is %d bytes, more than the %d bytes one file may copy out; if the file is genuine, raise the limit with %s", e.Path, e.Size, e.Limit, e.Setting)
	}
	return fmt.Sprintf("copying %s would bring the copy to %d bytes, more than the %d bytes one run may copy out; if the files are genuine, raise the limit with %s", e.Path, e.Size, e.Limit, e.Setting)
}

// FileTypeError says that a path to copy out is not a regular file or directory (a
// symbolic link, device, FIFO or socket), which copying out refuses.
type FileTypeError struct {
	Path string
	Type string
}

func (e *FileTypeError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file: only regular files are copied out of the sandbox", e.Path, e.Type)
}

// fileType names the type of a file mode for messages.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// CopyBudget is the byte budget shared by the copies of one run; safe for concurrent
// use.
type CopyBudget struct {
	l    CopyLimits
	mu   sync.Mutex
	used int64
}

// NewCopyBudget returns a budget with the limits l.
func NewCopyBudget(l CopyLimits) *CopyBudget { return &CopyBudget{l: l} }

// Limits returns the budget's limits.
func (b *CopyBudget) Limits() CopyLimits { return b.l }

// Used returns the bytes taken so far.
func (b *CopyBudget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// take counts a file of size bytes, or refuses it.
func (b *CopyBudget) take(name string, size int64) error {
	if b.l.MaxFileBytes > 0 && size > b.l.MaxFileBytes {
		return &CopyLimitError{Path: name, What: "file", Size: size, Limit: b.l.MaxFileBytes, Setting: b.l.fileSetting()}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.l.MaxTotalBytes > 0 && b.used+size > b.l.MaxTotalBytes {
		return &CopyLimitError{Path: name, What: "total", Size: b.used + size, Limit: b.l.MaxTotalBytes, Setting: b.l.totalSetting()}
	}
	b.used += size
	return nil
}

// testHookCopyOpened, when set by a test, runs after a file to copy out was opened and
// counted, before a byte is read (a build that keeps writing the file does so then).
var testHookCopyOpened func(src string)

// openRegular opens the host file p for reading when it is a regular file, and
// refuses anything else without opening it for read: the last component is never
// followed, a FIFO cannot block the open (O_NONBLOCK), and the file opened must be the
// one examined (a swap between the two is refused).
func openRegular(p string) (*os.File, fs.FileInfo, error) {
	return openRegularIn(nil, p)
}

// openRegularIn is [openRegular] of rel inside r (r nil: rel is a host path), so that
// no component of rel leads out of r either.
func openRegularIn(r *os.Root, p string) (*os.File, fs.FileInfo, error) {
	lstat, open := os.Lstat, os.OpenFile
	if r != nil {
		lstat, open = r.Lstat, r.OpenFile
	}
	li, err := lstat(p)
	if err != nil {
		return nil, nil, err
	}
	if !li.Mode().IsRegular() {
		return nil, nil, &FileTypeError{Path: p, Type: fileType(li.Mode())}
	}
	f, err := open(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(li, fi) {
		f.Close()
		return nil, nil, fmt.Errorf("%s changed while it was opened", p)
	}
	return f, fi, nil
}

// copyRegularOut copies the regular host file src (of a sandbox, named name in
// errors) to rel inside dest within b, and returns the SHA-256 of what it wrote. The
// file is written to a fresh temporary name and renamed over rel, so a link, FIFO or
// hard link already at rel is replaced, never written through.
func copyRegularOut(ctx context.Context, name, src string, dest *os.Root, rel string, b *CopyBudget) (string, error) {
	return copyRegularOutIn(ctx, name, nil, src, dest, rel, b)
}

// copyRegularOutIn is [copyRegularOut] of src inside the root sr (nil: a host path).
func copyRegularOutIn(ctx context.Context, name string, sr *os.Root, src string, dest *os.Root, rel string, b *CopyBudget) (string, error) {
	in, fi, err := openRegularIn(sr, src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	return copyOpenedOut(ctx, name, in, fi.Size(), fi.Mode().Perm(), dest, rel, b)
}

// copyOpenedOut copies the open regular file in, of size bytes when it was opened, to
// rel inside dest within b (see [copyRegularOut]).
func copyOpenedOut(ctx context.Context, name string, in *os.File, size int64, perm fs.FileMode, dest *os.Root, rel string, b *CopyBudget) (string, error) {
	src := in.Name()
	if err := b.take(name, size); err != nil {
		return "", err
	}
	if testHookCopyOpened != nil {
		testHookCopyOpened(src)
	}
	h := sha256.New()
	// A file that grows while it is copied is cut at the size that was counted and
	// refused: one byte more tells it from a file that ends there.
	r := io.LimitReader(ctxio.Reader(ctx, in), size+1)
	if err := writeInRoot(dest, rel, io.TeeReader(r, h), perm, size, name); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeInRoot writes in to rel inside r through a temporary file renamed into place;
// when want >= 0, a source longer than want bytes is refused (and nothing is left).
func writeInRoot(r *os.Root, rel string, in io.Reader, perm fs.FileMode, want int64, name string) error {
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return fmt.Errorf("copy out %s: destination %q is not inside the output directory", name, rel)
	}
	if dir := path.Dir(rel); dir != "." {
		if err := osroot.MkdirAll(r, dir, 0o755); err != nil {
			return err
		}
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+".atesor-"+hex.EncodeToString(rnd[:]))
	out, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, in)
	if err == nil && want >= 0 && n > want {
		err = fmt.Errorf("%s grew while it was copied out (more than the %d bytes it had)", name, want)
	}
	if err == nil {
		err = out.Chmod(perm)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = osroot.Rename(r, tmp, rel)
		if err != nil {
			// A directory at the destination name: remove it (links inside are removed,
			// never followed) and try once more.
			if fi, lerr := r.Lstat(rel); lerr == nil && fi.IsDir() {
				if err = osroot.RemoveAll(r, rel); err == nil {
					err = osroot.Rename(r, tmp, rel)
				}
			}
		}
	}
	if err != nil {
		_ = r.Remove(tmp)
		return err
	}
	return nil
}

// copyTreeOut copies the host directory src (of a sandbox) into dest within b: its
// directories, its regular files (each hard link as a copy of its own, counted again),
// and the symbolic links whose relative targets stay inside the tree. Other links,
// devices, FIFOs and sockets are left out and logged.
func copyTreeOut(ctx context.Context, src string, dest *os.Root, prefix string, b *CopyBudget, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	sr, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer sr.Close()
	var dirs osroot.DirTimes
	err = fs.WalkDir(sr.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		out := path.Join(prefix, p)
		fi, err := sr.Lstat(p)
		if err != nil {
			return err
		}
		switch m := fi.Mode(); {
		case m.IsDir():
			if out != "." {
				if err := osroot.MkdirAll(dest, out, 0o755); err != nil {
					return err
				}
				dirs.Add(out, fi.ModTime())
			}
			return nil
		case m&fs.ModeSymlink != 0:
			target, err := osroot.Readlink(sr, p)
			if err != nil {
				return err
			}
			if !beneath.InTreeLink(p, target) {
				logger.Warn("sandbox: copy out: leaving out a link that leads out of the tree", "path", p, "target", target)
				return nil
			}
			if dir := path.Dir(out); dir != "." {
				if err := osroot.MkdirAll(dest, dir, 0o755); err != nil {
					return err
				}
			}
			if err := osroot.RemoveAll(dest, out); err != nil {
				return err
			}
			return osroot.SymlinkAt(dest, target, out)
		case m.IsRegular():
			_, err := copyRegularOutIn(ctx, p, sr, p, dest, out, b)
			return err
		default:
			logger.Warn("sandbox: copy out: leaving out a file that is not regular", "path", p, "type", fileType(m))
			return nil
		}
	})
	if err != nil {
		return err
	}
	return dirs.Apply(dest)
}

// copyOutHost copies the host file or directory src (inside a sandbox) to dest on the
// host within the bounds l: a directory as [copyTreeOut] does, a single file only when
// it is regular (a link, device or FIFO is a [*FileTypeError]).
func copyOutHost(ctx context.Context, src, dest string, l CopyLimits, logger *slog.Logger) error {
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultCopyTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("copy out of %s did not finish within %s", src, timeout))
	defer cancel()
	b := NewCopyBudget(l)
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return err
		}
		r, err := os.OpenRoot(dest)
		if err != nil {
			return err
		}
		defer r.Close()
		return copyTreeOut(ctx, src, r, ".", b, logger)
	}
	if !fi.Mode().IsRegular() {
		return &FileTypeError{Path: src, Type: fileType(fi.Mode())}
	}
	if di, err := os.Lstat(dest); err == nil && di.IsDir() {
		dest = filepath.Join(dest, filepath.Base(src))
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	r, err := os.OpenRoot(filepath.Dir(dest))
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = copyRegularOut(ctx, src, src, r, filepath.Base(dest), b)
	return err
}

// CopyOutHostPath copies the host file or directory src, which belongs to a sandbox
// whose files are on the host, to dest on the host, as the backends' CopyOut does:
// within l, regular files, directories and the links that stay inside a copied tree.
// Sandboxes of other packages (test fakes, embedders' backends) use it to keep the same
// rules.
func CopyOutHostPath(ctx context.Context, src, dest string, l CopyLimits, logger *slog.Logger) error {
	return copyOutHost(ctx, src, dest, l, logger)
}

// CopyOutFile copies the regular file sandboxPath of sb to rel inside the host
// directory dest within b, and returns the SHA-256 of the bytes written (the caller
// compares it with what it verified). A sandbox with a host tree ([HostTree]) is read
// through the [Gate], the path never followed at its end; one whose files are visible
// on the host ([HostPather]) is read directly with the same checks; any other is asked
// to copy the file into a private temporary directory first, which is then copied the
// same way.
func CopyOutFile(ctx context.Context, sb atesor.Sandbox, sandboxPath string, dest *os.Root, rel string, b *CopyBudget) (string, error) {
	ctx, cancel := withCopyDeadline(ctx, b.l, sandboxPath)
	defer cancel()
	g, err := GateOf(sb)
	if err != nil {
		return "", fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	if g != nil {
		defer g.Close()
		// No bound at the open: the copy's own bounds decide, and name their settings.
		f, err := g.Open(ctx, sandboxPath, NoFollow, Bound{Kind: "artifact", Max: -1})
		if err != nil {
			return "", fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return "", fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
		}
		sum, err := copyOpenedOut(ctx, sandboxPath, f.File, f.Size, fi.Mode().Perm(), dest, rel, b)
		if err != nil {
			return "", fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
		}
		return sum, nil
	}
	if hp, ok := hostPather(sb); ok {
		src, err := hp.HostPath(sandboxPath)
		if err != nil {
			return "", fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
		}
		sum, err := copyRegularOut(ctx, sandboxPath, src, dest, rel, b)
		if err != nil {
			return "", fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
		}
		return sum, nil
	}
	tmp, err := os.MkdirTemp("", "atesor-copyout-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	local := filepath.Join(tmp, "f")
	if err := sb.CopyOut(ctx, sandboxPath, local); err != nil {
		return "", err
	}
	sum, err := copyRegularOut(ctx, sandboxPath, local, dest, rel, b)
	if err != nil {
		return "", fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	return sum, nil
}

// CopyOutTree copies the sandbox directory sandboxPath of sb into prefix inside the
// host directory dest within b, as the backends' CopyOut does for a directory
// (regular files, directories, links that stay inside the tree).
func CopyOutTree(ctx context.Context, sb atesor.Sandbox, sandboxPath string, dest *os.Root, prefix string, b *CopyBudget, logger *slog.Logger) error {
	ctx, cancel := withCopyDeadline(ctx, b.l, sandboxPath)
	defer cancel()
	src := ""
	if hp, ok := hostPather(sb); ok {
		p, err := hp.HostPath(sandboxPath)
		if err != nil {
			return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
		}
		src = p
	} else {
		tmp, err := os.MkdirTemp("", "atesor-copyout-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		src = filepath.Join(tmp, "tree")
		if err := sb.CopyOut(ctx, sandboxPath, src); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(src)
	if err != nil {
		return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, &FileTypeError{Path: sandboxPath, Type: fileType(fi.Mode())})
	}
	if prefix != "." && prefix != "" {
		if err := osroot.MkdirAll(dest, prefix, 0o755); err != nil {
			return err
		}
	}
	if err := copyTreeOut(ctx, src, dest, prefix, b, logger); err != nil {
		return fmt.Errorf("sandbox: copy out %s: %w", sandboxPath, err)
	}
	return nil
}

func withCopyDeadline(ctx context.Context, l CopyLimits, what string) (context.Context, context.CancelFunc) {
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultCopyTimeout
	}
	return context.WithTimeoutCause(ctx, timeout, fmt.Errorf("copy out of %s did not finish within %s", what, timeout))
}

// hostPather finds the [HostPather] of sb, through wrappers (see [As]).
func hostPather(sb atesor.Sandbox) (HostPather, bool) {
	var hp HostPather
	ok := As(sb, &hp)
	return hp, ok
}

// IsCopyLimit reports whether err is a copy-out bound or a refused file type, which a
// caller reports as a problem of the package rather than of the machinery.
func IsCopyLimit(err error) bool {
	var le *CopyLimitError
	var te *FileTypeError
	return errors.As(err, &le) || errors.As(err, &te) || errors.Is(err, ErrNotRegular)
}
