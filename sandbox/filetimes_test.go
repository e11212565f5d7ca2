package sandbox

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
)

// autotoolsTree is a generated autotools tree whose archive lists configure.ac last:
// written in archive order with the copy's own clock, configure.ac would look newer than
// the files generated from it and make would re-run aclocal-1.16 (the dfu-util flake).
var autotoolsTree = []struct {
	name string
	age  time.Duration // before base
}{
	{"top/", 0},
	{"top/src/", time.Hour},
	{"top/aclocal.m4", 2 * time.Hour},
	{"top/configure", time.Hour},
	{"top/Makefile.in", time.Hour},
	{"top/src/Makefile.in", time.Hour},
	{"top/configure.ac", 3 * time.Hour},
}

var treeBase = time.Date(2021, 1, 8, 12, 0, 0, 0, time.UTC)

func TestCopyInKeepsModTimes(t *testing.T) {
	var tgz, zbuf bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	zw := zip.NewWriter(&zbuf)
	for _, e := range autotoolsTree {
		h := &tar.Header{Name: e.name, ModTime: treeBase.Add(-e.age), Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e.name))}
		zh := &zip.FileHeader{Name: e.name, Modified: treeBase.Add(-e.age), Method: zip.Deflate}
		zh.SetMode(0o644)
		if e.name[len(e.name)-1] == '/' {
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
			zh.SetMode(0o755 | os.ModeDir)
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		zf, err := zw.CreateHeader(zh)
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(e.name))
			zf.Write([]byte(e.name))
		}
	}
	tw.Close()
	gz.Close()
	zw.Close()
	dir := t.TempDir()
	archives := map[string][]byte{"src.tar.gz": tgz.Bytes(), "src.zip": zbuf.Bytes()}
	for name, data := range archives {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, root string) {
		t.Helper()
		for _, e := range autotoolsTree[1:] {
			rel := e.name[len("top/"):]
			fi, err := os.Stat(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			if want := treeBase.Add(-e.age); !fi.ModTime().Equal(want) {
				t.Errorf("%s: modified %s, want %s as recorded", rel, fi.ModTime().UTC(), want)
			}
		}
		ac, _ := os.Stat(filepath.Join(root, "configure.ac"))
		m4, _ := os.Stat(filepath.Join(root, "aclocal.m4"))
		if !ac.ModTime().Before(m4.ModTime()) {
			t.Errorf("configure.ac (%s) is not older than aclocal.m4 (%s): make would re-run aclocal", ac.ModTime(), m4.ModTime())
		}
	}
	for name := range archives {
		t.Run(name, func(t *testing.T) {
			dest := t.TempDir()
			if err := copyInHost(t.Context(), filepath.Join(dir, name), dest, archive.Limits{}, slog.Default()); err != nil {
				t.Fatal(err)
			}
			check(t, dest)
			// A directory copy keeps the times too.
			t.Run("directory", func(t *testing.T) {
				again := t.TempDir()
				if err := copyInHost(t.Context(), dest, again, archive.Limits{}, slog.Default()); err != nil {
					t.Fatal(err)
				}
				check(t, again)
			})
		})
	}
}
