package memory

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempPrefix returns the prefix of the temporary files written for path. Temporary files
// are only created while the file's lock is held, so any file with this prefix found under
// the lock is left over from a writer that died.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// writeAtomic replaces path with data: a temporary file in the same directory is written,
// synced and renamed over path, then the directory is synced. Readers see the old or the
// new file, never a mix; a writer that dies before the rename leaves the old file intact.
// The caller holds the lock of path. beforeRename, when not nil, runs after the temporary
// file is complete (a test hook).
func writeAtomic(path string, data []byte, beforeRename func(tmp string)) (err error) {
	dir := filepath.Dir(path)
	removeStaleTemps(path)
	perm := fs.FileMode(0o644)
	if st, serr := os.Stat(path); serr == nil {
		perm = st.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return fmt.Errorf("write %s: create a temporary file in %s: %w", path, dir, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err = f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if beforeRename != nil {
		beforeRename(tmp)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// removeStaleTemps deletes temporary files of path left by writers that died. The
// caller holds the lock of path, so no live writer owns one.
func removeStaleTemps(path string) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return
	}
	prefix := tempPrefix(path)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}

func dirOf(path string) string { return filepath.Dir(path) }
