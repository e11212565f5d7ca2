package osroot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// MkdirAll creates rel and its missing parents inside r.
func MkdirAll(r *os.Root, rel string, perm fs.FileMode) error {
	rel = path.Clean(rel)
	if rel == "." || rel == "/" {
		return nil
	}
	cur := ""
	for _, c := range strings.Split(rel, "/") {
		cur = path.Join(cur, c)
		err := r.Mkdir(cur, perm)
		if err == nil || errors.Is(err, fs.ErrExist) {
			fi, serr := r.Stat(cur)
			if serr != nil {
				return serr
			}
			if !fi.IsDir() {
				return fmt.Errorf("%s: not a directory", cur)
			}
			continue
		}
		return err
	}
	return nil
}

// Chmod changes the mode of rel (following links only inside r).
func Chmod(r *os.Root, rel string, mode fs.FileMode) error {
	f, err := r.Open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(mode)
}

// noLinkParents refuses rel when one of its parent directories inside r is a symbolic
// link, so that creating rel through the host path cannot leave r.
func noLinkParents(r *os.Root, rel string) error {
	dir := path.Dir(path.Clean(rel))
	if dir == "." {
		return nil
	}
	cur := ""
	for _, c := range strings.Split(dir, "/") {
		cur = path.Join(cur, c)
		fi, err := r.Lstat(cur)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: parent %s is a symbolic link", rel, cur)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: parent %s is not a directory", rel, cur)
		}
	}
	return nil
}

// Symlink creates the link rel -> target inside r (the target is not checked: a link
// is resolved in sandbox coordinates when it is used).
func Symlink(r *os.Root, target, rel string) error {
	if err := noLinkParents(r, rel); err != nil {
		return err
	}
	return os.Symlink(target, filepath.Join(r.Name(), filepath.FromSlash(rel)))
}

// Link creates the hard link newRel to oldRel, both inside r.
func Link(r *os.Root, oldRel, newRel string) error {
	if err := noLinkParents(r, newRel); err != nil {
		return err
	}
	fi, err := r.Lstat(oldRel)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("hard link to %s: not a regular file", oldRel)
	}
	if err := noLinkParents(r, oldRel); err != nil {
		return err
	}
	return os.Link(filepath.Join(r.Name(), filepath.FromSlash(oldRel)), filepath.Join(r.Name(), filepath.FromSlash(newRel)))
}

// dirAt opens the directory that holds rel inside r and returns it with rel's last
// name, so that the *at system calls below act on that name without following it and
// without resolving any parent again.
func dirAt(r *os.Root, rel string) (*os.File, string, error) {
	rel = path.Clean(filepath.ToSlash(rel))
	dir, base := path.Split(rel)
	if dir == "" {
		dir = "."
	}
	if base == "" || base == "." || base == ".." {
		return nil, "", fmt.Errorf("%s: not a file name", rel)
	}
	d, err := r.Open(path.Clean(dir))
	if err != nil {
		return nil, "", err
	}
	return d, base, nil
}

// Rename renames oldRel to newRel, both inside r and in one directory of r; a link
// or file at newRel is replaced, never followed.
func Rename(r *os.Root, oldRel, newRel string) error {
	if path.Dir(path.Clean(oldRel)) != path.Dir(path.Clean(newRel)) {
		return fmt.Errorf("rename %s to %s: not in one directory", oldRel, newRel)
	}
	d, newBase, err := dirAt(r, newRel)
	if err != nil {
		return err
	}
	defer d.Close()
	fd := int(d.Fd())
	if err := unix.Renameat(fd, path.Base(path.Clean(oldRel)), fd, newBase); err != nil {
		return &os.LinkError{Op: "rename", Old: oldRel, New: newRel, Err: err}
	}
	return nil
}

// Readlink returns the target of the link rel inside r.
func Readlink(r *os.Root, rel string) (string, error) {
	d, base, err := dirAt(r, rel)
	if err != nil {
		return "", err
	}
	defer d.Close()
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(int(d.Fd()), base, buf)
	if err != nil {
		return "", &os.PathError{Op: "readlink", Path: rel, Err: err}
	}
	if n == len(buf) {
		return "", &os.PathError{Op: "readlink", Path: rel, Err: errors.New("link target too long")}
	}
	return string(buf[:n]), nil
}

// SymlinkAt creates the link rel -> target inside r, in the directory r resolves
// (no parent is looked up again by path).
func SymlinkAt(r *os.Root, target, rel string) error {
	d, base, err := dirAt(r, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Symlinkat(target, int(d.Fd()), base); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: rel, Err: err}
	}
	return nil
}

// WriteFile writes what in yields to the file rel inside r (created with perm, or
// truncated), replacing a link at rel rather than following it, and sets the file's
// modification time to mtime when it is not zero. Source trees need their files' times:
// make compares them, and an autotools tree whose configure.ac looks newer than its
// generated files re-runs the exact automake version that generated them.
func WriteFile(r *os.Root, rel string, in io.Reader, perm fs.FileMode, mtime time.Time) error {
	if li, err := r.Lstat(rel); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if err := r.Remove(rel); err != nil {
			return err
		}
	}
	out, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := SetFileTime(out, mtime); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return Chmod(r, rel, perm)
}

// SetFileTime sets the access and modification times of the open file f to t; a zero t
// leaves them alone. It works on the descriptor, so it follows no path.
func SetFileTime(f *os.File, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	tv := unix.NsecToTimeval(t.UnixNano())
	return unix.Futimes(int(f.Fd()), []unix.Timeval{tv, tv})
}

// DirTimes collects directory modification times while a tree is written into a root:
// a directory's time changes with every entry made in it, so the times are set after
// the last entry, deepest first. Trees need their recorded times because make compares
// them to decide what to rebuild.
type DirTimes []dirTime

type dirTime struct {
	rel string
	t   time.Time
}

// Add records the time of the directory rel; a zero t records nothing.
func (d *DirTimes) Add(rel string, t time.Time) {
	if !t.IsZero() {
		*d = append(*d, dirTime{rel, t})
	}
}

// Apply sets the collected times inside r, children before their parents (a tree is
// walked parents first, so the reverse order does).
func (d DirTimes) Apply(r *os.Root) error {
	for i := len(d) - 1; i >= 0; i-- {
		f, err := r.Open(d[i].rel)
		if err != nil {
			return err
		}
		err = SetFileTime(f, d[i].t)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
