package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
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
		tarball := filepath.Join(base, "in.tar")
		if err := os.WriteFile(tarball, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = archive.Extract(t.Context(), tarball, dest, archive.DefaultLimits()) // errors are fine; escapes are not
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() || p == tarball {
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
		limits  archive.Limits
		env     string
	}{
		{"bytes", bomb, archive.Limits{MaxBytes: 1 << 20}, archive.EnvMaxBytes},
		{"bytes over several files", many, archive.Limits{MaxBytes: 3}, archive.EnvMaxBytes},
		{"entries", many, archive.Limits{MaxEntries: 2}, archive.EnvMaxEntries},
	} {
		err := archive.Extract(t.Context(), tc.archive, t.TempDir(), tc.limits)
		var le *archive.LimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.env) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// Exactly at the bound is fine, and so is no bound.
	for _, l := range []archive.Limits{{MaxBytes: 8 << 20, MaxEntries: 1}, {}} {
		dest := t.TempDir()
		if err := archive.Extract(t.Context(), bomb, dest, l); err != nil {
			t.Errorf("%+v: %v", l, err)
		} else if fi, err := os.Stat(filepath.Join(dest, "zeros")); err != nil || fi.Size() != 8<<20 {
			t.Errorf("%+v: %v %v", l, fi, err)
		}
	}
}

// gnuSparseTar returns a tar holding one GNU sparse entry top/<name> whose logical size
// is size, with a single stored byte at its end: a few hundred bytes of archive that
// unpack to size bytes.
func gnuSparseTar(t *testing.T, name string, size int64) []byte {
	t.Helper()
	h := make([]byte, 512)
	octal := func(off, n int, v int64) {
		s := strconv.FormatInt(v, 8)
		if len(s) > n {
			t.Fatalf("%d does not fit %d octal digits", v, n)
		}
		copy(h[off:off+n], strings.Repeat("0", n-len(s))+s)
	}
	copy(h[0:], "top/"+name)
	octal(100, 7, 0o644)
	octal(108, 7, 0)
	octal(116, 7, 0)
	octal(124, 11, 1) // one stored byte
	octal(136, 11, 1700000000)
	h[156] = 'S'
	copy(h[257:], "ustar  \x00")
	octal(386, 12, size-1) // the sparse map: one region of one byte at the end
	octal(398, 12, 1)
	octal(483, 12, size) // the logical size
	for i := 148; i < 156; i++ {
		h[i] = ' '
	}
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	data := make([]byte, 512)
	data[0] = 'x'
	return append(append(h, data...), make([]byte, 1024)...)
}

// TestExtractCountsSparseAndHardLinks: a tiny archive of a 2 GiB sparse entry, and one
// of a 1 MiB file with 50 hard links to it, each hit the byte bound, which counts a sparse
// entry by its logical size and each hard link by its target's size; both stop before
// writing what the bound forbids.
func TestExtractCountsSparseAndHardLinks(t *testing.T) {
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse.tar")
	if err := os.WriteFile(sparse, gnuSparseTar(t, "hole", 2<<30), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "top/big", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("top/link%d", i), Typeflag: tar.TypeLink, Linkname: "top/big"}); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	links := filepath.Join(dir, "links.tar")
	if err := os.WriteFile(links, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, archive string
		limit         int64
	}{
		{"sparse", sparse, 1 << 30},
		{"hard links", links, 10 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := t.TempDir()
			err := archive.Extract(t.Context(), tc.archive, dest, archive.Limits{MaxBytes: tc.limit})
			var le *archive.LimitError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), archive.EnvMaxBytes) {
				t.Fatalf("got %v, want the byte bound", err)
			}
			var written int64
			_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					fi, _ := d.Info()
					written += fi.Size()
				}
				return nil
			})
			if written > tc.limit {
				t.Errorf("%d bytes written past the %d bound", written, tc.limit)
			}
		})
	}
	// Within the bound, the sparse entry unpacks to its full size and the links are links.
	dest := t.TempDir()
	if err := archive.Extract(t.Context(), links, dest, archive.Limits{MaxBytes: 51 << 20}); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.tar")
	if err := os.WriteFile(small, gnuSparseTar(t, "hole", 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	dest = t.TempDir()
	if err := archive.Extract(t.Context(), small, dest, archive.Limits{MaxBytes: 4096}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dest, "hole")); err != nil || len(data) != 4096 || data[4095] != 'x' {
		t.Errorf("sparse entry unpacked to %d bytes, %v", len(data), err)
	}
}

// TestExtractStopsOnCancel unpacks an archive whose one sparse entry is 8 GiB (writing
// it takes many seconds) without a byte bound, and cancels it: it returns within a
// second with the cancellation.
func TestExtractStopsOnCancel(t *testing.T) {
	tarball := filepath.Join(t.TempDir(), "huge.tar")
	if err := os.WriteFile(tarball, gnuSparseTar(t, "hole", 8<<30), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- archive.Extract(ctx, tarball, t.TempDir(), archive.Limits{}) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	at := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want the cancellation", err)
		}
		if d := time.Since(at); d > time.Second {
			t.Errorf("stopped %s after the cancel", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("extraction went on for 5 s after the cancel")
	}
}

// TestLimitsResolve: zero fields take the defaults, a negative field (no bound) stays,
// and the defaults read no environment variable (the CLI passes them in).
func TestLimitsResolve(t *testing.T) {
	t.Setenv(archive.EnvMaxBytes, "1K")
	if d := archive.DefaultLimits(); d != (archive.Limits{MaxBytes: 16 << 30, MaxEntries: 1_000_000}) {
		t.Errorf("DefaultLimits = %+v", d)
	}
	if got := (archive.Limits{MaxBytes: -1}).Resolve(); got != (archive.Limits{MaxBytes: -1, MaxEntries: 1_000_000}) {
		t.Errorf("Resolve = %+v", got)
	}
}
