package freshfile

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRefresh(t *testing.T) {
	old := time.Now().Add(-48 * time.Hour)
	for _, tc := range []struct {
		name     string
		copyAge  *time.Time // nil: no local copy
		status   int        // the server's answer; 0: the server is down
		limit    int64
		want     string // the file's content afterwards ("" for no file)
		changed  bool
		requests int32
		ifSince  bool // the request carried If-Modified-Since
		wantErr  string
	}{
		{name: "a fresh copy is used without asking", copyAge: ptr(time.Now()), status: 200, want: "old"},
		{name: "no copy: downloaded", status: 200, want: "new", changed: true, requests: 1},
		{name: "an old copy, changed upstream", copyAge: &old, status: 200, want: "new", changed: true, requests: 1, ifSince: true},
		{name: "an old copy, unchanged upstream", copyAge: &old, status: 304, want: "old", requests: 1, ifSince: true},
		{name: "an old copy, server down: kept", copyAge: &old, status: 0, want: "old"},
		{name: "an old copy, server error: kept", copyAge: &old, status: 500, want: "old", requests: 1, ifSince: true},
		{name: "no copy, server down", status: 0, wantErr: "connect"},
		{name: "no copy, not found", status: 404, requests: 1, wantErr: "HTTP 404"},
		{name: "no copy, too large", status: 200, limit: 2, requests: 1, wantErr: "larger than 2 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int32
			var sawSince atomic.Bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				sawSince.Store(r.Header.Get("If-Modified-Since") != "")
				if tc.status != 200 {
					w.WriteHeader(tc.status)
					return
				}
				w.Write([]byte("new"))
			}))
			url := srv.URL + "/dists/Sources.xz"
			if tc.status == 0 {
				srv.Close()
			} else {
				defer srv.Close()
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "Sources.xz")
			if tc.copyAge != nil {
				if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(file, *tc.copyAge, *tc.copyAge); err != nil {
					t.Fatal(err)
				}
			}
			changed, err := Refresh(context.Background(), nil, url, file, 0, tc.limit)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(file)
			if string(got) != tc.want || changed != tc.changed {
				t.Errorf("file %q, changed %t; want %q, %t", got, changed, tc.want, tc.changed)
			}
			if requests.Load() != tc.requests || sawSince.Load() != tc.ifSince {
				t.Errorf("%d requests (If-Modified-Since %t), want %d (%t)", requests.Load(), sawSince.Load(), tc.requests, tc.ifSince)
			}
			if tc.status == 304 && !Fresh(file, 0) {
				t.Error("a 304 did not renew the copy's time")
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 1 {
				t.Errorf("temporary files left: %v", entries)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDownloadChecked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("served")) }))
	defer srv.Close()
	for _, tc := range []struct {
		name    string
		check   func(tmp string) error
		want    string
		wantErr string
	}{
		{name: "accepted: replaces the old copy", check: func(tmp string) error {
			if b, err := os.ReadFile(tmp); err != nil || string(b) != "served" {
				t.Errorf("check saw %q (%v), want the whole download", b, err)
			}
			return nil
		}, want: "served"},
		{name: "refused: the old copy stays", check: func(string) error { return os.ErrInvalid }, want: "old", wantErr: "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "zlib_1.3.orig.tar.gz")
			if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := DownloadChecked(context.Background(), srv.Client(), srv.URL+"/pool/z", file, 0, tc.check)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if b, _ := os.ReadFile(file); string(b) != tc.want {
				t.Errorf("file = %q, want %q", b, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files left in the directory: %v", entries)
			}
		})
	}
}

// TestRefreshChecked: a download the check refuses leaves the old copy as it was, is a
// *CheckError (the server answered: not to be mistaken for one that is down) and leaves
// no temporary file; a 304 renews the copy without a check; an accepted one replaces it.
func TestRefreshChecked(t *testing.T) {
	status := 200
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != 200 {
			w.WriteHeader(status)
			return
		}
		w.Write([]byte("new"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "InRelease")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-time.Hour)
	refuse := func(string) error { return errors.New("bad signature") }
	changed, err := RefreshChecked(context.Background(), nil, srv.URL, file, since, 0, refuse)
	var ce *CheckError
	if !errors.As(err, &ce) || changed || ce.Error() != "bad signature" {
		t.Fatalf("refused download: changed %t, err %v", changed, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "old" {
		t.Errorf("a refused download replaced the file: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
	status = 304
	checked := false
	if changed, err := RefreshChecked(context.Background(), nil, srv.URL, file, since, 0, func(string) error { checked = true; return nil }); err != nil || changed || checked {
		t.Errorf("304: changed %t, err %v, checked %t", changed, err, checked)
	}
	status = 200
	if changed, err := RefreshChecked(context.Background(), nil, srv.URL, file, since, 0, func(string) error { return nil }); err != nil || !changed {
		t.Errorf("accepted download: changed %t, err %v", changed, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("an accepted download did not replace the file: %q", b)
	}
}
