package sandbox_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// FuzzExtract feeds hostile tarballs to Extract: a link entry with any name and target,
// then a file written through any name, possibly through that link. Whatever the entries
// say, nothing may be written outside the destination.
func FuzzExtract(f *testing.F) {
	f.Add("top/link", "/tmp", "top/link/x", byte(tar.TypeSymlink))
	f.Add("link", "../..", "link/x", byte(tar.TypeSymlink))
	f.Add("a/b", "../../outside", "a/b", byte(tar.TypeLink))
	f.Add("../x", "", "../../y", byte(tar.TypeReg))
	f.Add("/abs", "/", "/abs/etc/passwd", byte(tar.TypeSymlink))
	f.Fuzz(func(t *testing.T, name, link, file string, typ byte) {
		if typ != tar.TypeSymlink && typ != tar.TypeLink && typ != tar.TypeReg && typ != tar.TypeDir {
			typ = tar.TypeSymlink
		}
		base := t.TempDir()
		dest := filepath.Join(base, "dest")
		if err := os.MkdirAll(filepath.Join(base, "outside"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		if err := tw.WriteHeader(&tar.Header{Name: name, Linkname: link, Typeflag: typ, Mode: 0o755}); err != nil {
			return
		}
		if err := tw.WriteHeader(&tar.Header{Name: file, Typeflag: tar.TypeReg, Mode: 0o644, Size: 6}); err != nil {
			return
		}
		_, _ = tw.Write([]byte("MARKER"))
		if err := tw.Close(); err != nil {
			return
		}
		archive := filepath.Join(base, "in.tar")
		if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = sandbox.Extract(archive, dest) // errors are fine; escapes are not
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() || p == archive {
				return nil
			}
			if rel, _ := filepath.Rel(dest, p); strings.HasPrefix(rel, "..") {
				t.Fatalf("extract wrote %s outside %s (entries %q -> %q, %q)", p, dest, name, link, file)
			}
			return nil
		})
	})
}

// TestExtractBounds unpacks a small gzip bomb and an archive of many entries under tight
// bounds: each stops with an error that names the limit and how to raise it.
func TestExtractBounds(t *testing.T) {
	mk := func(t *testing.T, files map[string]int) string {
		t.Helper()
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for name, size := range files {
			if err := tw.WriteHeader(&tar.Header{Name: "top/" + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(size)}); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write(make([]byte, size)); err != nil {
				t.Fatal(err)
			}
		}
		tw.Close()
		gz.Close()
		p := filepath.Join(t.TempDir(), "src.tar.gz")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bomb := mk(t, map[string]int{"zeros": 8 << 20})
	many := mk(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1})
	for _, tc := range []struct {
		name    string
		archive string
		limits  sandbox.ExtractLimits
		env     string
	}{
		{"bytes", bomb, sandbox.ExtractLimits{MaxBytes: 1 << 20}, sandbox.EnvExtractMaxBytes},
		{"bytes over several files", many, sandbox.ExtractLimits{MaxBytes: 3}, sandbox.EnvExtractMaxBytes},
		{"entries", many, sandbox.ExtractLimits{MaxEntries: 2}, sandbox.EnvExtractMaxEntries},
	} {
		err := sandbox.ExtractWithLimits(tc.archive, t.TempDir(), tc.limits)
		var le *sandbox.ExtractLimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.env) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// Exactly at the bound is fine, and so is no bound.
	for _, l := range []sandbox.ExtractLimits{{MaxBytes: 8 << 20, MaxEntries: 1}, {}} {
		dest := t.TempDir()
		if err := sandbox.ExtractWithLimits(bomb, dest, l); err != nil {
			t.Errorf("%+v: %v", l, err)
		} else if fi, err := os.Stat(filepath.Join(dest, "zeros")); err != nil || fi.Size() != 8<<20 {
			t.Errorf("%+v: %v %v", l, fi, err)
		}
	}
}
