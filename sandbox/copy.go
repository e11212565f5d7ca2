package sandbox

import (
	"archive/tar"
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/decompress"
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

// ArchiveKind returns the archive format of a source tarball by its name: "tar.gz",
// "tar.xz", "tar.bz2", "tar", "zip", or "" when the name is not an archive.
func ArchiveKind(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.HasSuffix(n, ".tar.gz"), strings.HasSuffix(n, ".tgz"):
		return "tar.gz"
	case strings.HasSuffix(n, ".tar.xz"), strings.HasSuffix(n, ".txz"):
		return "tar.xz"
	case strings.HasSuffix(n, ".tar.bz2"), strings.HasSuffix(n, ".tbz2"), strings.HasSuffix(n, ".tbz"):
		return "tar.bz2"
	case strings.HasSuffix(n, ".tar"):
		return "tar"
	case strings.HasSuffix(n, ".zip"):
		return "zip"
	}
	return ""
}

// copyInHost copies the host file or directory src to the host directory or file dest
// (already resolved inside a sandbox). A source tarball is unpacked into dest, with its
// single top-level directory stripped; a directory is copied recursively (symbolic links
// are copied as links) without the secret-looking files [IsSecretFile] names, each
// skipped one logged to logger; any other file is copied to dest. What it writes is
// bounded by [DefaultExtractLimits] (each hard link of a tree counts the bytes it
// copies), and it stops when ctx ends.
func copyInHost(ctx context.Context, src, dest string, logger *slog.Logger) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	l := DefaultExtractLimits()
	budget := newByteBudget(src, l)
	switch {
	case fi.IsDir():
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return err
		}
		return copyTree(ctx, src, dest, budget, skipSecrets(logger))
	case ArchiveKind(src) != "":
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return err
		}
		return ExtractWithLimits(ctx, src, dest, l)
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
		if err := budget.take(fi.Size()); err != nil {
			return err
		}
		return writeInRoot(r, filepath.Base(dest), ctxReader{ctx, in}, fi.Mode().Perm(), fi.Size(), src)
	}
}

// copyTree copies the contents of the host directory src into dest through an
// [os.Root], so nothing lands outside dest even when dest already holds links. Entries
// for which skip (when not nil) reports true are left out, with everything below them.
// Every regular file counts its size against budget (nil: no bound), so a tree of
// hard links to one large file counts each copy it makes.
func copyTree(ctx context.Context, src, dest string, budget *byteBudget, skip func(rel string, d fs.DirEntry) bool) error {
	r, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer r.Close()
	var dirs dirTimes
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
			dirs.add(rel, info.ModTime())
			return osroot.Chmod(r, rel, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_ = r.Remove(rel)
			return osroot.Symlink(r, target, rel)
		case d.Type().IsRegular():
			if err := budget.take(info.Size()); err != nil {
				return err
			}
			in, _, err := openRegular(p)
			if err != nil {
				return err
			}
			defer in.Close()
			return osroot.WriteFile(r, rel, io.LimitReader(ctxReader{ctx, in}, info.Size()), info.Mode().Perm(), info.ModTime())
		default:
			return nil // devices, sockets and fifos are not part of a source tree
		}
	})
	if err != nil {
		return err
	}
	return dirs.apply(r)
}

// Extract unpacks the archive file (.tar.gz, .tar.xz, .tar.bz2, .tar or .zip) into the
// host directory dest within [DefaultExtractLimits]. When every entry lives below one
// top-level directory, that directory is stripped, as source tarballs expect. Entries that
// would land outside dest (absolute names, "..", links leading out) are refused. It stops
// with the context's cause when ctx ends.
func Extract(ctx context.Context, archive, dest string) error {
	return ExtractWithLimits(ctx, archive, dest, DefaultExtractLimits())
}

