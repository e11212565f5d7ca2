package knowledge

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/beneath"
)

// Limits of the scripted analysis, so a huge tree cannot stall a run.
const (
	maxTreeEntries = 200000  // files and directories walked
	maxReadBytes   = 1 << 20 // bytes read of one build file
	maxScanBytes   = 2 << 20 // bytes read of one source file for architecture findings
)

// skipDirs are directories never walked: version control and scratch directories.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".bzr": true, "node_modules": true,
	"CMakeFiles": true, "autom4te.cache": true, "meson-private": true, "meson-info": true,
	"meson-logs": true, ".libs": true, ".deps": true,
}

// noiseDirs are directories whose build files do not decide how the package builds:
// tests, examples, documentation, vendored third-party code.
var noiseDirs = map[string]bool{
	"test": true, "tests": true, "testing": true, "testdata": true, "example": true,
	"examples": true, "_examples": true, "sample": true, "samples": true, "demo": true,
	"demos": true, "doc": true, "docs": true, "bench": true, "benchmark": true,
	"benchmarks": true, "third_party": true, "thirdparty": true, "3rdparty": true,
	"external": true, "extern": true, "deps": true, "vendor": true, "contrib": true,
	"fuzz": true, "fuzzing": true, ".github": true, "ci": true, "subprojects": true,
}

// entry is one file of the walked tree.
type entry struct {
	rel  string // slash-separated path relative to the root
	size int64
	dir  bool
}

// tree is a walked source tree: the file list, an os.Root to walk and stat it, and a
// beneath.Dir to read its files: links resolved inside the tree, regular files only (a
// FIFO or a device where a build file should be is refused before it is opened).
type tree struct {
	ctx   context.Context
	root  *os.Root
	dir   *beneath.Dir
	files []entry
	byRel map[string]entry
	base  string // the root directory's base name
}

// walkTree lists the source tree under dir. Symbolic links are listed but not followed.
func walkTree(ctx context.Context, dir string) (*tree, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("read source tree %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("source tree %s is not a directory: unpack the package first", dir)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open source tree %s: %w", dir, err)
	}
	d, err := beneath.OpenDir(dir)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open source tree %s: %w", dir, err)
	}
	t := &tree{ctx: ctx, root: r, dir: d, byRel: make(map[string]entry), base: filepath.Base(filepath.Clean(dir))}
	n := 0
	err = fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable subdirectory is skipped, not fatal
		}
		if p == "." {
			return nil
		}
		n++
		if n%512 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if n > maxTreeEntries {
			return fs.SkipAll
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return fs.SkipDir
			}
			e := entry{rel: p, dir: true}
			t.files = append(t.files, e)
			t.byRel[p] = e
			return nil
		}
		var size int64
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size = fi.Size()
			}
		}
		e := entry{rel: p, size: size}
		t.files = append(t.files, e)
		t.byRel[p] = e
		return nil
	})
	if err != nil {
		t.close()
		return nil, fmt.Errorf("walk source tree %s: %w", dir, err)
	}
	return t, nil
}

func (t *tree) close() {
	t.root.Close()
	t.dir.Close()
}

// isFile reports whether rel is a regular file (or a link to one inside the tree).
func (t *tree) isFile(rel string) bool {
	e, ok := t.byRel[rel]
	if !ok || e.dir {
		return false
	}
	fi, err := t.root.Stat(rel)
	return err == nil && fi.Mode().IsRegular()
}

// read returns at most limit bytes of a regular file inside the tree (its first bytes;
// the rest of a larger file is not read). Links resolve inside the tree.
func (t *tree) read(rel string, limit int64) ([]byte, error) {
	// The bound of the open is the prefix: no size is refused, and no more is read.
	f, err := t.dir.Open(t.ctx, rel, beneath.FollowInside, beneath.Bound{Kind: "source file", Max: -1})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f.Section(), limit))
}

// readString reads a build file as text, or "" when it cannot.
func (t *tree) readString(rel string) string {
	b, err := t.read(rel, maxReadBytes)
	if err != nil {
		return ""
	}
	return string(b)
}

// depth is the number of directories above rel: 0 for a top-level file.
func depth(rel string) int { return strings.Count(rel, "/") }

// inNoiseDir reports whether any directory of rel is a noise directory.
func inNoiseDir(rel string) bool {
	dir := path.Dir(rel)
	if dir == "." {
		return false
	}
	for _, part := range strings.Split(dir, "/") {
		if noiseDirs[strings.ToLower(part)] {
			return true
		}
	}
	return false
}
