package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/source"
)

// confiner holds the paths a caller names to the directories the server may read.
type confiner struct {
	roots []root
	// base is the directory relative paths are taken from (the first root).
	base string
	// names is the list of roots for messages.
	names string
}

// root is one readable directory: as given (absolute) and with its links resolved.
type root struct{ given, real string }

func newConfiner(roots []string, out, kept string) (*confiner, error) {
	if len(roots) == 0 {
		return nil, errors.New("mcpserver: no root directory")
	}
	c := &confiner{}
	var names []string
	add := func(dir string, mustExist bool) error {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if !mustExist && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("root %s: %w", dir, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return fmt.Errorf("root %s is not a directory", dir)
		}
		c.roots = append(c.roots, root{given: abs, real: real})
		names = append(names, abs)
		return nil
	}
	for _, r := range roots {
		if err := add(r, true); err != nil {
			return nil, err
		}
	}
	c.base = c.roots[0].given
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if err := add(out, true); err != nil {
		return nil, err
	}
	if kept != "" {
		if err := add(kept, false); err != nil {
			return nil, err
		}
	}
	c.names = strings.Join(names, ", ")
	return c, nil
}

// path resolves a path a caller named: relative to the first root, below one of the
// roots, existing, and reached without a symbolic link out of that root (opened
// through os.Root, which refuses such links, and checked again with the links
// resolved). It returns the path with its links resolved, so what runs later reads
// the file that was checked.
func (c *confiner) path(p, what string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("%s: empty path", what)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%s: the path holds a NUL byte", what)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.base, p)
	}
	p = filepath.Clean(p)
	for _, r := range c.roots {
		for _, dir := range []string{r.given, r.real} {
			rel, ok := below(dir, p)
			if !ok {
				continue
			}
			return c.open(r, rel, p, what)
		}
	}
	return "", fmt.Errorf("%s %s is outside the directories this server may read (%s); start atesor mcp with --root DIR to allow another", what, p, c.names)
}

// open checks rel inside the root r and returns its resolved path.
func (c *confiner) open(r root, rel, p, what string) (string, error) {
	dir, err := os.OpenRoot(r.real)
	if err != nil {
		return "", fmt.Errorf("%s: open root %s: %w", what, r.given, err)
	}
	defer dir.Close()
	if _, err := dir.Stat(rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s %s does not exist", what, p)
		}
		return "", fmt.Errorf("%s %s is refused: it leaves %s through a symbolic link, or cannot be read (%v)", what, p, r.given, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(r.real, rel))
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", what, p, err)
	}
	if _, ok := below(r.real, real); !ok {
		return "", fmt.Errorf("%s %s is refused: it leaves %s through a symbolic link", what, p, r.given)
	}
	return real, nil
}

// below returns p relative to dir when p is dir or below it.
func below(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// source checks a package source: debian:NAME[=VERSION], an http(s) tarball or git
// URL, or a path below the roots. Other remote forms (file://, ssh, git://) are
// refused: a file URL would name a host path past the roots, and ssh would use the
// host's keys.
func (c *confiner) source(s, what string) (string, error) {
	t := strings.TrimSpace(s)
	switch {
	case debsrc.IsSpec(t):
		if _, _, err := debsrc.ParseSpec(t); err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		return t, nil
	case strings.HasPrefix(t, "https://"), strings.HasPrefix(t, "http://"):
		return t, nil
	case strings.Contains(t, "://"), strings.HasPrefix(t, "git@"):
		return "", fmt.Errorf("%s %q: give a path below the server's roots, an http(s) URL of a tarball or git repository, or debian:NAME", what, source.RedactURL(t))
	}
	return c.path(t, what)
}
