package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
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
