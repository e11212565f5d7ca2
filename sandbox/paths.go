package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/osroot"
)

// ErrTooManyLinks is returned for a symbolic link loop.
var ErrTooManyLinks = osroot.ErrTooManyLinks

// ResolvePath resolves the sandbox path p inside the sandbox whose root directory is
// root on the host. Every symbolic link is followed in sandbox coordinates: an absolute
// link target is taken relative to root, never to the host's /, and ".." never climbs
// above the sandbox's /. Components that do not exist are kept literally, so the result
// can name a file to create. A relative p is taken relative to /. The result is a clean,
// absolute sandbox path.
func ResolvePath(root, p string) (string, error) { return osroot.Resolve(root, p) }

// ErrOutsideRepository is returned when a path resolves outside the package repository.
var ErrOutsideRepository = errors.New("path resolves outside the repository")

// RepoOf returns the repository directory (/workspace/<repo>) that the sandbox path p
// names, or "" when p is not below /workspace/<repo>.
func RepoOf(p string) string {
	p = path.Clean("/" + p)
	rest, ok := strings.CutPrefix(p, Workspace+"/")
	if !ok || rest == "" {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return path.Join(Workspace, name)
}

// within reports whether the clean absolute sandbox path p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// resolveInRepo resolves p like [ResolvePath] and requires the result to stay inside the
// repository: repo when it is set, otherwise the /workspace/<repo> that p itself names
// (relative paths are taken relative to repo). It refuses anything else with an error
// wrapping [ErrOutsideRepository].
func resolveInRepo(root, repo, p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if !path.IsAbs(p) {
		if repo == "" {
			return "", fmt.Errorf("relative path %q without a repository: %w", p, ErrOutsideRepository)
		}
		p = path.Join(repo, p)
	}
	if repo == "" {
		repo = RepoOf(p)
	}
	if repo == "" {
		return "", fmt.Errorf("%s is not inside %s/<repo>: %w", p, Workspace, ErrOutsideRepository)
	}
	if !within(path.Clean(p), repo) {
		return "", fmt.Errorf("%s is outside %s: %w", p, repo, ErrOutsideRepository)
	}
	resolved, err := ResolvePath(root, p)
	if err != nil {
		return "", err
	}
	if !within(resolved, repo) || resolved == repo {
		return "", fmt.Errorf("%s resolves to %s, outside %s: %w", p, resolved, repo, ErrOutsideRepository)
	}
	return resolved, nil
}

// ReadFileIn reads the sandbox file p of the sandbox rooted at root, resolving it like
// [ResolvePath] and refusing, with an error wrapping [ErrOutsideRepository], a target
// outside the repository: repo when it is set, otherwise the /workspace/<repo> that p
// itself names (relative paths are taken relative to repo). The final open goes through
// a [Gate]: a link swapped in after resolution cannot escape the sandbox, and only a
// regular file of at most [BoundFile] is read, stopping when ctx is done.
func ReadFileIn(ctx context.Context, root, repo, p string) ([]byte, error) {
	resolved, err := resolveInRepo(root, repo, p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: read %s: %w", p, err)
	}
	g, err := NewGate(root)
	if err != nil {
		return nil, fmt.Errorf("sandbox: read %s: %w", p, err)
	}
	defer g.Close()
	data, err := g.ReadFile(ctx, resolved, NoFollow, BoundFile)
	if err != nil {
		return nil, fmt.Errorf("sandbox: read %s: %w", p, err)
	}
	return data, nil
}

// WriteFileIn writes data to the sandbox file p of the sandbox rooted at root, creating
// missing parent directories, and refusing a target outside the repository as
// [ReadFileIn] does.
func WriteFileIn(root, repo, p string, data []byte, perm fs.FileMode) error {
	resolved, err := resolveInRepo(root, repo, p)
	if err != nil {
		return fmt.Errorf("sandbox: write %s: %w", p, err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("sandbox: write %s: %w", p, err)
	}
	defer r.Close()
	rel := strings.TrimPrefix(resolved, "/")
	if dir := path.Dir(rel); dir != "." {
		if err := osroot.MkdirAll(r, dir, 0o755); err != nil {
			return fmt.Errorf("sandbox: write %s: %w", p, err)
		}
	}
	if perm == 0 {
		perm = 0o644
	}
	f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("sandbox: write %s: %w", p, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("sandbox: write %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sandbox: write %s: %w", p, err)
	}
	return nil
}
