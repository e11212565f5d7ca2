package osroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Paths in sandbox coordinates: a tree on the host seen as the root of a sandbox.

// ErrTooManyLinks is returned for a symbolic link loop.
var ErrTooManyLinks = errors.New("too many levels of symbolic links")

const maxLinks = 40

// Resolve resolves the sandbox path p inside the sandbox whose root directory is root
// on the host. Every symbolic link is followed in sandbox coordinates: an absolute
// link target is taken relative to root, never to the host's /, and ".." never climbs
// above the sandbox's /. Components that do not exist are kept literally, so the result
// can name a file to create. A relative p is taken relative to /. The result is a clean,
// absolute sandbox path.
func Resolve(root, p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if !path.IsAbs(p) {
		p = "/" + p
	}
	pending := splitPath(p)
	cur := "/"
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(next)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// Nothing below exists: keep the rest literally (cleaned).
				rest := path.Join(append([]string{next}, pending...)...)
				return path.Clean(rest), nil
			}
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		if links > maxLinks {
			return "", fmt.Errorf("resolve %s: %w", p, ErrTooManyLinks)
		}
		target, err := os.Readlink(filepath.Join(root, filepath.FromSlash(next)))
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) {
			cur = "/"
		}
		pending = append(splitPath(target), pending...)
	}
	return cur, nil
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

// HostPath maps a clean absolute sandbox path to the host path below root.
func HostPath(root, p string) string {
	return filepath.Join(root, filepath.FromSlash(path.Clean("/"+p)))
}
