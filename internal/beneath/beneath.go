// Package beneath opens files beneath a host directory that holds a tree someone else
// controls (a sandbox's root file system, a package's copied source tree), so that the
// host reads only regular files of that tree and only a bounded number of bytes of each.
//
// A hostile tree can hold a symbolic link to a host file or to /dev/zero, a FIFO that
// blocks a reader for good, a device node, a socket, or a file of many gigabytes. Every
// open here resolves the name inside the tree (absolute links are taken relative to the
// tree's root, ".." never climbs above it, /proc magic links are refused), refuses
// everything that is not a regular file before a byte of it is read, and every read
// stops at a bound that names the kind of file it is for.
package beneath

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Links says what an open does with a symbolic link in the last component of the name.
// Links in the directories above it are always followed, inside the tree.
type Links int

const (
	// NoFollow refuses a link in the last component. Use it for names a walk of the tree
	// found as regular files: a link swapped in after the walk is then an error, not a
	// file somewhere else.
	NoFollow Links = iota
	// FollowInside follows a link in the last component, inside the tree only. Use it for
	// names the host chose itself that are links by design (lib.so -> lib.so.1, a
	// distribution's alternatives): the link's target is resolved in the tree's own
	// coordinates, so /dev/zero names the tree's dev/zero, never the host's.
	FollowInside
)

// Bound is the most the host reads of one kind of file.
type Bound struct {
	// Kind names what the file is for, in error messages: "artifact", "log", ...
	Kind string
	// Max is the largest size in bytes that is read; a larger file is an error. A
	// negative Max bounds nothing: only for an open whose reader takes a fixed number of
	// bytes itself (a file's magic number).
	Max int64
}

// ErrNotRegular is wrapped by [*NotRegularError].
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by [*TooLargeError].
var ErrTooLarge = errors.New("file exceeds its read bound")

// NotRegularError says that a name is not a regular file: a FIFO, a device, a socket, a
// directory or (with [NoFollow]) a symbolic link. The host never reads such a file.
type NotRegularError struct {
	Path string // the name as given, inside the tree
	Type string // "FIFO", "character device", "directory", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file; the host reads only regular files of the sandbox's tree", e.Path, e.Type)
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError says that a file is larger than the bound for its kind.
type TooLargeError struct {
	Path  string
	Bound Bound
	Size  int64 // the size seen, or -1 when the file grew past the bound while read
}

func (e *TooLargeError) Error() string {
	size := "more"
	if e.Size >= 0 {
		size = fmt.Sprintf("%d bytes", e.Size)
	}
	return fmt.Sprintf("%s holds %s, above the %d-byte bound for a %s; a build that genuinely writes such a file must keep it out of what the host reads", e.Path, size, e.Bound.Max, e.Bound.Kind)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// resolveFlags keeps every resolution inside the tree: absolute links and ".." are taken
// relative to its root (as the sandbox itself sees them), /proc's magic links, which
// point anywhere, are refused, and so is a mount point inside the tree (bwrap's
// per-command mounts are never visible to the host, so a mount here is foreign).
const resolveFlags = unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV

// Dir is an open directory whose tree files are opened beneath. Safe for concurrent use.
type Dir struct {
	name string
	fd   int
	mu   sync.Mutex
	done bool
}

// OpenDir opens the directory root, which the host itself chose (it is trusted; what is
// below it is not).
func OpenDir(root string) (*Dir, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	return &Dir{name: root, fd: fd}, nil
}

// Name returns the host directory's name.
func (d *Dir) Name() string { return d.name }

// Close releases the directory.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return nil
	}
	d.done = true
	return unix.Close(d.fd)
}

// File is an open regular file of the tree, no larger than its bound when it was opened.
type File struct {
	*os.File
	// Name is the name inside the tree, as given.
	Name string
	// Size is the file's size when it was opened.
	Size int64
	// Bound is the bound the file was opened under.
	Bound Bound
}

// Section returns a reader of the file's first Size bytes: a file that grows after it was
// opened is not read further.
func (f *File) Section() *io.SectionReader { return io.NewSectionReader(f.File, 0, f.Size) }

// rel turns a name inside the tree into the relative name openat2 takes: leading
// slashes dropped, "" and "/" are the root itself.
func rel(name string) string {
	c := path.Clean("/" + name)
	if c == "/" {
		return "."
	}
	return strings.TrimPrefix(c, "/")
}

