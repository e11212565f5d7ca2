package debiantest

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

// newScanner reads the lines of a Debian index, whose fields can be long.
func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	return sc
}

// SourceEntry finds the SHA-256 and pool directory of file in the stanza of source
// package pkg of a Sources index (parsed by [debsrc.ParseSources]).
func SourceEntry(r io.Reader, pkg, file string) (sha, dir string, err error) {
	if pkg == "" || file == "" {
		return "", "", fmt.Errorf("SourceEntry needs a package and a file name, got %q and %q", pkg, file)
	}
	err = debsrc.ParseSources(r, func(s debsrc.Source) bool {
		if s.Package != pkg {
			return true
		}
		for _, f := range s.Files {
			if f.Name == file {
				sha, dir = f.SHA256, path.Dir(s.PoolPath(f))
				return false
			}
		}
		return true
	})
	if err != nil {
		return "", "", err
	}
	if sha == "" {
		return "", "", fmt.Errorf("%s of source package %s is not in the Sources index", file, pkg)
	}
	return sha, dir, nil
}

// PackageNames reads a Packages index and returns the names of its packages and the
// virtual names they provide.
func PackageNames(r io.Reader) (names, provided map[string]bool, err error) {
	names, provided = map[string]bool{}, map[string]bool{}
	sc := newScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "Package: "); ok {
			names[strings.TrimSpace(name)] = true
		}
		if prov, ok := strings.CutPrefix(line, "Provides: "); ok {
			for _, p := range strings.Split(prov, ",") {
				if f := strings.Fields(p); len(f) > 0 {
					provided[f[0]] = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("read the Packages index: %w", err)
	}
	return names, provided, nil
}
