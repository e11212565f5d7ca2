package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// maxTreeEntries bounds the entries of the source tree walked to count a header-only
// library's headers: real ones hold tens to a few thousand.
const maxTreeEntries = 20000

// treeHeaderOnly decides, for an install step that ran and staged nothing at all,
// whether the package is a header-only CMake library with no install rules (hera's
// CMakeLists.txt declares add_library(hera INTERFACE) and never calls install()),
// from the source tree since nothing was installed: the build is CMake's, the tree's
// top-level CMakeLists.txt declares INTERFACE libraries and no library of another
// kind, the build tree holds no library of the package's own, and the include
// directories those libraries give (include/ when they name none) hold the package's
// headers, outside vendored, test, example and documentation directories. It returns
// the headers counted and a note for the install record, or why the package is not
// one.
func treeHeaderOnly(ctx context.Context, hostTree, repoDir string, inst *atesor.Install, built []atesor.Artifact) (n int, note, why string) {
	switch {
	case !inst.OK || len(inst.Files) > 0:
		return 0, "", "the install step did not run, failed or staged files"
	case inst.Method != "cmake":
		return 0, "", "not a CMake build"
	case hostTree == "":
		return 0, "", "no source tree to read"
	case buildsLibrary(repoDir, built):
		return 0, "", "the build built a library of the package's own"
	}
	fsys := sandbox.TreeFS(ctx, hostTree, sandbox.BoundMetadata)
	data, err := fs.ReadFile(fsys, "CMakeLists.txt")
	if err != nil {
		return 0, "", "read the top-level CMakeLists.txt: " + err.Error()
	}
	libs, why := repair.CMakeHeaderOnly(string(data))
	if why != "" {
		return 0, "", why
	}
	var dirs, names []string
	for _, l := range libs {
		names = append(names, l.Name)
		for _, d := range l.IncludeDirs {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	if len(dirs) == 0 {
		dirs = []string{"include"}
	}
	walked := 0
	// A set: include directories may nest (include and include/hera), and a header is
	// counted once.
	counted := map[string]bool{}
	for _, d := range dirs {
		if d != "." && headerDirLeftOut(d) {
			continue
		}
		err := fs.WalkDir(fsys, d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if p == d && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir // a directory the CMakeLists.txt names and the tarball lacks
				}
				return err
			}
			if walked++; walked > maxTreeEntries {
				return fmt.Errorf("more than %d entries below %s", maxTreeEntries, d)
			}
			if e.IsDir() {
				if p != d && headerDirLeftOut(path.Base(p)) {
					return fs.SkipDir
				}
				return nil
			}
			if e.Type().IsRegular() && isHeaderName(p) {
				counted[p] = true
			}
			return nil
		})
		if err != nil {
			return 0, "", "count the headers: " + err.Error()
		}
	}
	if len(counted) == 0 {
		return 0, "", "the include directories of " + strings.Join(names, ", ") + " (" + strings.Join(dirs, ", ") + ") hold no header"
	}
	note = fmt.Sprintf("the install step staged nothing (no install rules); the %d headers are counted in the source tree, below %s, which the INTERFACE %s of CMakeLists.txt %s",
		len(counted), strings.Join(dirs, ", "), plural(len(names), "library", "libraries")+" "+strings.Join(names, ", "), plural(len(names), "gives", "give"))
	return len(counted), note, ""
}

// headerDirLeftOut reports whether a directory of the tree holds no header of the
// package's own library: a vendored project's, or tests, examples, benchmarks and
// documentation.
func headerDirLeftOut(dir string) bool {
	for _, d := range strings.Split(dir, "/") {
		if slices.Contains(vendorDirs, strings.ToLower(d)) {
			return true
		}
		if _, ok := repair.FrameworkDir(d); ok {
			return true
		}
		if repair.Purpose(d) != "" {
			return true
		}
	}
	return false
}

// isHeaderName reports whether a tree path is a C or C++ header by its name.
func isHeaderName(p string) bool {
	switch path.Ext(p) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tcc", ".inl":
		return true
	}
	return false
}

// plural picks the singular or the plural word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