// Open opens name (a path inside the tree; absolute or relative to its root) for reading.
// It accepts a regular file of at most b.Max bytes and nothing else, and never opens a
// FIFO or a device for reading: the name is first opened as a path only (no I/O is
// possible on such a descriptor), its type checked, and only then opened for reading,
// the second open checked to be the same file as the first.
func (d *Dir) Open(ctx context.Context, name string, links Links, b Bound) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.done {
		d.mu.Unlock()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrClosed}
	}
	dirfd := d.fd
	d.mu.Unlock()
	r := rel(name)
	nofollow := 0
	if links == NoFollow {
		nofollow = unix.O_NOFOLLOW
	}
	// O_PATH first: opening a FIFO for reading blocks until a writer comes, opening a
	// device can act on it; a path descriptor does neither.
	pfd, err := openat2(dirfd, r, &unix.OpenHow{Flags: uint64(unix.O_PATH | unix.O_CLOEXEC | nofollow), Resolve: resolveFlags})
	if err != nil {
		return nil, openError(name, err)
	}
	var st unix.Stat_t
	err = unix.Fstat(pfd, &st)
	unix.Close(pfd)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if t := typeName(st.Mode); t != "" {
		return nil, &NotRegularError{Path: name, Type: t}
	}
	if b.Max >= 0 && st.Size > b.Max {
		return nil, &TooLargeError{Path: name, Bound: b, Size: st.Size}
	}
	// The real open keeps O_NONBLOCK and O_NOCTTY in case the name was swapped for a FIFO
	// or a terminal between the two opens; the identity check below catches the swap.
	fd, err := openat2(dirfd, r, &unix.OpenHow{Flags: uint64(unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC | nofollow), Resolve: resolveFlags})
	if err != nil {
		return nil, openError(name, err)
	}
	var st2 unix.Stat_t
	if err := unix.Fstat(fd, &st2); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st2.Dev != st.Dev || st2.Ino != st.Ino || typeName(st2.Mode) != "" {
		unix.Close(fd)
		return nil, fmt.Errorf("%s changed while it was opened (a file of the tree was swapped): %w", name, &NotRegularError{Path: name, Type: "file that was replaced"})
	}
	if b.Max >= 0 && st2.Size > b.Max {
		unix.Close(fd)
		return nil, &TooLargeError{Path: name, Bound: b, Size: st2.Size}
	}
	// Reads of a regular file never block; clear O_NONBLOCK so the os package does not
	// hand the descriptor to its poller, which refuses regular files anyway.
	_ = unix.SetNonblock(fd, false)
	return &File{File: os.NewFile(uintptr(fd), name), Name: name, Size: st2.Size, Bound: b}, nil
}

// chunk is how much one read takes between checks of the context.
const chunk = 1 << 20

// ReadFile reads the whole of name under the bound b (see [Dir.Open]). The read stops
// when ctx is done.
func (d *Dir) ReadFile(ctx context.Context, name string, links Links, b Bound) ([]byte, error) {
	f, err := d.Open(ctx, name, links, b)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll(ctx)
}

// ReadAll reads the file from its current offset to its end under its bound, checking
// ctx between chunks. A file that grows past the bound while it is read is an error.
func (f *File) ReadAll(ctx context.Context) ([]byte, error) {
	buf := make([]byte, 0, min(f.Size+1, chunk))
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.Bound.Max >= 0 && int64(len(buf)) > f.Bound.Max {
			return nil, &TooLargeError{Path: f.Name, Bound: f.Bound, Size: -1}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		want := min(cap(buf)-len(buf), chunk)
		n, err := f.File.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if f.Bound.Max >= 0 && int64(len(buf)) > f.Bound.Max {
				return nil, &TooLargeError{Path: f.Name, Bound: f.Bound, Size: -1}
			}
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Name, err)
		}
	}
}

// openat2 retries the interruptions openat2 reports for a tree renamed while it resolves.
func openat2(dirfd int, name string, how *unix.OpenHow) (int, error) {
	for i := 0; ; i++ {
		fd, err := unix.Openat2(dirfd, name, how)
		if (errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR)) && i < 16 {
			continue
		}
		return fd, err
	}
}

// openError names the open's failure in the tree's terms.
func openError(name string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return &NotRegularError{Path: name, Type: "symbolic link (or a loop of them)"}
	case errors.Is(err, unix.EXDEV):
		return fmt.Errorf("%s: its path crosses a mount point or a /proc link inside the sandbox's tree, which the host does not follow: %w", name, err)
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%s: this kernel has no openat2 (Linux 5.6 or later is needed to read a sandbox's files safely): %w", name, err)
	}
	return &fs.PathError{Op: "open", Path: name, Err: err}
}

// typeName names a file type that is not a regular file, or returns "" for a regular file.
func typeName(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return ""
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFLNK:
		return "symbolic link"
	case unix.S_IFIFO:
		return "FIFO"
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	case unix.S_IFSOCK:
		return "socket"
	}
	return "file of unknown type"
}

