package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// tamperingMirror serves the real suite's files, genuinely signed by Debian, except
// where replace says otherwise; it records what was asked for.
type tamperingMirror struct {
	files   map[string]string // path -> local file with the genuine content
	replace map[string][]byte
	mu      sync.Mutex
	asked   []string
}

func (m *tamperingMirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/")
	m.mu.Lock()
	m.asked = append(m.asked, p)
	m.mu.Unlock()
	if b, ok := m.replace[p]; ok {
		w.Write(b)
		return
	}
	if f, ok := m.files[p]; ok {
		http.ServeFile(w, r, f)
		return
	}
	http.NotFound(w, r)
}

// TestE2ETamperedMirrorPort: a mirror that serves Debian's genuine, signed InRelease
// but a Sources.xz of its own (pointing zlib at its tarball), or the genuine Sources.xz
// but another tarball for zlib, is refused by atesor port with the file named; nothing
// is ported and nothing of it is cached. The genuine files come from the configured
// mirror through the verified client.
func TestE2ETamperedMirrorPort(t *testing.T) {
	tier.Short(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	suite := sandbox.DefaultSuite
	genuine := &debarchive.Client{Mirror: debiantest.Mirror(t), Suite: suite, CacheDir: t.TempDir()}
	rel, err := genuine.Release(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := genuine.Index(ctx, "main/source/Sources.xz")
	if err != nil {
		t.Fatal(err)
	}
	r := &debsrc.Resolver{Mirror: genuine.Mirror, Suite: suite, CacheDir: t.TempDir()}
	zlib, err := r.Lookup(ctx, "zlib", "")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := zlib.Orig()
	tarballPath := zlib.PoolPath(orig)
	inrelease := genuine.CacheDir + "/dists/" + suite + "/InRelease"
	t.Logf("genuine InRelease dated %s; zlib %s at %s", rel.Date.Format(time.RFC1123), zlib.Version, tarballPath)

	evilTarball := []byte("not zlib at all")
	evilSources := debiantest.XZ(t, []byte("Package: zlib\nVersion: 1:9.9-1\nFormat: 3.0 (quilt)\nDirectory: pool/main/z/zlib\nChecksums-Sha256:\n "+
		sha256Hex(evilTarball)+" 15 "+orig.Name+"\n"))
	tests := []struct {
		name    string
		replace map[string][]byte
		want    []string // in the error
	}{
		{"a tampered Sources.xz", map[string][]byte{"dists/" + suite + "/main/source/Sources.xz": evilSources,
			"dists/" + suite + "/main/source/by-hash/SHA256/" + rel.Files["main/source/Sources.xz"].SHA256: evilSources, tarballPath: evilTarball},
			[]string{"Sources.xz", "signed"}},
		{"a tampered tarball", map[string][]byte{tarballPath: append([]byte("x"), evilTarball...)},
			[]string{orig.Name, "SHA-256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &tamperingMirror{replace: tt.replace, files: map[string]string{
				"dists/" + suite + "/InRelease":              inrelease,
				"dists/" + suite + "/main/source/Sources.xz": sources,
				"dists/" + suite + "/main/source/by-hash/SHA256/" + rel.Files["main/source/Sources.xz"].SHA256: sources,
			}}
			srv := httptest.NewServer(m)
			defer srv.Close()
			c := newCLI(t)
			c.env["ATESOR_DEBIAN_MIRROR"] = srv.URL
			o := c.run("port", "--offline", "--out", "out", "debian:zlib")
			if o.code != exitUsage {
				t.Fatalf("port from a tampering mirror: want exit %d; %s", exitUsage, o)
			}
			for _, w := range tt.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("the error does not name %q; %s", w, o)
				}
			}
			if _, err := os.Stat(c.dir + "/out"); err == nil {
				t.Errorf("port wrote outputs for a refused source")
			}
			t.Logf("refused: %s", strings.TrimSpace(o.stderr))
			m.mu.Lock()
			t.Logf("asked for %v", m.asked)
			m.mu.Unlock()
			// Nothing the mirror changed is in the cache.
			for p, b := range tt.replace {
				for _, dir := range []string{c.home + "/downloads/debian/"} {
					if got, err := os.ReadFile(dir + p); err == nil && string(got) == string(b) {
						t.Errorf("the tampered %s was cached", p)
					}
				}
			}
		})
	}
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
