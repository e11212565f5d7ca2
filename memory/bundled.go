package memory

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
)

//go:embed bundled/*.json bundled/README.md
var bundledFS embed.FS

// Bundled returns the example files shipped with Atesor (the v2.0 scout, fixer and
// builder files, the legacy supervisor file and the README that describes the schema).
func Bundled() fs.FS {
	sub, err := fs.Sub(bundledFS, "bundled")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// installBundled copies each bundled file into dir when dir has no file of that name.
// An existing file, valid or not, is never replaced.
func installBundled(dir string) error {
	src := Bundled()
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		dst := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check %s: %w", dst, err)
		}
		data, err := fs.ReadFile(src, e.Name())
		if err != nil {
			return err
		}
		if err := createNew(dst, data); err != nil {
			return err
		}
	}
	return nil
}

// createNew writes data to path only if path does not exist, atomically: the data goes
// to a temporary file that is then hard-linked to path, which fails if another process
// created path meanwhile.
func createNew(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".install-*")
	if err != nil {
		return fmt.Errorf("install %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("install %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		// A file system without hard links: create the file exclusively instead.
		if err := writeExclusive(path, data); err != nil {
			return err
		}
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}

// writeExclusive creates path with data, doing nothing when path exists.
func writeExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("install %s: %w", path, err)
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
		return fmt.Errorf("install %s: %w", path, err)
	}
	return nil
}
