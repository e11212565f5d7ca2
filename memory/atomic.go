package memory

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
)

// writeAtomic replaces path with data (see [atomicfile]): readers see the old or the new
// file, never a mix; a writer that dies before the rename leaves the old file intact. The
// caller holds the lock of path, so temporary files found beside it are from writers that
// died and are removed first. The file keeps its permissions. beforeRename, when not nil,
// runs after the temporary file is complete (a test hook).
func writeAtomic(path string, data []byte, beforeRename func(tmp string)) error {
	atomicfile.RemoveStale(path)
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	f, err := atomicfile.Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	if beforeRename != nil {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", f.Name(), err)
		}
		beforeRename(f.Name())
	}
	return f.Commit()
}

func dirOf(path string) string { return filepath.Dir(path) }
