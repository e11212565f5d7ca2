package debsrc

import (
	"slices"
	"strings"
	"testing"
)

// The Build-Depends fields of real trixie Sources stanzas (spdlog 1:1.15.2+ds-2, flac
// 1.5.0+ds-2, dav1d 1.5.1-1, yaml-cpp 0.8.0+dfsg-7 and an excerpt of systemd 257.9-1's).
const (
	spdlogBuildDeps  = `debhelper-compat (= 13), cmake, ninja-build, pkgconf, libfmt-dev (>= 10), pkg-kde-tools, libsystemd-dev [linux-any] <!nocheck>, catch2 (>= 3.0.0) <!nocheck>`
	flacBuildDeps    = `dpkg-dev (>= 1.22.5), debhelper-compat (= 13), libogg-dev, pandoc [!alpha !hppa !hurd-i386 !i386 !loong64 !m68k !powerpc !sh4 !x32]`
	dav1dBuildDeps   = `debhelper-compat (= 13), meson, ninja-build, nasm [any-amd64 any-i386]`
	yamlcppBuildDeps = `debhelper-compat (= 13), cmake, googletest (>= 1.10.0), libgmock-dev (>= 1.10.0), libgtest-dev (>= 1.10.0)`
	systemdBuildDeps = `debhelper-compat (= 13), debhelper (>= 13.11.6), dh-exec, dh-sequence-dlopenlibdeps <!stage1>, pkgconf, xsltproc <!nodoc>, meson (>= 0.60.0), rsync | meson (>= 1.3.0~), clang:native [amd64 arm64 ppc64el riscv64 s390x] <!pkg.systemd.nobpf !stage1>, bpftool:native [amd64 arm64 ppc64el riscv64 s390x] <!pkg.systemd.nobpf !stage1 !pkg.systemd.upstream>, linux-tools-generic <pkg.systemd.upstream> | bpftool <pkg.systemd.upstream>, libdbus-1-dev (>= 1.3.2) <!nocheck> <!noinsttest>, zlib1g-dev <!stage1> | libz-dev <!stage1>, libseccomp-dev (>= 2.3.1) [amd64 arm64 armel armhf i386 hppa loong64 mips mipsel mips64 mips64el x32 powerpc ppc64 ppc64el riscv64 s390x], libxen-dev [amd64 arm64] <!stage1>, python3-pefile:native <!stage1 !nocheck> <!stage1 !noinsttest>, tzdata-legacy <!nocheck> | tzdata (<< 2025a-2) <!nocheck>, libfoo-dev:amd64`
)

func TestBuildDepends(t *testing.T) {
	cases := []struct {
		name, fields, arch string
		want               []string
	}{
		{"spdlog", spdlogBuildDeps, "riscv64", []string{"cmake", "ninja-build", "pkgconf", "libfmt-dev", "libsystemd-dev", "catch2"}},
		{"flac on riscv64", flacBuildDeps, "riscv64", []string{"libogg-dev", "pandoc"}},
		{"flac on i386", flacBuildDeps, "i386", []string{"libogg-dev"}},
		{"dav1d on riscv64", dav1dBuildDeps, "riscv64", []string{"meson", "ninja-build"}},
		{"dav1d on amd64", dav1dBuildDeps, "amd64", []string{"meson", "ninja-build", "nasm"}},
		{"yaml-cpp", yamlcppBuildDeps, "riscv64", []string{"cmake", "googletest", "libgmock-dev", "libgtest-dev"}},
		{"systemd excerpt", systemdBuildDeps, "riscv64", []string{"pkgconf", "xsltproc", "meson", "rsync", "clang", "bpftool",
			"libdbus-1-dev", "zlib1g-dev", "libseccomp-dev", "python3-pefile", "tzdata-legacy"}},
		{"Build-Depends-Arch joined", joinFields("debhelper-compat (= 13), cmake", "\n libz-dev,\n libfmt-dev"), "riscv64", []string{"cmake", "libz-dev", "libfmt-dev"}},
		{"empty", "", "riscv64", nil},
	}
	for _, c := range cases {
		if got := BuildDepends(c.fields, c.arch); !slices.Equal(got, c.want) {
			t.Errorf("%s: BuildDepends = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestBuildDependsHostile: text that is no relation yields no name, and nothing that
// is not a Debian package name (a shell word, an option, a path) comes out.
func TestBuildDependsHostile(t *testing.T) {
	cases := []string{
		"foo; rm -rf /", "$(curl x)", "-y", "--allow-unauthenticated", "../etc", "foo bar", "foo (>= 1", "foo [riscv64",
		"foo <!nocheck", "foo [riscv64 !amd64]", "foo [] ", "foo <>", "Foo", "a", "foo:", "foo:any:any", "foo\x00bar", "foo >= 1",
		"foo [riscv64] extra", "foo <!nocheck> extra",
	}
	for _, c := range cases {
		if got := BuildDepends(c, "riscv64"); len(got) != 0 {
			t.Errorf("BuildDepends(%q) = %q, want nothing", c, got)
		}
	}
	long := strings.Repeat("libx-dev, ", 100000)
	if got := BuildDepends(long, "riscv64"); len(got) != 1 {
		t.Errorf("a long repeated field gave %d names", len(got))
	}
}

func FuzzBuildDepends(f *testing.F) {
	for _, s := range []string{spdlogBuildDeps, flacBuildDeps, dav1dBuildDeps, systemdBuildDeps, "a | b [x] <y> <!z>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fields string) {
		got := BuildDepends(fields, "riscv64")
		if len(got) > maxBuildDepends {
			t.Fatalf("%d names, more than %d", len(got), maxBuildDepends)
		}
		seen := map[string]bool{}
		for _, n := range got {
			if !nameRE.MatchString(n) || strings.HasSuffix(n, "-") || seen[n] || packagingTools[n] || strings.HasPrefix(n, "dh-") {
				t.Fatalf("BuildDepends(%q) returned %q", fields, n)
			}
			seen[n] = true
		}
	})
}
