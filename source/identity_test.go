package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestPackageName(t *testing.T) {
	tests := []struct{ source, want string }{
		{"/src/zlib_1.3.dfsg+really1.3.1.orig.tar.gz", "zlib"},
		{"/tmp/lz4_1.10.0.orig.tar.gz", "lz4"},
		{"https://example.org/pub/xxHash-0.8.2.tar.gz", "xxHash"},
		{"https://git.example.org/team/cJSON.git", "cJSON"},
		{"git@git.example.org:team/cJSON.git", "cJSON"},
		{"./testdata/packages/hello/", "hello"},
		{"/work/my project", "my-project"},
		{"pkg.zip", "pkg"},
		{"/", "package"},
	}
	for _, tt := range tests {
		if got := PackageName(tt.source); got != tt.want {
			t.Errorf("PackageName(%q) = %q, want %q", tt.source, got, tt.want)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		source string
		want   Kind
	}{
		{"/src/zlib.tar.gz", Tarball},
		{"https://example.org/x-1.0.tar.xz", URL},
		{"https://git.example.org/a/b", Git},
		{"git@host:a/b.git", Git},
		{"/srv/no-such-repo.git", Git},
		{"./dir", Dir},
	}
	for _, tt := range tests {
		if got := KindOf(tt.source); got != tt.want {
			t.Errorf("KindOf(%q) = %s, want %s", tt.source, got, tt.want)
		}
	}
}

func TestTarballURLIsDownloadedOnce(t *testing.T) {
	downloads := t.TempDir()
	var tarball bytes.Buffer
	gz := gzip.NewWriter(&tarball)
	tw := tar.NewWriter(gz)
	body := []byte("all:\n\ttrue\n")
	_ = tw.WriteHeader(&tar.Header{Name: "pkg-1.0/Makefile", Mode: 0o644, Size: int64(len(body))})
	_, _ = tw.Write(body)
	tw.Close()
	gz.Close()
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits++
		w.Write(tarball.Bytes())
	}))
	defer srv.Close()
	url := srv.URL + "/pkg-1.0.tar.gz"
	for i := 0; i < 2; i++ {
		src, err := Resolve(context.Background(), url, Options{DownloadDir: downloads})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(src.Dir, "Makefile")); err != nil {
			t.Errorf("tarball not unpacked: %v", err)
		}
		if src.SHA256 == "" {
			t.Error("no SHA-256")
		}
		src.Close()
	}
	if hits != 1 {
		t.Errorf("the URL was fetched %d times, want 1", hits)
	}
}
