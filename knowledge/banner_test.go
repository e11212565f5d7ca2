package knowledge

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/<name>, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got); run go test ./knowledge -run Golden -update if the change is intended:\n%s", name, d)
	}
}

func TestBannerSummaryGolden(t *testing.T) {
	for _, name := range []string{"alpine", "debian"} {
		p, err := Profile(name)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "banner_"+name+".golden", Banner(p))
		golden(t, "summary_"+name+".golden", Summary(p))
	}
}

func TestBannerParts(t *testing.T) {
	deb, _ := Profile("debian")
	alp, _ := Profile("alpine")
	for _, tc := range []struct {
		b    string
		want []string
	}{
		{Banner(deb), []string{"Debian GNU/Linux", "glibc", "riscv64-linux-gnu", "apt-get", "NEVER use another distro's package manager", "apt-get install -y zlib1g-dev libssl-dev", "zlib-dev", "zlib1g-dev"}},
		{Banner(alp), []string{"Alpine Linux", "musl", "riscv64-alpine-linux-musl", "apk", "NEVER use another distro's package manager", "apk add --no-cache zlib-dev openssl-dev", "zlib1g-dev is another distro's name; here use zlib-dev"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.b, w) {
				t.Errorf("banner lacks %q:\n%s", w, tc.b)
			}
		}
	}
}

func TestSummaryParts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		issues int
		musl   bool
	}{{"debian", 8, false}, {"ubuntu", 8, false}, {"alpine", 9, true}} {
		p, _ := Profile(tc.name)
		s := Summary(p)
		for _, m := range []string{"__riscv:", "__riscv_xlen", "__riscv_flen", "__riscv_atomic", "__riscv_mul", "__riscv_vector", "__riscv_compressed"} {
			if !strings.Contains(s, "- "+strings.TrimSuffix(m, ":")) {
				t.Errorf("%s: macro %s missing", tc.name, m)
			}
		}
		if got := strings.Count(s, "   Root cause: "); got != tc.issues {
			t.Errorf("%s: %d porting issues, want %d", tc.name, got, tc.issues)
		}
		if got := strings.Count(s, "   First fix: "); got != tc.issues {
			t.Errorf("%s: %d first fixes, want %d", tc.name, got, tc.issues)
		}
		if strings.Contains(s, "musl libc\n") != tc.musl {
			t.Errorf("%s: musl issue present = %t, want %t", tc.name, !tc.musl, tc.musl)
		}
		for _, w := range []string{p.InstallCommand, "zlib=" + p.Packages["zlib"], "Libc: " + p.Libc, "Native triplet: " + p.Triplet,
			"No cross-compilation flags", "weaker than x86", "Package name corrections"} {
			if !strings.Contains(s, w) {
				t.Errorf("%s: summary lacks %q", tc.name, w)
			}
		}
		for from, to := range p.Corrections {
			if !strings.Contains(s, from+" -> "+to) {
				t.Errorf("%s: correction %s -> %s missing", tc.name, from, to)
			}
		}
	}
}
