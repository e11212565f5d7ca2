package main

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
)

// writePackageZip writes a zip of the run's outputs (recipe, report, state, patches,
// artifacts, logs: every path in res.Files) under a top directory named after the
// package. The zip is written atomically (see [atomicfile]).
func writePackageZip(zipPath string, res *atesor.Result) error {
	kinds := make([]string, 0, len(res.Files))
	for k := range res.Files {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	tmp, err := atomicfile.Create(zipPath, 0o644)
	if err != nil {
		return err
	}
	defer tmp.Abort()
	zw := zip.NewWriter(tmp)
	added := map[string]bool{}
	for _, k := range kinds {
		p := res.Files[k]
		if p == "" || filepath.Clean(p) == filepath.Clean(zipPath) {
			continue
		}
		if err := addToZip(zw, p, res.Package, added); err != nil {
			return fmt.Errorf("add the %s %s: %w", k, p, err)
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return tmp.Commit()
}

// addToZip adds a file, or a directory tree, as <top>/<base name>/...; missing paths are
// skipped (a run that failed early has no artifacts). Only regular files go in:
// symbolic links are neither followed nor stored, so the zip can carry no host file and
// no link that an unzip would write through.
func addToZip(zw *zip.Writer, p, top string, added map[string]bool) error {
	fi, err := os.Lstat(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	base := filepath.Dir(p)
	if !fi.IsDir() {
		return addFile(zw, p, filepath.ToSlash(filepath.Join(top, filepath.Base(p))), fi, added)
	}
	return filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(base, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return addFile(zw, path, filepath.ToSlash(filepath.Join(top, rel)), info, added)
	})
}

func addFile(zw *zip.Writer, path, name string, fi fs.FileInfo, added map[string]bool) error {
	if added[name] || !fi.Mode().IsRegular() {
		return nil
	}
	added[name] = true
	h, err := zip.FileInfoHeader(fi)
	if err != nil {
		return err
	}
	h.Name, h.Method = name, zip.Deflate
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	// The file must still be the regular file that was listed: never a link, FIFO or
	// device put in its place (a FIFO would block the open without O_NONBLOCK).
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if ri, err := f.Stat(); err != nil || !os.SameFile(fi, ri) {
		return fmt.Errorf("%s changed while the zip was written", path)
	}
	_, err = io.Copy(w, io.LimitReader(f, fi.Size()))
	return err
}
