package install

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/beneath"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// WriteTarball copies the staged install tree of inst out of sb (within budget, as
// the artifacts are copied) and writes it at dest (<repo>_install.tar.gz): entries
// sorted, owned by root, dated mtime (the source's SOURCE_DATE_EPOCH), so the same
// staged tree gives the same tarball. Nothing is written unless the install step
// succeeded.
func WriteTarball(ctx context.Context, sb atesor.Sandbox, inst *atesor.Install, dest string, mtime time.Time, budget *sandbox.CopyBudget, logger *slog.Logger) error {
	if inst == nil || !inst.OK {
		return nil
	}
	tmp, err := os.MkdirTemp("", "atesor-stage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return err
	}
	defer root.Close()
	// The stage counts against the run's copy-out bounds, as the artifacts do.
	if err := sandbox.CopyOutTree(ctx, sb, inst.StageDir, root, "stage", budget, logger); err != nil {
		return fmt.Errorf("copy the staged install tree out: %w", err)
	}
	return writeTarGz(dest, filepath.Join(tmp, "stage"), mtime)
}

// writeTarGz writes the host tree dir as a gzip-compressed tarball at dest (atomically,
// see [atomicfile]): regular files, directories and the symbolic links whose relative
// targets stay inside the tree, sorted by name, owned by root, every entry dated mtime.
// Other links (absolute, or climbing out: whoever unpacks the tarball would write
// through them), devices, FIFOs and sockets are left out.
func writeTarGz(dest, dir string, mtime time.Time) error {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	f, err := atomicfile.Create(dest, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, p := range paths {
		if err := addTarEntry(tw, dir, p, mtime); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return f.Commit()
}

func addTarEntry(tw *tar.Writer, root, p string, mtime time.Time) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return err
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(p); err != nil {
			return err
		}
		if !beneath.InTreeLink(filepath.ToSlash(rel), link) {
			return nil
		}
	} else if !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil // devices, sockets and pipes are no part of an install tree
	}
	h, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	h.Name = filepath.ToSlash(rel)
	if fi.IsDir() {
		h.Name += "/"
	}
	h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "root", "root"
	h.ModTime, h.AccessTime, h.ChangeTime = mtime, time.Time{}, time.Time{}
	h.Format = tar.FormatPAX
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	in, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	if ri, err := in.Stat(); err != nil || !os.SameFile(fi, ri) {
		return fmt.Errorf("%s changed while the tarball was written", p)
	}
	// The header says fi.Size() bytes: a file that grew since is cut there, one that
	// shrank is an error of the tar writer.
	_, err = io.Copy(tw, io.LimitReader(in, fi.Size()))
	return err
}

// Evidence is the recipe's account of how the primary artifacts were chosen and what
// the install step staged ("" when it did not run). The caller escapes the names in
// inst and repoDir for where the text goes; nothing here quotes them again.
func Evidence(repoDir string, inst *atesor.Install) string {
	if inst == nil {
		return ""
	}
	var b strings.Builder
	switch {
	case inst.ArtifactsFrom == atesor.ArtifactsFromTestPrograms && inst.HeadersFromTree:
		fmt.Fprintf(&b, "\n%s: the %s install step staged nothing (the project has no install rules); the source tree's CMake project declares only INTERFACE libraries, whose include directories hold %d headers, and %s metadata names the test programs.\n",
			ArtifactsReason(inst), inst.Method, inst.Headers, strings.Join(inst.TestProgramsFrom, ", "))
	case inst.ArtifactsFrom == atesor.ArtifactsFromTestPrograms:
		fmt.Fprintf(&b, "\n%s: the %s install step staged `%s` (%d files, %d headers, no program or library), and %s metadata names the test programs.\n",
			ArtifactsReason(inst), inst.Method, strings.TrimPrefix(strings.TrimPrefix(inst.StageDir, repoDir), "/"), len(inst.Files), inst.Headers, strings.Join(inst.TestProgramsFrom, ", "))
	case inst.ArtifactsFrom == atesor.ArtifactsFromInstall:
		fmt.Fprintf(&b, "\nThe primary artifacts are the ELF files the %s install step staged in `%s` (%d files, %d development files).\n",
			inst.Method, strings.TrimPrefix(strings.TrimPrefix(inst.StageDir, repoDir), "/"), len(inst.Files), len(inst.DevFiles))
	case inst.HeaderOnly:
		fmt.Fprintf(&b, "\n%s.\n", ArtifactsReason(inst))
	case inst.Error != "":
		fmt.Fprintf(&b, "\nThe curator rules chose the primary artifacts: the install step did not stage them (%s).\n", excerpt.FirstLine(inst.Error))
	default:
		b.WriteString("\nThe curator rules chose the primary artifacts.\n")
	}
	for i, f := range inst.DevFiles {
		if i == 20 {
			fmt.Fprintf(&b, "- ... and %d more development files\n", len(inst.DevFiles)-20)
			break
		}
		fmt.Fprintf(&b, "- development file: `%s`\n", f)
	}
	for _, f := range inst.ForeignData {
		fmt.Fprintf(&b, "- data for another machine or none (an ELF file below share/ not for riscv64, or one for no machine), not a primary artifact: `%s`\n", f)
	}
	if n := len(inst.TestPrograms) - inst.PrimaryTestPrograms; n > 0 {
		fmt.Fprintf(&b, "- %d test programs marked by %s metadata are not primary artifacts.\n", n, strings.Join(inst.TestProgramsFrom, ", "))
	}
	return b.String()
}

// ArtifactsReason says in one line why the primary artifacts of a header-only library
// are what they are: its test programs, or not them, since none was built ("" for any
// other package).
func ArtifactsReason(inst *atesor.Install) string {
	switch {
	case inst == nil || !inst.HeaderOnly:
		return ""
	case inst.ArtifactsFrom == atesor.ArtifactsFromTestPrograms:
		whose := "the staged headers"
		if inst.HeadersFromTree {
			whose = "the source tree's headers"
		}
		if inst.PrimaryTestPrograms == 1 {
			return "header-only library: its test program, compiled from " + whose + ", is the riscv64 evidence"
		}
		return fmt.Sprintf("header-only library: its %d test programs, compiled from %s, are the riscv64 evidence", inst.PrimaryTestPrograms, whose)
	case inst.HeadersFromTree:
		return fmt.Sprintf("header-only library: the install step staged nothing, the source tree's CMake project declares only INTERFACE libraries with %s, and no test program of the package that the build-system metadata names was built, so the curator rules chose among the built programs", count(inst.Headers, "header", "headers"))
	}
	return fmt.Sprintf("header-only library: the install step staged %s and no program or library, and no test program of the package that the build-system metadata names was built, so the curator rules chose among the built programs", count(inst.Headers, "header", "headers"))
}
