package debsrc_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
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
