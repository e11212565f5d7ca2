package source

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A downloaded source lands whole under the downloads directory, through a temporary
// file of its own; a failed download leaves nothing that a later run would take.
func TestFetchCachedIsAtomic(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing.tar.gz") {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("tarball bytes"))
	}))
	defer srv.Close()

	got, err := fetchCached(context.Background(), dir, srv.URL+"/zlib-1.3.tar.gz", downloadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(got); string(b) != "tarball bytes" {
		t.Errorf("downloaded %q", b)
	}
	if _, err := fetchCached(context.Background(), dir, srv.URL+"/missing.tar.gz", downloadLimits{}); err == nil {
		t.Fatal("a 404 was taken as a source")
	}
	entries, err := os.ReadDir(filepath.Dir(got))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != filepath.Base(got) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the downloads directory holds %v, want only %s", names, filepath.Base(got))
	}
}