// ExtractWithLimits is [Extract] with explicit bounds on the bytes and entries unpacked;
// an archive beyond them is an [*ExtractLimitError] (what was unpacked so far stays).
// Each file counts its logical size before a byte is written: a sparse entry counts its
// full size (it is unpacked in full), and a hard link counts the size of its target
// again, since every later copy of the tree (into a sandbox, into an archive) writes
// those bytes once per name.
func ExtractWithLimits(ctx context.Context, archive, dest string, l ExtractLimits) error {
	kind := ArchiveKind(archive)
	if kind == "" {
		return fmt.Errorf("extract %s: not a known archive type", archive)
	}
	var names []string
	if err := walkArchive(ctx, archive, kind, func(name string, _ *entry) error {
		names = append(names, name)
		if l.MaxEntries > 0 && len(names) > l.MaxEntries {
			return &ExtractLimitError{Archive: archive, What: "entries", Limit: int64(l.MaxEntries), Env: EnvExtractMaxEntries}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	strip := commonTop(names)
	budget := newByteBudget(archive, l)
	r, err := os.OpenRoot(dest)
	if err != nil {
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	defer r.Close()
	var dirs dirTimes
	sizes := map[string]int64{} // the size of each file written, for the hard links to it
	err = walkArchive(ctx, archive, kind, func(name string, e *entry) error {
		rel := cleanEntry(name, strip)
		if rel == "" {
			return nil
		}
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Errorf("entry %q leaves the destination", name)
		}
		switch e.kind {
		case entryDir:
			if err := osroot.MkdirAll(r, rel, 0o755); err != nil {
				return err
			}
			dirs.add(rel, e.mtime)
			return osroot.Chmod(r, rel, e.mode|0o700)
		case entrySymlink:
			if dir := path.Dir(rel); dir != "." {
				if err := osroot.MkdirAll(r, dir, 0o755); err != nil {
					return err
				}
			}
			_ = r.Remove(rel)
			delete(sizes, rel)
			return osroot.Symlink(r, e.link, rel)
		case entryHardlink:
			target := cleanEntry(e.link, strip)
			if target == "" || strings.HasPrefix(target, "../") {
				return fmt.Errorf("hard link %q leaves the destination", name)
			}
			size, ok := sizes[target]
			if !ok {
				fi, err := r.Lstat(target)
				if err != nil {
					return err
				}
				size = fi.Size()
			}
			if err := budget.take(size); err != nil {
				return err
			}
			_ = r.Remove(rel)
			if err := osroot.Link(r, target, rel); err != nil {
				return err
			}
			sizes[rel] = size
			return nil
		case entryFile:
			if err := budget.take(e.size); err != nil {
				return err
			}
			if dir := path.Dir(rel); dir != "." {
				if err := osroot.MkdirAll(r, dir, 0o755); err != nil {
					return err
				}
			}
			// The archive readers yield no more than the entry's size (tar by its
			// header, zip by its declared size); the limit makes sure of it.
			if err := osroot.WriteFile(r, rel, io.LimitReader(ctxReader{ctx, e.r}, e.size), e.mode, e.mtime); err != nil {
				return err
			}
			sizes[rel] = e.size
			return nil
		}
		return nil
	})
	if err == nil {
		err = dirs.apply(r)
	}
	if err != nil {
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	return nil
}

func cleanEntry(name, strip string) string {
	n := path.Clean("/" + strings.TrimPrefix(filepath.ToSlash(name), "./"))
	n = strings.TrimPrefix(n, "/")
	if strip != "" {
		if n == strip {
			return ""
		}
		n = strings.TrimPrefix(n, strip+"/")
	}
	if n == "." {
		return ""
	}
	// Names were cleaned against "/", so ".." cannot remain; keep the check for clarity.
	return n
}

// commonTop returns the single top-level directory of all names, or "".
func commonTop(names []string) string {
	top := ""
	sawNested := false
	for _, n := range names {
		n = strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(n, "./")), "/")
		if n == "" || n == "." || strings.HasPrefix(n, "pax_global_header") {
			continue
		}
		first, rest, nested := strings.Cut(n, "/")
		if top == "" {
			top = first
		} else if first != top {
			return ""
		}
		if nested && rest != "" {
			sawNested = true
		}
	}
	if !sawNested {
		return ""
	}
	return top
}

type entryKind int

const (
	entryFile entryKind = iota
	entryDir
	entrySymlink
	entryHardlink
	entryOther
)

type entry struct {
	kind  entryKind
	mode  fs.FileMode
	link  string
	mtime time.Time // zero when the archive does not say
	size  int64     // a file's logical size
	r     io.Reader
}

// walkArchive calls fn for each entry of the archive. Every read of the archive checks
// ctx, so even skipping the data of a huge entry stops when ctx ends.
func walkArchive(ctx context.Context, archive, kind string, fn func(name string, e *entry) error) error {
	if kind == "zip" {
		zr, err := zip.OpenReader(archive)
		if err != nil {
			return err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
			mode := f.Mode()
			e := &entry{mode: mode.Perm(), mtime: f.Modified}
			switch {
			case mode.IsDir():
				e.kind = entryDir
			case mode&fs.ModeSymlink != 0:
				rc, err := f.Open()
				if err != nil {
					return err
				}
				b, err := io.ReadAll(io.LimitReader(rc, 4096))
				rc.Close()
				if err != nil {
					return err
				}
				e.kind, e.link = entrySymlink, string(b)
			case mode.IsRegular():
				rc, err := f.Open()
				if err != nil {
					return err
				}
				e.kind, e.r, e.size = entryFile, rc, int64(min(f.UncompressedSize64, 1<<62))
				err = fn(f.Name, e)
				rc.Close()
				if err != nil {
					return err
				}
				continue
			default:
				e.kind = entryOther
			}
			if err := fn(f.Name, e); err != nil {
				return err
			}
		}
		return nil
	}
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := decompress.Reader(strings.TrimPrefix(kind, "tar"), ctxReader{ctx, f})
	if err != nil {
		return err
	}
	defer r.Close()
	tr := tar.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		e := &entry{mode: fs.FileMode(h.Mode).Perm(), link: h.Linkname, mtime: h.ModTime}
		switch h.Typeflag {
		case tar.TypeDir:
			e.kind = entryDir
		case tar.TypeSymlink:
			e.kind = entrySymlink
		case tar.TypeLink:
			e.kind = entryHardlink
		case tar.TypeReg, tar.TypeGNUSparse:
			// The reader gives a sparse entry's holes as zeros: its size is the logical
			// size, which is what gets written.
			e.kind, e.r, e.size = entryFile, tr, h.Size
		case tar.TypeXGlobalHeader:
			continue
		default:
			e.kind = entryOther
		}
		if err := fn(h.Name, e); err != nil {
			return err
		}
	}
}

// copyFile copies the host file src to dest (a host program or library put into a
// sandbox layer: trusted input), replacing a link at dest instead of writing through it.
func copyFile(src, dest string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if li, err := os.Lstat(dest); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if err := os.Remove(dest); err != nil {
			return err
		}
	}
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dest, perm)
}
