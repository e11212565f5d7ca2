// Package osroot holds what the project needs of [os.Root] beyond Go 1.24's API, which
// the module still supports (making, linking, renaming and writing inside a root without
// following a link out of it), and the resolution of a path in sandbox coordinates in a
// host tree that stands for a sandbox's root ([Resolve], [HostPath]). The sandbox's
// backends, its jail and its accelerated toolchain all write and resolve through it.
package osroot

import (
	"errors"
	"io/fs"
	"os"
	"path"
)

// RemoveAll removes rel and everything below it inside r. Links are removed, never
// followed, and a directory is entered only when it is one (not a link to one), so
// nothing outside r is touched whatever the tree holds. (os.Root.RemoveAll does this
// from Go 1.25 on.)
func RemoveAll(r *os.Root, rel string) error {
	fi, err := r.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		d, err := r.Open(rel)
		if err != nil {
			return err
		}
		names, err := d.Readdirnames(-1)
		d.Close()
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := RemoveAll(r, path.Join(rel, n)); err != nil {
				return err
			}
		}
	}
	if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
