package debsrc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestConfigureSwitchesOfRealRules(t *testing.T) {
	cases := []struct {
		file           string
		want, enabling []string
	}{
		{"oniguruma.rules", []string{"--enable-posix-api", "--disable-static"}, []string{"--enable-posix-api"}},
		{"libjpeg-turbo.rules",
			// -DCMAKE_INSTALL_LIBDIR=/usr/lib/$(DEB_HOST_MULTIARCH) names a variable dpkg defines: left out.
			[]string{"-DCMAKE_SKIP_RPATH=ON", "-DENABLE_STATIC=OFF", "-DWITH_JPEG8=1", "-DWITH_TURBOJPEG=ON", "-DWITH_SIMD=OFF"},
			[]string{"-DWITH_JPEG8=1", "-DWITH_TURBOJPEG=ON"}},
		{"zstd.rules", nil, nil}, // make variables, no configure step
		// armhf's -DHWY_CMAKE_ARM7:BOOL=ON (ARM-only compiler flags) is another
		// architecture's branch; riscv64's -DHWY_CMAKE_RVV:BOOL=OFF is read; the
		// nocheck branch (DEB_BUILD_OPTIONS, not the architecture) is read as before.
		{"highway.rules", []string{"-DHWY_CMAKE_RVV:BOOL=OFF", "-DCMAKE_SKIP_RPATH:BOOL=OFF", "-DBUILD_SHARED_LIBS:BOOL=ON",
			"-DHWY_WARNINGS_ARE_ERRORS:BOOL=ON", "-DHWY_SYSTEM_GTEST:BOOL=ON", "-DBUILD_TESTING=OFF"},
			[]string{"-DBUILD_SHARED_LIBS:BOOL=ON", "-DHWY_WARNINGS_ARE_ERRORS:BOOL=ON", "-DHWY_SYSTEM_GTEST:BOOL=ON"}},
		{"mpg123-cdbs.rules", []string{"--with-default-audio=pulse", "--with-module-suffix=.so", "--enable-int-quality=yes", "--without-cpu"},
			[]string{"--with-default-audio=pulse", "--with-module-suffix=.so", "--enable-int-quality=yes"}},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "rules", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got := ConfigureSwitches(string(data))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: switches %q, want %q", c.file, got, c.want)
		}
		if en := EnablingSwitches(got); !slices.Equal(en, c.enabling) {
			t.Errorf("%s: enabling %q, want %q", c.file, en, c.enabling)
		}
	}
}

