package debiantest

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"
)

// newScanner reads the lines of a Debian index, whose fields can be long.
func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	return sc
}

// SourceEntry finds the SHA-256 and pool directory of file in the stanza of source
// package pkg of a Sources index.
func SourceEntry(r io.Reader, pkg, file string) (sha, dir string, err error) {
	if pkg == "" || file == "" {
		return "", "", fmt.Errorf("SourceEntry needs a package and a file name, got %q and %q", pkg, file)
	}
	sc := newScanner(r)
	var cur, curDir string
	inSHA := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			cur, curDir, inSHA = "", "", false
		case strings.HasPrefix(line, "Package: "):
			cur = strings.TrimPrefix(line, "Package: ")
		case strings.HasPrefix(line, "Directory: "):
			curDir = strings.TrimPrefix(line, "Directory: ")
		case strings.HasPrefix(line, "Checksums-Sha256:"):
			inSHA = true
		case inSHA && strings.HasPrefix(line, " "):
			f := strings.Fields(line)
			if cur == pkg && len(f) == 3 && f[2] == file {
				sha = f[0]
			}
		default:
			inSHA = false
		}
		if sha != "" && curDir != "" && cur == pkg {
			return sha, curDir, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", fmt.Errorf("read the Sources index: %w", err)
	}
	if sha != "" {
		return sha, path.Join("pool/main", pkg[:1], pkg), nil
	}
	return "", "", fmt.Errorf("%s of source package %s is not in the Sources index", file, pkg)
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
