package gotool

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	tests := []struct {
		ver, arch, want string
	}{
		{"go1.27.3", "riscv64", "v0.0.1-go1.27.3.linux-riscv64"},
		{"go1.27.0", "amd64", "v0.0.1-go1.27.0.linux-amd64"},
		{"go1.28rc1", "riscv64", "v0.0.1-go1.28rc1.linux-riscv64"},
		{"go1.20", "amd64", "v0.0.1-go1.20.linux-amd64"},
		{"go1.27", "amd64", ""}, // a language version, no release
		{"1.27.3", "amd64", ""}, // no go prefix
		{"go1.27.3", "x/../y", ""},
		{"go1.27.3", "", ""},
	}
	for _, tt := range tests {
		got, err := moduleVersion(tt.ver, tt.arch)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s %s: %q, want an error", tt.ver, tt.arch, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s %s: %q %v, want %q", tt.ver, tt.arch, got, err, tt.want)
		}
	}
}

func TestNotServed(t *testing.T) {
	for msg, want := range map[string]bool{
		"reading https://proxy/golang.org/toolchain/@v/v0.0.1-go1.27.3.linux-riscv64.info: 403 Forbidden\n\tserver response: This module version is not available.": true,
		"reading http://127.0.0.1/golang.org/toolchain/@v/x.info: 404 Not Found":                                                                                    true,
		"golang.org/toolchain@v0.0.1-go1.99.0.linux-riscv64: invalid version: unknown revision":                                                                     true,
		"verifying golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64: checksum mismatch\n\tdownloaded: h1:a\n\tsum.golang.org: h1:b\n\nSECURITY ERROR":               false,
		"dial tcp: lookup proxy: no such host":         false,
		"reading https://proxy/x.zip: 502 Bad Gateway": false,
	} {
		if got := notServed(msg); got != want {
			t.Errorf("notServed(%q) = %t, want %t", msg, got, want)
		}
	}
}

// fileProxy lays out golang.org/toolchain releases (module version to zip contents,
// file name to data) as a file:// module proxy. (For golang.org/toolchain the go
// command insists on the checksum database for any other proxy, even with
// GOSUMDB=off; a file:// proxy is its one exception, made for testing distributions.)
func fileProxy(t *testing.T, releases map[string]map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	at := filepath.Join(dir, filepath.FromSlash(toolchainModule), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var list []string
	for v, files := range releases {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for name, data := range files {
			fh := &zip.FileHeader{Name: toolchainModule + "@" + v + "/" + name, Method: zip.Deflate}
			fh.SetMode(0o755)
			w, err := zw.CreateHeader(fh)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(data)); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		for ext, data := range map[string][]byte{
			".info": []byte(`{"Version":"` + v + `","Time":"2026-10-19T22:20:36Z"}`),
			".mod":  []byte("module " + toolchainModule + "\n"),
			".zip":  buf.Bytes(),
		} {
			if err := os.WriteFile(filepath.Join(at, v+ext), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		list = append(list, v)
	}
	if err := os.WriteFile(filepath.Join(at, "list"), []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(dir)
}

// TestProxyFetcher runs the host's go command against a module proxy: a served
// release is downloaded into the state home's module cache and its directory returned
// with its hash; one that is not served is ErrNotServed; a second fetch uses
// the cache.
func TestProxyFetcher(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on the host")
	}
	proxy := fileProxy(t, map[string]map[string]string{
		"v0.0.1-go1.99.1.linux-amd64": {"bin/go": "#!/bin/sh\necho go1.99.1\n", "VERSION": "go1.99.1\n"},
	})
	t.Setenv("GOPROXY", proxy)
	t.Setenv("GOSUMDB", "off") // with a file:// proxy only; any other proxy needs the checksum database
	t.Setenv("GOFLAGS", "")
	home := t.TempDir()
	f := NewProxyFetcher(home, nil)
	t.Cleanup(func() { makeWritable(t, home) }) // the go command leaves the module cache read-only
	got, err := f.Fetch(context.Background(), "go1.99.1", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if got.Module != "golang.org/toolchain@v0.0.1-go1.99.1.linux-amd64" || !strings.HasPrefix(got.Sum, "h1:") ||
		!strings.HasPrefix(got.Dir, f.ModCache()) || got.Arch != "amd64" || got.Version != "go1.99.1" {
		t.Errorf("fetched %+v", got)
	}
	if b, err := os.ReadFile(filepath.Join(got.Dir, "VERSION")); err != nil || string(b) != "go1.99.1\n" {
		t.Errorf("VERSION %q %v", b, err)
	}
	if _, err := f.Fetch(context.Background(), "go1.99.1", "riscv64"); !errors.Is(err, ErrNotServed) {
		t.Errorf("riscv64: %v, want ErrNotServed", err)
	}
	t.Setenv("GOPROXY", "off") // the cache answers now
	again, err := f.Fetch(context.Background(), "go1.99.1", "amd64")
	if err != nil || again.Dir != got.Dir || again.Sum != got.Sum {
		t.Errorf("cached fetch %+v %v", again, err)
	}
	// An extraction the go command has not finished is not used.
	if err := os.WriteFile(got.Dir+".partial", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(context.Background(), "go1.99.1", "amd64"); err == nil || !strings.Contains(err.Error(), "GOPROXY=off") {
		t.Errorf("a partial extraction was used: %v", err)
	}
}

// makeWritable gives the owner write permission on every directory below dir, so
// that the test's temporary directory can be removed.
func makeWritable(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