// WalkDir walks the directory name of the tree (links in its path followed inside the
// tree) like [fs.WalkDir]: the paths given to fn are slash-separated, name joined with
// the path below it; links met during the walk are reported, never followed. The walk
// stops when ctx is done.
func (d *Dir) WalkDir(ctx context.Context, name string, fn fs.WalkDirFunc) error {
	r, err := os.OpenRoot(d.name)
	if err != nil {
		return err
	}
	defer r.Close()
	if sub := rel(name); sub != "." {
		sr, err := r.OpenRoot(sub)
		if err != nil {
			return fn(name, nil, err)
		}
		defer sr.Close()
		r = sr
	}
	return fs.WalkDir(r.FS(), ".", func(p string, de fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return fn(path.Join(name, p), de, err)
	})
}

// FS returns the tree under root as an [fs.FS] whose Open accepts regular files (each at
// most b.Max bytes, read no further than their size at the open) and directories, and
// refuses everything else; a link in the last component is refused (a walk reports links
// through the directory entries, so nothing it finds needs one followed), links above it
// resolve inside the tree. Each Open opens root anew, so the FS holds no descriptor and
// needs no closing. ctx bounds every Open and read.
func FS(ctx context.Context, root string, b Bound) fs.FS { return treeFS{ctx: ctx, root: root, b: b} }

type treeFS struct {
	ctx  context.Context
	root string
	b    Bound
}

// Open implements fs.FS.
func (t treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	d, err := OpenDir(t.root)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	r := rel(name)
	pfd, err := openat2(d.fd, r, &unix.OpenHow{Flags: uint64(unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW), Resolve: resolveFlags})
	if err != nil {
		return nil, openError(name, err)
	}
	var st unix.Stat_t
	err = unix.Fstat(pfd, &st)
	unix.Close(pfd)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		f, err := d.Open(t.ctx, name, NoFollow, t.b)
		if err != nil {
			return nil, err
		}
		return &fsFile{f: f, r: f.Section(), ctx: t.ctx}, nil
	}
	// O_DIRECTORY: a directory or nothing, so the open cannot block.
	fd, err := openat2(d.fd, r, &unix.OpenHow{Flags: uint64(unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC), Resolve: resolveFlags})
	if err != nil {
		return nil, openError(name, err)
	}
	// The host path as the name: os falls back to lstat by name for file systems that
	// do not report entry types.
	return dirFile{os.NewFile(uintptr(fd), path.Join(t.root, r))}, nil
}

// dirFile is a directory of a treeFS. Its entries' Info is taken relative to the open
// directory while it is open (callers such as fs.WalkDir close it before they ask), the
// name never resolved again from the host's /, and without following links.
type dirFile struct{ *os.File }

func (d dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	es, err := d.File.ReadDir(n)
	for i, e := range es {
		de := dirEntry{DirEntry: e}
		// No open: a FIFO is described, never opened.
		var st unix.Stat_t
		if serr := unix.Fstatat(int(d.File.Fd()), e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW); serr != nil {
			de.err = &fs.PathError{Op: "lstat", Path: e.Name(), Err: serr}
		} else {
			de.info = statInfo{name: e.Name(), st: st}
		}
		es[i] = de
	}
	return es, err
}

type dirEntry struct {
	fs.DirEntry
	info fs.FileInfo
	err  error
}

func (e dirEntry) Info() (fs.FileInfo, error) { return e.info, e.err }

// statInfo is the fs.FileInfo of a stat result.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (i statInfo) Name() string       { return i.name }
func (i statInfo) Size() int64        { return i.st.Size }
func (i statInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i statInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i statInfo) Sys() any           { return &i.st }

func (i statInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if i.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if i.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if i.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// fsFile is a regular file of a treeFS: reads stop at the size seen at the open and
// when the context is done.
type fsFile struct {
	f   *File
	r   *io.SectionReader
	ctx context.Context
}

var (
	_ fs.File     = (*fsFile)(nil)
	_ io.ReaderAt = (*fsFile)(nil)
	_ io.Seeker   = (*fsFile)(nil)
)

func (f *fsFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f *fsFile) Close() error               { return f.f.Close() }

func (f *fsFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.r.Read(p)
}

func (f *fsFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.r.ReadAt(p, off)
}

func (f *fsFile) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }

// InTreeLink reports whether a symbolic link at rel (slash-separated, relative to a
// tree's top) with target stays inside the tree: a relative target that, resolved
// lexically from the link's directory, does not climb above the top. Whatever copies a
// tree someone else controls out of it (a copy-out, an install tarball) keeps only such
// links: whoever reads or unpacks the copy would otherwise write or read through them.
func InTreeLink(rel, target string) bool {
	if target == "" || path.IsAbs(target) || strings.ContainsRune(target, 0) {
		return false
	}
	j := path.Join(path.Dir(rel), target)
	return j != ".." && !strings.HasPrefix(j, "../")
}
