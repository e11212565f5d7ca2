package sandbox

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/internal/ctxio"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
)

// IsGitURL reports whether src names a git repository to clone rather than a host path:
// an https://, http://, git://, ssh:// or file:// URL, or an scp-like git@host:path.
func IsGitURL(src string) bool {
	for _, p := range []string{"https://", "http://", "git://", "ssh://", "file://"} {
		if strings.HasPrefix(src, p) {
			return true
		}
	}
	return strings.HasPrefix(src, "git@") && strings.Contains(src, ":")
}

// copyInHost copies the host file or directory src to the host directory or file dest
// (already resolved inside a sandbox). A source tarball is unpacked into dest, with its
// single top-level directory stripped; a directory is copied recursively (symbolic links
// are copied as links) without the secret-looking files isSecretFile names, each
// skipped one logged to logger; any other file is copied to dest. What it writes is
// bounded by l (zero fields: the default extraction bounds; see [WithExtractLimits];
// each hard link of a tree counts the bytes it copies), and it stops when ctx ends.
func copyInHost(ctx context.Context, src, dest string, l archive.Limits, logger *slog.Logger) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	l = l.Resolve()
	budget := archive.NewBudget(src, l)
	switch {
	case fi.IsDir():
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return err
		}
		return copyTree(ctx, src, dest, budget, skipSecrets(logger))
	case archive.Kind(src) != "":
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return err
		}
		return archive.Extract(ctx, src, dest, l)
	default:
		if di, err := os.Stat(dest); err == nil && di.IsDir() {
			dest = filepath.Join(dest, filepath.Base(src))
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		r, err := os.OpenRoot(filepath.Dir(dest))
		if err != nil {
			return err
		}
		defer r.Close()
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		if err := budget.Take(fi.Size()); err != nil {
			return err
		}
		return writeInRoot(r, filepath.Base(dest), ctxio.Reader(ctx, in), fi.Mode().Perm(), fi.Size(), src)
	}
}

// copyTree copies the contents of the host directory src into dest through an
// [os.Root], so nothing lands outside dest even when dest already holds links. Entries
// for which skip (when not nil) reports true are left out, with everything below them.
// Every regular file counts its size against budget (nil: no bound), so a tree of
// hard links to one large file counts each copy it makes.
func copyTree(ctx context.Context, src, dest string, budget *archive.Budget, skip func(rel string, d fs.DirEntry) bool) error {
	r, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer r.Close()
	var dirs osroot.DirTimes
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if skip != nil && skip(rel, d) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := osroot.MkdirAll(r, rel, 0o755); err != nil {
				return err
			}
			dirs.Add(rel, info.ModTime())
			return osroot.Chmod(r, rel, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_ = r.Remove(rel)
			return osroot.Symlink(r, target, rel)
		case d.Type().IsRegular():
			if err := budget.Take(info.Size()); err != nil {
				return err
			}
			in, _, err := openRegular(p)
			if err != nil {
				return err
			}
			defer in.Close()
			return osroot.WriteFile(r, rel, io.LimitReader(ctxio.Reader(ctx, in), info.Size()), info.Mode().Perm(), info.ModTime())
		default:
			return nil // devices, sockets and fifos are not part of a source tree
		}
	})
	if err != nil {
		return err
	}
	return dirs.Apply(r)
}
