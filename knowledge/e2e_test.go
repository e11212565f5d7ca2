package knowledge

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz"
)

// e2e skips a test unless ATESOR_E2E=1, and returns the Debian mirror and a download
// cache directory that survives between runs.
func e2e(t *testing.T) (mirror, cache string) {
	t.Helper()
	if os.Getenv("ATESOR_E2E") != "1" {
		t.Skip("set ATESOR_E2E=1 to run tests that download from the Debian archive")
	}
	mirror, err := DebianMirror()
	if err != nil {
		t.Fatal(err)
	}
	cache = filepath.Join(os.TempDir(), "atesor-knowledge-e2e")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	return mirror, cache
}

// fetch downloads url into the cache (once) and returns the file's bytes. A cached file
// younger than maxAge is reused.
func fetch(t *testing.T, cache, url string, maxAge time.Duration) []byte {
	t.Helper()
	file := filepath.Join(cache, strings.NewReplacer("/", "_", ":", "_").Replace(url))
	if fi, err := os.Stat(file); err == nil && (maxAge == 0 || time.Since(fi.ModTime()) < maxAge) {
		if b, err := os.ReadFile(file); err == nil {
			return b
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("download %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("download %s: %v", url, err)
	}
	if err := os.WriteFile(file+".tmp", b, 0o644); err == nil {
		os.Rename(file+".tmp", file)
	}
	return b
}

func unxz(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := xz.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sourcesSHA256 finds the SHA-256 of a file name in a Debian Sources index.
func sourcesSHA256(sources []byte, name string) string {
	sc := bufio.NewScanner(bytes.NewReader(sources))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	inSHA := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Checksums-Sha256:"):
			inSHA = true
		case strings.HasPrefix(line, " ") && inSHA:
			f := strings.Fields(line)
			if len(f) == 3 && f[2] == name {
				return f[0]
			}
		default:
			inSHA = false
		}
	}
	return ""
}

// untar unpacks a .tar.gz into dir, refusing entries that leave it, and returns the single
// top directory.
func untar(t *testing.T, data []byte, dir string) string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	tops := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			t.Fatalf("tar entry %q leaves the directory", h.Name)
		}
		tops[strings.Split(name, string(filepath.Separator))[0]] = true
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(target), 0o755)
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			f.Close()
		case tar.TypeSymlink:
			os.MkdirAll(filepath.Dir(target), 0o755)
			os.Symlink(h.Linkname, target)
		}
	}
	if len(tops) != 1 {
		t.Fatalf("tarball has %d top-level entries, want 1", len(tops))
	}
	for top := range tops {
		return filepath.Join(dir, top)
	}
	return dir
}

func TestE2EDetectUpstreamTarballs(t *testing.T) {
	mirror, cache := e2e(t)
	sources := unxz(t, fetch(t, cache, mirror+"/dists/trixie/main/source/Sources.xz", 24*time.Hour))
	tests := []struct {
		pool, file string
		want       detected
	}{
		{"pool/main/z/zlib/", "zlib_1.3.dfsg+really1.3.1.orig.tar.gz", detected{
			BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "configure", Shipped: true, Language: "C",
			Deps: []atesor.Dependency{}}},
		{"pool/main/l/lz4/", "lz4_1.10.0.orig.tar.gz", detected{
			BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "Makefile", Language: "C",
			Deps: []atesor.Dependency{}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			want := sourcesSHA256(sources, tt.file)
			if want == "" {
				t.Fatalf("%s is not in trixie's Sources index", tt.file)
			}
			data := fetch(t, cache, mirror+"/"+tt.pool+tt.file, 0)
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != want {
				os.Remove(filepath.Join(cache, strings.NewReplacer("/", "_", ":", "_").Replace(mirror+"/"+tt.pool+tt.file)))
				t.Fatalf("SHA-256 of %s is %s, the Sources index says %s", tt.file, got, want)
			}
			root := untar(t, data, t.TempDir())
			det, err := Detect(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			got := project(det)
			got.Alternatives = nil
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Detect(%s) (-want +got):\n%s", tt.file, d)
			}
			t.Logf("%s:\n%s", tt.file, DetectionSummary(det))
			// Both libraries build on riscv64 as they are: nothing may be reported as a
			// high or critical porting problem.
			for _, f := range det.ArchFindings {
				if f.Severity == atesor.SeverityHigh || f.Severity == atesor.SeverityCritical {
					t.Errorf("portable code reported as %s: %+v", f.Severity, f)
				}
			}
			deb, _ := Profile("debian")
			plan, tests, err := DefaultPlan(det, deb)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("plan %q, tests %q", plan.Commands(), tests)
			if ev := Evidence(context.Background(), root); !strings.Contains(ev, "## "+det.Evidence) {
				t.Errorf("evidence bundle lacks %s", det.Evidence)
			}
		})
	}
}

func TestE2EDebianPackagesExist(t *testing.T) {
	mirror, cache := e2e(t)
	index := unxz(t, fetch(t, cache, mirror+"/dists/trixie/main/binary-riscv64/Packages.xz", 24*time.Hour))
	have := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(index))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "Package: "); ok {
			have[strings.TrimSpace(name)] = true
		}
	}
	if len(have) < 1000 {
		t.Fatalf("the riscv64 index lists only %d packages", len(have))
	}
	deb, _ := Profile("debian")
	var missing []string
	for canonical, pkg := range deb.Packages {
		if !have[pkg] {
			missing = append(missing, fmt.Sprintf("%s=%s", canonical, pkg))
		}
	}
	for from, to := range deb.Corrections {
		if !have[to] {
			missing = append(missing, fmt.Sprintf("correction %s->%s", from, to))
		}
	}
	if len(missing) > 0 {
		slicesSort(missing)
		t.Errorf("Debian names not in trixie's riscv64 index: %v", missing)
	}
}
