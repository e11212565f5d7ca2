package memory_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ulikunitz/xz"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// debianMirror returns the Debian archive URL: $ATESOR_DEBIAN_MIRROR, else the first
// non-security URI of the host's apt sources.
func debianMirror(t *testing.T) string {
	t.Helper()
	if m := os.Getenv("ATESOR_DEBIAN_MIRROR"); m != "" {
		return strings.TrimRight(m, "/")
	}
	var uris []string
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "URIs:"); ok {
				uris = append(uris, strings.Fields(v)...)
			}
		}
	}
	if b, err := os.ReadFile("/etc/apt/sources.list"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "deb" {
				for _, w := range f[1:] {
					if strings.Contains(w, "://") {
						uris = append(uris, w)
						break
					}
				}
			}
		}
	}
	for _, u := range uris {
		if strings.Contains(u, "://") && !strings.Contains(u, "security") {
			return strings.TrimRight(u, "/")
		}
	}
	t.Skip("no Debian mirror: set ATESOR_DEBIAN_MIRROR or configure apt sources")
	return ""
}

// TestE2EBundledDebianPackagesExistInTrixie checks every package that an apt-get install
// of a bundled debian-riscv64 example names against Debian trixie's riscv64 index.
func TestE2EBundledDebianPackagesExistInTrixie(t *testing.T) {
	if os.Getenv("ATESOR_E2E") != "1" {
		t.Skip("set ATESOR_E2E=1 to check the bundled Debian packages against the trixie index")
	}
	want := map[string][]string{} // package -> example ids
	for _, agent := range atesor.Agents() {
		for _, e := range bundledFile(t, agent).Examples {
			if e.Sandbox != debian {
				continue
			}
			for _, c := range exampleCommands(e) {
				for _, p := range installedPackages(c, "apt-get") {
					want[p] = append(want[p], e.ID)
				}
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no apt-get packages found in the bundled Debian examples")
	}
	url := debianMirror(t) + "/dists/trixie/main/binary-riscv64/Packages.xz"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("fetch %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fetch %s: %s", url, resp.Status)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r, err := xz.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "Package: "); ok {
			index[strings.TrimSpace(name)] = true
		}
		// Virtual packages a real package provides also install.
		if prov, ok := strings.CutPrefix(line, "Provides: "); ok {
			for _, p := range strings.Split(prov, ",") {
				if f := strings.Fields(p); len(f) > 0 {
					index["virtual:"+f[0]] = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(index) < 1000 {
		t.Fatalf("the index %s has only %d entries", url, len(index))
	}
	var names []string
	for p := range want {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if !index[p] {
			t.Errorf("package %s (used by %v) is not a real package in trixie/main riscv64%s", p, want[p],
				map[bool]string{true: " (only a virtual name)", false: ""}[index["virtual:"+p]])
		}
	}
	t.Logf("checked %d packages against %s", len(names), url)
}
