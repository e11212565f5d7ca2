package sandbox_test

import (
	"archive/tar"
	"bytes"
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
