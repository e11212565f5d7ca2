package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// writeTar writes src as a tar stream: the contents of a directory, or a single file
// named .atesor-upload (CopyIn renames it on the board).
func writeTar(w io.Writer, src string, isDir bool) error {
	tw := tar.NewWriter(w)
	if !isDir {
		fi, err := os.Stat(src)
		if err != nil {
			return err
		}
		if err := addTarFile(tw, src, ".atesor-upload", fi); err != nil {
			return err
		}
		return tw.Close()
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return addTarFile(tw, p, filepath.ToSlash(rel), fi)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func addTarFile(tw *tar.Writer, p, name string, fi fs.FileInfo) error {
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		l, err := os.Readlink(p)
		if err != nil {
			return err
		}
		link = l
	}
	h, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	h.Name = name
	h.Uname, h.Gname, h.Uid, h.Gid = "", "", 0, 0
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}

// readTar unpacks a tar stream whose entries live below top into dest (top itself
// becomes dest). Writes go through an os.Root at dest, so neither a crafted name nor a
// symbolic link from the stream can make a file land outside dest.
func readTar(r io.Reader, top, dest string) error {
	tr := tar.NewReader(r)
	var root *os.Root
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if name == top && h.Typeflag == tar.TypeReg {
			// A single file: dest is the file.
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return err
			}
			if err := writeFile(func(flag int, perm fs.FileMode) (*os.File, error) {
				return os.OpenFile(dest, flag, perm)
			}, tr, h); err != nil {
				return err
			}
			continue
		}
		rel, ok := strings.CutPrefix(name, top)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			return fmt.Errorf("unpack: entry %q is outside %s", h.Name, top)
		}
		rel = strings.TrimPrefix(rel, "/")
		if root == nil {
			if err := os.MkdirAll(dest, 0o755); err != nil {
				return err
			}
			if root, err = os.OpenRoot(dest); err != nil {
				return err
			}
		}
		if rel == "" {
			continue
		}
		if !fs.ValidPath(rel) {
			return fmt.Errorf("unpack: entry %q is outside %s", h.Name, top)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := mkdirAll(root, rel); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := mkdirAll(root, path.Dir(rel)); err != nil {
				return err
			}
			if err := writeFile(func(flag int, perm fs.FileMode) (*os.File, error) {
				return root.OpenFile(rel, flag, perm)
			}, tr, h); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := mkdirAll(root, path.Dir(rel)); err != nil {
				return err
			}
			// Creating the link is harmless; later writes through it stay inside root.
			if err := os.Symlink(h.Linkname, filepath.Join(dest, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
	}
}

// mkdirAll makes dir and its parents inside root, one component at a time.
func mkdirAll(root *os.Root, dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	cur := ""
	for _, part := range strings.Split(dir, "/") {
		cur = path.Join(cur, part)
		if err := root.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

func writeFile(open func(flag int, perm fs.FileMode) (*os.File, error), r io.Reader, h *tar.Header) error {
	f, err := open(os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(h.Mode).Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
