package source

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDownloadBounds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte("hello"))
		case "/big":
			// No Content-Length: the bound must hold while streaming.
			for i := 0; i < 64; i++ {
				_, _ = w.Write(make([]byte, 1024))
				w.(http.Flusher).Flush()
			}
		case "/stall-body":
			_, _ = w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/stall-headers":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	l := downloadLimits{MaxBytes: 16 << 10, Stall: 300 * time.Millisecond}
	for _, tc := range []struct {
		path string
		want string // "" for success, else a substring of the error
	}{
		{"/ok", ""},
		{"/big", EnvDownloadMaxBytes},
		{"/stall-body", EnvDownloadStall},
		{"/stall-headers", EnvDownloadStall},
		{"/missing", "404"},
	} {
		dest := filepath.Join(t.TempDir(), "f")
		start := time.Now()
		err := download(context.Background(), srv.URL+tc.path, dest, l)
		if tc.want == "" {
			if data, _ := os.ReadFile(dest); err != nil || string(data) != "hello" {
				t.Errorf("%s: %v %q", tc.path, err, data)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.path, err, tc.want)
		}
		if tc.want != "404" && !errors.Is(err, ErrDownloadLimit) {
			t.Errorf("%s: %v is not ErrDownloadLimit", tc.path, err)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("%s took %s", tc.path, time.Since(start))
		}
	}
}