func TestConfigureSwitches(t *testing.T) {
	cases := []struct {
		name, rules string
		want        []string
	}{
		{"dh_auto_configure args", "override_dh_auto_configure:\n\tdh_auto_configure -- --enable-foo --with-bar=yes\n", []string{"--enable-foo", "--with-bar=yes"}},
		{"options before the separator are dh's", "override_dh_auto_configure:\n\tdh_auto_configure --buildsystem=cmake -- -DBUILD_X=ON\n", []string{"-DBUILD_X=ON"}},
		{"configure script", "override_dh_auto_configure:\n\t./configure --prefix=/usr --enable-shared && $(MAKE)\n", []string{"--prefix=/usr", "--enable-shared"}},
		{"configure out of tree", "build/stamp:\n\tcd build && ../configure --enable-threads\n", []string{"--enable-threads"}},
		{"configure by CURDIR", "b:\n\t$(CURDIR)/configure --with-x\n", []string{"--with-x"}},
		{"cmake", "b:\n\tcmake -S . -B build -DFOO=ON -G Ninja\n", []string{"-DFOO=ON"}},
		{"meson", "b:\n\tmeson setup build -Dposix=true --buildtype=plain\n", []string{"-Dposix=true", "--buildtype=plain"}},
		{"continued lines", "override_dh_auto_configure:\n\tdh_auto_configure -- \\\n\t\t--enable-a \\\n\t\t--enable-b\n", []string{"--enable-a", "--enable-b"}},
		{"nested variables", "A = --enable-a\nB := $(A) --enable-b\nB += ${C}\nC = --enable-c\nb:\n\tdh_auto_configure -- $(B)\n", []string{"--enable-a", "--enable-b", "--enable-c"}},
		{"conditional default", "F ?= --enable-x\nF ?= --enable-y\nb:\n\tdh_auto_configure -- $(F)\n", []string{"--enable-x"}},
		{"unknown reference left out", "b:\n\tdh_auto_configure -- --with-dir=$(UNKNOWN) --enable-z\n", []string{"--enable-z"}},
		{"shell text left out", "b:\n\t./configure $$(cat flags) --enable-q `echo --enable-r`\n", []string{"--enable-q"}},
		{"comments", "b:\n\tdh_auto_configure -- --enable-a # --enable-b\n", []string{"--enable-a"}},
		{"no configure step", "%:\n\tdh $@ --with autoreconf\n", nil},
		{"an assignment in a recipe is a command", "b:\n\tDEB_CONFIGURE_EXTRA_FLAGS = --enable-no\n", nil},
		{"cdbs flags", "DEB_CONFIGURE_EXTRA_FLAGS = --enable-cdbs\n", []string{"--enable-cdbs"}},
		{"duplicates once", "b:\n\t./configure --enable-a\n\t./configure --enable-a\n", []string{"--enable-a"}},
		{"two steps on a line", "b:\n\t./configure --enable-a; cmake -DB=ON .\n", []string{"--enable-a", "-DB=ON"}},
		{"another architecture's branch", "ifeq ($(DEB_HOST_ARCH),$(filter $(DEB_HOST_ARCH),armhf))\nF += -DARM=ON\nendif\nb:\n\tdh_auto_configure -- $(F) --enable-all\n", []string{"--enable-all"}},
		{"riscv64's branch", "ifeq ($(DEB_HOST_ARCH),riscv64)\nF = --disable-asm\nelse\nF = --enable-asm\nendif\nb:\n\tdh_auto_configure -- $(F)\n", []string{"--disable-asm"}},
		{"not these architectures", "ifneq (,$(filter $(DEB_HOST_ARCH), armel armhf))\nF = --arm\nelse\nF = --generic\nendif\nb:\n\t./configure $(F)\n", []string{"--generic"}},
		{"bits and quotes", "ifeq \"$(DEB_HOST_ARCH_BITS)\" \"32\"\nF = --enable-lfs\nendif\nb:\n\t./configure $(F) --x\n", []string{"--x"}},
		{"findstring and patterns", "ifneq (,$(findstring riscv,$(DEB_HOST_ARCH)))\nA = --rv\nendif\nifeq (,$(filter-out %64,$(DEB_HOST_ARCH)))\nB = --w64\nendif\nb:\n\t./configure $(A) $(B)\n", []string{"--rv", "--w64"}},
		{"else ifeq chain", "ifeq ($(DEB_HOST_ARCH),amd64)\nF = --x86\nelse ifeq ($(DEB_HOST_ARCH),riscv64)\nF = --rv\nelse\nF = --other\nendif\nb:\n\t./configure $(F)\n", []string{"--rv"}},
		{"a recipe in another architecture's branch", "override_dh_auto_configure:\nifeq ($(DEB_HOST_ARCH),i386)\n\tdh_auto_configure -- --i386\nelse\n\tdh_auto_configure -- --other\nendif\n", []string{"--other"}},
		{"nested in an unknown conditional", "ifneq (,$(filter nocheck,$(DEB_BUILD_OPTIONS)))\nifeq ($(DEB_HOST_ARCH),armhf)\nA = --arm\nendif\nB = --notest\nendif\nb:\n\t./configure $(A) $(B)\n", []string{"--notest"}},
		{"an unknown condition reads both branches", "ifdef FOO\nA = --a\nelse\nB = --b\nendif\nb:\n\t./configure $(A) $(B)\n", []string{"--a", "--b"}},
		{"self reference ends", "A = $(A) --enable-a\nb:\n\t./configure $(A)\n", []string{"--enable-a"}},
	}
	for _, c := range cases {
		got := ConfigureSwitches(c.rules)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEnablingSwitches(t *testing.T) {
	in := []string{"--enable-a", "--enable-b=no", "--disable-c", "--with-d", "--without-e", "--with-f=off", "--with-pic",
		"-DX=ON", "-DY=OFF", "-DCMAKE_BUILD_TYPE=None", "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", "-Dz=enabled", "-Dw=false", "-DV", "--prefix=/usr"}
	want := []string{"--enable-a", "--with-d", "-DX=ON", "-Dz=enabled"}
	if got := EnablingSwitches(in); !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

func FuzzConfigureSwitches(f *testing.F) {
	for _, n := range []string{"oniguruma.rules", "libjpeg-turbo.rules", "zstd.rules", "mpg123-cdbs.rules", "highway.rules"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "rules", n)); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("A = $(B)\nB = $(A)\nb:\n\t./configure $(A) --enable-x\n")
	f.Add("ifeq ($(DEB_HOST_ARCH),armhf)\nX = -DA=ON\nelse ifneq (,$(filter riscv64,$(DEB_HOST_ARCH)))\nX = -DB=OFF\nendif\nb:\n\tdh_auto_configure -- $(X)\n")
	f.Fuzz(func(t *testing.T, rules string) {
		got := ConfigureSwitches(rules)
		if len(got) > maxSwitches {
			t.Fatalf("%d switches", len(got))
		}
		seen := map[string]bool{}
		for _, s := range got {
			if seen[s] || len(s) > maxSwitchLen || !switchWord.MatchString(s) || strings.ContainsAny(s, "$`;|&\n") {
				t.Fatalf("bad switch %q", s)
			}
			seen[s] = true
		}
		EnablingSwitches(got)
	})
}

// packagingTarball builds a debian.tar.gz with the given members.
func packagingTarball(t *testing.T, members map[string]string, order []string, typ byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range order {
		h := &tar.Header{Name: n, Mode: 0o644, Size: int64(len(members[n])), Typeflag: tar.TypeReg}
		if n == "debian/rules" && typ != tar.TypeReg {
			h.Typeflag, h.Size, h.Linkname = typ, 0, "/etc/passwd"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte(members[n]))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestRulesFromPackaging(t *testing.T) {
	rules := "#!/usr/bin/make -f\n%:\n\tdh $@\n"
	members := map[string]string{"debian/control": "Source: x\n", "debian/patches/series": "", "debian/rules": rules}
	order := []string{"debian/control", "debian/patches/series", "debian/rules"}
	ctx := context.Background()
	got, err := RulesFromPackaging(ctx, bytes.NewReader(packagingTarball(t, members, order, tar.TypeReg)), "x_1.0-1.debian.tar.gz")
	if err != nil || got != rules {
		t.Fatalf("got %q, %v", got, err)
	}
	// ./debian/rules is the same member.
	members2 := map[string]string{"./debian/rules": rules}
	if got, err := RulesFromPackaging(ctx, bytes.NewReader(packagingTarball(t, members2, []string{"./debian/rules"}, tar.TypeReg)), "x.debian.tar.gz"); err != nil || got != rules {
		t.Errorf("./debian/rules: %q, %v", got, err)
	}
	// A link named debian/rules is not followed.
	if _, err := RulesFromPackaging(ctx, bytes.NewReader(packagingTarball(t, members, order, tar.TypeSymlink)), "x.debian.tar.gz"); !errors.Is(err, ErrNoPackaging) {
		t.Errorf("symlink: %v, want ErrNoPackaging", err)
	}
	// No debian/rules.
	if _, err := RulesFromPackaging(ctx, bytes.NewReader(packagingTarball(t, members, order[:2], tar.TypeReg)), "x.debian.tar.gz"); !errors.Is(err, ErrNoPackaging) {
		t.Errorf("missing: %v, want ErrNoPackaging", err)
	}
	// Not a tarball of that compression.
	if _, err := RulesFromPackaging(ctx, strings.NewReader("junk"), "x.debian.tar.xz"); err == nil {
		t.Error("junk read")
	}
	// A very large debian/rules is cut at the parser's bound.
	big := map[string]string{"debian/rules": strings.Repeat("a", maxRulesBytes+100)}
	if got, err := RulesFromPackaging(ctx, bytes.NewReader(packagingTarball(t, big, []string{"debian/rules"}, tar.TypeReg)), "x.debian.tar.gz"); err != nil || len(got) != maxRulesBytes {
		t.Errorf("big: %d bytes, %v", len(got), err)
	}
}

func TestSourcePackaging(t *testing.T) {
	s := Source{Files: []File{{Name: "x_1.0-1.dsc"}, {Name: "x_1.0.orig.tar.gz"}, {Name: "x_1.0-1.debian.tar.xz", Size: 3}}}
	if f, ok := s.Packaging(); !ok || f.Name != "x_1.0-1.debian.tar.xz" {
		t.Errorf("packaging %v %v", f, ok)
	}
	if _, ok := (Source{Files: []File{{Name: "x_1.0-1.diff.gz"}}}).Packaging(); ok {
		t.Error("a 1.0 diff is no packaging tarball")
	}
}

func FuzzRulesFromPackaging(f *testing.F) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	rules := "override_dh_auto_configure:\n\tdh_auto_configure -- --enable-x\n"
	tw.WriteHeader(&tar.Header{Name: "debian/rules", Mode: 0o755, Size: int64(len(rules)), Typeflag: tar.TypeReg})
	tw.Write([]byte(rules))
	tw.Close()
	zw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("not a tarball"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := RulesFromPackaging(context.Background(), bytes.NewReader(data), "x_1-1.debian.tar.gz")
		if err == nil && len(text) > maxRulesBytes {
			t.Fatalf("%d bytes read", len(text))
		}
		ConfigureSwitches(text)
	})
}
