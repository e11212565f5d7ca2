package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Helpers over os.Root that only use the Go 1.24 API of os.Root.

// rootMkdirAll creates rel and its missing parents inside r.
func rootMkdirAll(r *os.Root, rel string, perm fs.FileMode) error {
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

// rootChmod changes the mode of rel (following links only inside r).
func rootChmod(r *os.Root, rel string, mode fs.FileMode) error {
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

// rootSymlink creates the link rel -> target inside r (the target is not checked: a link
// is resolved in sandbox coordinates when it is used).
func rootSymlink(r *os.Root, target, rel string) error {
	if err := noLinkParents(r, rel); err != nil {
		return err
	}
	return os.Symlink(target, filepath.Join(r.Name(), filepath.FromSlash(rel)))
}

// rootLink creates the hard link newRel to oldRel, both inside r.
func rootLink(r *os.Root, oldRel, newRel string) error {
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

// rootDirAt opens the directory that holds rel inside r and returns it with rel's last
// name, so that the *at system calls below act on that name without following it and
// without resolving any parent again.
func rootDirAt(r *os.Root, rel string) (*os.File, string, error) {
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

// rootRename renames oldRel to newRel, both inside r and in one directory of r; a link
// or file at newRel is replaced, never followed.
func rootRename(r *os.Root, oldRel, newRel string) error {
	if path.Dir(path.Clean(oldRel)) != path.Dir(path.Clean(newRel)) {
		return fmt.Errorf("rename %s to %s: not in one directory", oldRel, newRel)
	}
	d, newBase, err := rootDirAt(r, newRel)
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

// rootReadlink returns the target of the link rel inside r.
func rootReadlink(r *os.Root, rel string) (string, error) {
	d, base, err := rootDirAt(r, rel)
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

// rootSymlinkAt creates the link rel -> target inside r, in the directory r resolves
// (no parent is looked up again by path).
func rootSymlinkAt(r *os.Root, target, rel string) error {
	d, base, err := rootDirAt(r, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Symlinkat(target, int(d.Fd()), base); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: rel, Err: err}
	}
	return nil
}
