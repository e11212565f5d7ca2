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
		if _, err := atomicfile.WriteNew(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
