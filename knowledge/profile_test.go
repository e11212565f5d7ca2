package knowledge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestProfileFields(t *testing.T) {
	tests := []struct {
		name                                            string
		wantProfile, libc, triplet, pm, install, loader string
		key, osID                                       string
	}{
		{"debian", "debian", "glibc", "riscv64-linux-gnu", "apt-get", "apt-get install -y", "/lib/ld-linux-riscv64-lp64d.so.1", "debian-riscv64", "debian"},
		{"ubuntu", "debian", "glibc", "riscv64-linux-gnu", "apt-get", "apt-get install -y", "/lib/ld-linux-riscv64-lp64d.so.1", "debian-riscv64", "debian"},
		{"Alpine", "alpine", "musl", "riscv64-alpine-linux-musl", "apk", "apk add --no-cache", "/lib/ld-musl-riscv64.so.1", "alpine-riscv64", "alpine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Profile(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{p.Profile, p.Libc, p.Triplet, p.PackageManager, p.InstallCommand, p.Loader, p.SandboxKey(), p.OSReleaseID, p.FloatABI}
			want := []string{tt.wantProfile, tt.libc, tt.triplet, tt.pm, tt.install, tt.loader, tt.key, tt.osID, "lp64d"}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("profile fields (-want +got):\n%s", d)
			}
			if p.Name != strings.ToLower(tt.name) || p.DisplayName == "" || p.UpdateCommand == "" {
				t.Errorf("name %q display %q update %q", p.Name, p.DisplayName, p.UpdateCommand)
			}
			if len(p.Packages) < 60 {
				t.Errorf("only %d canonical packages, want >= 60", len(p.Packages))
			}
		})
	}
}

func TestProfileUnknown(t *testing.T) {
	_, err := Profile("fedora")
	if err == nil {
		t.Fatal("Profile(fedora) succeeded")
	}
	for _, n := range Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %s", err, n)
		}
	}
}

func TestProfileCanonicalMap(t *testing.T) {
	deb, _ := Profile("debian")
	alp, _ := Profile("alpine")
	for _, c := range []string{"gcc", "g++", "cmake", "make", "meson", "ninja", "pkg-config", "zlib", "openssl",
		"curl", "xml2", "yaml", "ffi", "ncurses", "readline", "sqlite", "pcre2", "boost", "protobuf", "gtest",
		"lz4", "zstd", "bz2", "lzma", "expat", "uuid", "go", "cargo"} {
		if deb.Packages[c] == "" || alp.Packages[c] == "" {
			t.Errorf("canonical %q missing: debian %q alpine %q", c, deb.Packages[c], alp.Packages[c])
		}
	}
	if d := cmp.Diff(keys(deb.Packages), keys(alp.Packages)); d != "" {
		t.Errorf("profiles know different canonical names:\n%s", d)
	}
	// Fresh maps per call: changing one profile does not change the next.
	deb.Packages["zlib"] = "changed"
	again, _ := Profile("debian")
	if again.Packages["zlib"] != "zlib1g-dev" {
		t.Errorf("Profile shares its maps between calls")
	}
}

func TestProfileCorrections(t *testing.T) {
	deb, _ := Profile("debian")
	alp, _ := Profile("alpine")
	for from, to := range map[string]string{"zlib-dev": "zlib1g-dev", "openssl-dev": "libssl-dev", "xz-dev": "liblzma-dev", "build-base": "build-essential"} {
		if got := deb.Corrections[from]; got != to {
			t.Errorf("debian correction %s = %q, want %q", from, got, to)
		}
	}
	for from, to := range map[string]string{"liblzma-dev": "xz-dev", "zlib1g-dev": "zlib-dev", "libssl-dev": "openssl-dev", "build-essential": "build-base"} {
		if got := alp.Corrections[from]; got != to {
			t.Errorf("alpine correction %s = %q, want %q", from, got, to)
		}
	}
	for _, p := range []struct {
		name  string
		c, pk map[string]string
	}{{"debian", deb.Corrections, deb.Packages}, {"alpine", alp.Corrections, alp.Packages}} {
		own := map[string]bool{}
		for _, v := range p.pk {
			own[v] = true
		}
		for from, to := range p.c {
			if _, chained := p.c[to]; chained {
				t.Errorf("%s: correction %s -> %s is corrected again", p.name, from, to)
			}
			if own[from] {
				t.Errorf("%s: correction rewrites the profile's own package %s", p.name, from)
			}
			if !own[to] {
				t.Errorf("%s: correction %s -> %s targets a name outside the canonical map", p.name, from, to)
			}
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slicesSort(out)
	return out
}

func TestDebianSuite(t *testing.T) {
	for name, want := range map[string]string{"Debian GNU/Linux 13 (trixie)": "trixie", "Debian GNU/Linux (forky)": "forky", "Alpine Linux": DefaultDebianSuite} {
		if got := DebianSuite(atesor.Platform{DisplayName: name}); got != want {
			t.Errorf("DebianSuite(%q) = %q, want %q", name, got, want)
		}
	}
}
