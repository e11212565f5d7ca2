package archive

import (
	"archive/tar"
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/ctxio"
	"github.com/eclipse-atesor/atesor-go/internal/decompress"
	"github.com/eclipse-atesor/atesor-go/internal/osroot"
)

// Kind returns the archive format of a file by its name: "tar.gz",
// "tar.xz", "tar.bz2", "tar", "zip", or "" when the name is not an archive.
func Kind(name string) string {
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

// Extract unpacks the archive file (.tar.gz, .tar.xz, .tar.bz2, .tar or .zip) into the
// host directory dest within the bounds l on the bytes and entries unpacked; an archive
// beyond them is a [*LimitError] (what was unpacked so far stays). When every entry
// lives below one top-level directory, that directory is stripped, as source tarballs
// expect. Entries that would land outside dest (absolute names, "..", links leading
// out) are refused. It stops with the context's cause when ctx ends.
//
// Each file counts its logical size before a byte is written: a sparse entry counts its
// full size (it is unpacked in full), and a hard link counts the size of its target
// again, since every later copy of the tree (into a sandbox, into an archive) writes
// those bytes once per name.
func Extract(ctx context.Context, archive, dest string, l Limits) error {
	kind := Kind(archive)
	if kind == "" {
		return fmt.Errorf("extract %s: not a known archive type", archive)
	}
	var names []string
	if err := walk(ctx, archive, kind, func(name string, _ *entry) error {
		names = append(names, name)
		if l.MaxEntries > 0 && len(names) > l.MaxEntries {
			return &LimitError{Archive: archive, What: "entries", Limit: int64(l.MaxEntries), Env: EnvMaxEntries}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	strip := commonTop(names)
	budget := NewBudget(archive, l)
	r, err := os.OpenRoot(dest)
	if err != nil {
		return fmt.Errorf("extract %s: %w", archive, err)
	}
	defer r.Close()
	var dirs osroot.DirTimes
	sizes := map[string]int64{} // the size of each file written, for the hard links to it
	err = walk(ctx, archive, kind, func(name string, e *entry) error {
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
			dirs.Add(rel, e.mtime)
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
			if err := budget.Take(size); err != nil {
				return err
			}
			_ = r.Remove(rel)
			if err := osroot.Link(r, target, rel); err != nil {
				return err
			}
			sizes[rel] = size
			return nil
		case entryFile:
			if err := budget.Take(e.size); err != nil {
				return err
			}
			if dir := path.Dir(rel); dir != "." {
				if err := osroot.MkdirAll(r, dir, 0o755); err != nil {
					return err
				}
			}
			// The archive readers yield no more than the entry's size (tar by its
			// header, zip by its declared size); the limit makes sure of it.
			if err := osroot.WriteFile(r, rel, io.LimitReader(ctxio.Reader(ctx, e.r), e.size), e.mode, e.mtime); err != nil {
				return err
			}
			sizes[rel] = e.size
			return nil
		}
		return nil
	})
	if err == nil {
		err = dirs.Apply(r)
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

// walk calls fn for each entry of the archive. Every read of the archive checks
// ctx, so even skipping the data of a huge entry stops when ctx ends.
func walk(ctx context.Context, archive, kind string, fn func(name string, e *entry) error) error {
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
	r, err := decompress.Reader(strings.TrimPrefix(kind, "tar"), ctxio.Reader(ctx, f))
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

// NewestModTime returns the newest modification time of the archive's entries, in Unix
// seconds (0 when no entry has one). It stops when ctx ends: reading a large archive
// through takes a while.
func NewestModTime(ctx context.Context, archive string) (int64, error) {
	kind := Kind(archive)
	if kind == "" {
		return 0, errors.New("not a known archive type")
	}
	var newest int64
	err := walk(ctx, archive, kind, func(_ string, e *entry) error {
		if t := e.mtime.Unix(); !e.mtime.IsZero() && t > newest {
			newest = t
		}
		return nil
	})
	return newest, err
}
