package debsrc_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ulikunitz/xz"

	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
)

// debianTarXZ is a packaging tarball holding debian/rules.
func debianTarXZ(t *testing.T, rules string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	for _, m := range []struct{ name, text string }{{"debian/control", "Source: onig\n"}, {"debian/rules", rules}} {
		tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o755, Size: int64(len(m.text)), Typeflag: tar.TypeReg})
		tw.Write([]byte(m.text))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestResolverRules(t *testing.T) {
	rules := "#!/usr/bin/make -f\n%:\n\tdh $@\n\noverride_dh_auto_configure:\n\tdh_auto_configure -- --enable-posix-api\n"
	pkg := debianTarXZ(t, rules)
	index := fmt.Sprintf(`Package: libonig
Version: 6.9.9-1
Format: 3.0 (quilt)
Directory: pool/main/libo/libonig
Checksums-Sha256:
 %s 4 libonig_6.9.9.orig.tar.gz
 %s %d libonig_6.9.9-1.debian.tar.xz

Package: old
Version: 1.0-1
Format: 1.0
Directory: pool/main/o/old
Checksums-Sha256:
 %s 4 old_1.0-1.diff.gz
`, sum([]byte("orig")), sum(pkg), len(pkg), sum([]byte("diff")))
	for _, tampered := range []bool{false, true} {
		served := pkg
		if tampered {
			served = append(bytes.Clone(pkg[:len(pkg)-1]), pkg[len(pkg)-1]^1)
		}
		signer := debiantest.NewSigner(t, "Test Archive")
		a := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{
			sourcesXZ: debiantest.XZ(t, []byte(index)),
			"pool/main/libo/libonig/libonig_6.9.9-1.debian.tar.xz": served,
		})
		r := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: t.TempDir(), Keyrings: []string{signer.Keyring}}
		got, err := r.Rules(context.Background(), "libonig", "6.9.9")
		if tampered {
			if err == nil {
				t.Errorf("tampered packaging read: %q", got)
			}
			continue
		}
		if err != nil || got != rules {
			t.Fatalf("rules %q, %v", got, err)
		}
		if sw := debsrc.ConfigureSwitches(got); !slices.Equal(sw, []string{"--enable-posix-api"}) {
			t.Errorf("switches %q", sw)
		}
		if _, err := r.Rules(context.Background(), "old", ""); err == nil || !strings.Contains(err.Error(), "no debian.tar packaging") {
			t.Errorf("format 1.0: %v", err)
		}
	}
}

// TestResolverBuild: Debian's build of a source package, read from the signed archive:
// the real spdlog 1:1.15.2+ds-2 stanza's Build-Depends for riscv64 and its debian/rules'
// switches (both branches of its nocheck conditional).
func TestResolverBuild(t *testing.T) {
	rules, err := os.ReadFile("testdata/rules/spdlog.rules")
	if err != nil {
		t.Fatal(err)
	}
	pkg := debianTarXZ(t, string(rules))
	index := fmt.Sprintf(`Package: spdlog
Binary: libspdlog-dev, libspdlog1.15
Version: 1:1.15.2+ds-2
Build-Depends: debhelper-compat (= 13), cmake, ninja-build, pkgconf, libfmt-dev (>= 10), pkg-kde-tools, libsystemd-dev [linux-any] <!nocheck>, catch2 (>= 3.0.0) <!nocheck>
Format: 3.0 (quilt)
Directory: pool/main/s/spdlog
Checksums-Sha256:
 %s 4 spdlog_1.15.2+ds.orig.tar.xz
 %s %d spdlog_1.15.2+ds-2.debian.tar.xz
`, sum([]byte("orig")), sum(pkg), len(pkg))
	signer := debiantest.NewSigner(t, "Test Archive")
	a := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{
		sourcesXZ: debiantest.XZ(t, []byte(index)),
		"pool/main/s/spdlog/spdlog_1.15.2+ds-2.debian.tar.xz": pkg,
	})
	r := &debsrc.Resolver{Mirror: a.URL, Suite: "trixie", CacheDir: t.TempDir(), Keyrings: []string{signer.Keyring}}
	b, err := r.Build(context.Background(), "spdlog", "1.15.2+ds", "riscv64")
	if err != nil {
		t.Fatal(err)
	}
	if b.Package != "spdlog" || b.Version != "1:1.15.2+ds-2" {
		t.Errorf("build of %s %s", b.Package, b.Version)
	}
	if want := []string{"cmake", "ninja-build", "pkgconf", "libfmt-dev", "libsystemd-dev", "catch2"}; !slices.Equal(b.BuildDepends, want) {
		t.Errorf("build depends %q, want %q", b.BuildDepends, want)
	}
	if !slices.Contains(b.Switches, "-DSPDLOG_FMT_EXTERNAL=ON") || !slices.Contains(b.Switches, "-DSPDLOG_BUILD_TESTS=OFF") {
		t.Errorf("switches %q", b.Switches)
	}
	if b.RulesErr != nil {
		t.Errorf("rules not read: %v", b.RulesErr)
	}
	if _, err := r.Build(context.Background(), "spdlog", "9.9", "riscv64"); err == nil {
		t.Error("an unknown version was built")
	}
	// A packaging the mirror does not serve: the signed stanza's Build-Depends still count.
	a404 := debiantest.NewArchive(t, signer, "trixie", time.Now().Add(-time.Hour), map[string][]byte{sourcesXZ: debiantest.XZ(t, []byte(index))})
	r = &debsrc.Resolver{Mirror: a404.URL, Suite: "trixie", CacheDir: t.TempDir(), Keyrings: []string{signer.Keyring}}
	b, err = r.Build(context.Background(), "spdlog", "", "riscv64")
	if err != nil || b.RulesErr == nil || b.PatchesErr == nil || len(b.Switches) != 0 || !slices.Contains(b.BuildDepends, "libfmt-dev") {
		t.Errorf("without the packaging: %+v, %v", b, err)
	}
}
