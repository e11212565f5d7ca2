// Package atomicfile replaces files so that a reader sees the old content or the new,
// never a part of either, and a crash at any moment leaves one of the two on disk. The
// data goes to a temporary file with a unique name in the target's own directory (a
// rename only replaces atomically within one file system), which is synced, given its
// permissions and renamed over the target; then the directory is synced, so the rename
// itself survives a power cut.
//
// Every output file Atesor writes (reports, recipes, patches, summaries, caches) goes
// through this package, so each write either completes or returns an error to report.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// TempPrefix is the prefix of the temporary files written for path: a dot file (hidden
// from listings) named after the target, so a leftover of a writer that died can be
// recognised (see [RemoveStale]).
func TempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// File is a file being written. Write to it like an *os.File; [File.Commit] puts it in
// place of the target, [File.Abort] drops it. Until Commit, the target is untouched.
type File struct {
	*os.File
	path string
	perm fs.FileMode
	done bool
}

// Create starts a replacement of path, which will get permissions perm. The temporary
// file is created exclusively (a name nobody else has) in path's directory.
func Create(path string, perm fs.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix(path)+"*")
	if err != nil {
		return nil, fmt.Errorf("write %s: create a temporary file beside it (is the directory there and writable?): %w", path, err)
	}
	return &File{File: f, path: path, perm: perm}, nil
}

// Path is the target the file replaces on Commit.
func (f *File) Path() string { return f.path }

// Commit syncs the temporary file, sets its permissions, renames it over the target and
// syncs the directory. On an error the target keeps its old content and the temporary
// file is removed.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("write %s: already committed or aborted", f.path)
	}
	f.done = true
	tmp := f.Name()
	err := f.Chmod(f.perm)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := SyncDir(filepath.Dir(f.path)); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort drops the temporary file; the target is left as it was. After Commit it does
// nothing, so it can be deferred right after Create.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile replaces path with data, with permissions perm (see [Create]).
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteNew creates path with data and permissions perm only when path does not exist,
// and never replaces it: created is false when path was there (or another process
// created it meanwhile). Like [WriteFile], a reader never sees a part of the data: it
// goes to a synced temporary file that is then hard-linked to path, which fails when
// path exists. On a file system without hard links the file is created exclusively
// instead (a crash there can leave a short file, never a replaced one).
func WriteNew(path string, data []byte, perm fs.FileMode) (created bool, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), newPrefix(path)+"*")
	if err != nil {
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		if created, err = writeExclusive(path, data, perm); err != nil || !created {
			return created, err
		}
	}
	return true, SyncDir(filepath.Dir(path))
}

// newPrefix is the prefix of [WriteNew]'s temporary files. It differs from
// [TempPrefix], so [RemoveStale], run by a replacing writer under its lock, never takes
// the file of a creator that holds no lock.
func newPrefix(path string) string { return "." + filepath.Base(path) + ".new-" }

// writeExclusive creates path with data, doing nothing when path exists.
func writeExclusive(path string, data []byte, perm fs.FileMode) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	return true, nil
}

// SyncDir flushes a directory's entries (a rename or a new name in it) to disk. A file
// system that cannot sync directories (EINVAL) has nothing to flush.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// RemoveStale deletes the temporary files of path that writers which died left behind.
// Only call it while holding a lock that every writer of path takes: without one, a
// live writer's file looks the same.
func RemoveStale(path string) {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := TempPrefix(path)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
