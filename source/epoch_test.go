package source

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestArchiveEpochIsTheNewestEntry(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pkg-1.0.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, e := range []struct {
		name string
		t    int64
	}{{"pkg-1.0/", 1600000000}, {"pkg-1.0/a.c", 1700000123}, {"pkg-1.0/b.c", 1650000000}} {
		h := &tar.Header{Name: e.name, Mode: 0o644, ModTime: time.Unix(e.t, 0), Typeflag: tar.TypeReg}
		if e.name[len(e.name)-1] == '/' {
			h.Typeflag = tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	gz.Close()
	f.Close()
	got, err := archiveEpoch(t.Context(), p)
	if err != nil || got != 1700000123 {
		t.Fatalf("archiveEpoch = %d, %v; want 1700000123", got, err)
	}
	if _, err := archiveEpoch(t.Context(), filepath.Join(t.TempDir(), "x.txt")); err == nil {
		t.Error("a non-archive gave an epoch")
	}
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "a"), nil, 0o644)
	when := time.Unix(1500000000, 0)
	_ = os.Chtimes(filepath.Join(dir, "a"), when, when)
	if got, err := treeEpoch(dir); err != nil || got != 1500000000 {
		t.Errorf("treeEpoch = %d, %v", got, err)
	}
}
