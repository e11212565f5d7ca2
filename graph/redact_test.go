package graph

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// A tarball URL with credentials (a private release server): the token is used to fetch
// and appears in no output of the run — report, state, recipe, run logs, the audit log
// or the downloads cache's names.
func TestCredentialedSourceLeavesNoTrace(t *testing.T) {
	const token = "tok3n-s3cret"
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	var tgz bytes.Buffer
	writeTarGz(t, &tgz, h.src, "vecsum-1.0")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "porter" || p != token {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write(tgz.Bytes())
	}))
	defer srv.Close()
	home := t.TempDir()
	t.Setenv("ATESOR_HOME", home)
	src := strings.Replace(srv.URL, "http://", "http://porter:"+token+"@", 1) + "/vecsum-1.0.tar.gz"

	p := h.pipeline()
	p.cfg.Home = home // the downloads cache is under the state home
	res, err := p.Run(context.Background(), atesor.Request{Source: src, TestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadDir(filepath.Join(home, "downloads")); len(got) != 1 {
		t.Errorf("the downloads cache under the state home holds %d files, want the tarball", len(got))
	}
	if !res.Verified {
		t.Fatalf("status %s (%s): the fixture should port", res.Status, res.Reason)
	}
	for _, dir := range []string{h.out, home} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.Contains(p, token) {
				t.Errorf("a file name holds the token: %s", p)
			}
			if d.Type().IsRegular() && !strings.HasSuffix(p, ".tar.gz") {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if bytes.Contains(data, []byte(token)) {
					t.Errorf("%s holds the token", p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := h.report().Source; got != strings.Replace(src, "porter:"+token+"@", "", 1) {
		t.Errorf("report source = %q", got)
	}
}

// writeTarGz packs the directory dir as a source tarball with one top-level directory.
func writeTarGz(t *testing.T, w io.Writer, dir, top string) {
	t.Helper()
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = top + "/" + filepath.ToSlash(rel)
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			_, err = tw.Write(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
}
