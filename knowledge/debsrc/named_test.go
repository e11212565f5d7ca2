package debsrc

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestOrigNamed(t *testing.T) {
	for in, want := range map[string][2]string{
		"/cache/zlib_1.3.dfsg+really1.3.1.orig.tar.gz":          {"zlib", "1.3.dfsg+really1.3.1"},
		"https://mirror/pool/main/l/lz4/lz4_1.10.0.orig.tar.gz": {"lz4", "1.10.0"},
		"/src/zlib-1.3.1.tar.gz":                                {"", ""},
		"/src/zlib":                                             {"", ""},
	} {
		n, v := OrigNamed(in)
		if n != want[0] || v != want[1] {
			t.Errorf("OrigNamed(%q) = %q, %q, want %q", in, n, v, want)
		}
	}
}

func TestUpstreamNamed(t *testing.T) {
	for in, want := range map[string][2]string{
		"/src/zlib-1.3.1.tar.gz":                     {"zlib", "1.3.1"},
		"https://host/dl/libjpeg-turbo-3.0.1.tar.xz": {"libjpeg-turbo", "3.0.1"},
		"/work/onig-6.9.9/":                          {"onig", "6.9.9"},
		"/src/LZ4-1.10.0.tgz":                        {"lz4", "1.10.0"},
		"/src/zlib":                                  {"", ""},
		"/src/v1.2.tar.gz":                           {"", ""},
		"/src/foo-master.tar.gz":                     {"", ""},
		"local model server":                         {"", ""},
	} {
		n, v := UpstreamNamed(in)
		if n != want[0] || v != want[1] {
			t.Errorf("UpstreamNamed(%q) = %q, %q, want %q", in, n, v, want)
		}
	}
}

// TestCounterpartOf: the origin wins, then a Debian .orig tarball's name, then an
// upstream release's; anything else has no counterpart.
func TestCounterpartOf(t *testing.T) {
	origin := &atesor.DistroSource{Distro: "debian", Package: "spdlog", Version: "1:1.15.2+ds-2", Suite: "trixie"}
	cases := []struct {
		source string
		origin *atesor.DistroSource
		want   Counterpart
		ok     bool
	}{
		{"/dl/debian/pool/main/s/spdlog/spdlog_1.15.2+ds.orig.tar.xz", origin, Counterpart{Package: "spdlog", Version: "1.15.2+ds", Suite: "trixie"}, true},
		{"/cache/zlib_1.3.1.orig.tar.gz", nil, Counterpart{Package: "zlib", Version: "1.3.1"}, true},
		{"/src/zlib-1.3.1.tar.gz", nil, Counterpart{Package: "zlib", Version: "1.3.1", ByName: true}, true},
		{"/src/zlib-1.3.1.tar.gz", &atesor.DistroSource{Distro: "alpine", Package: "zlib"}, Counterpart{Package: "zlib", Version: "1.3.1", ByName: true}, true},
		{"/src/zlib", nil, Counterpart{}, false},
	}
	for _, c := range cases {
		got, ok := CounterpartOf(c.source, c.origin)
		if got != c.want || ok != c.ok {
			t.Errorf("CounterpartOf(%q) = %+v, %v, want %+v, %v", c.source, got, ok, c.want, c.ok)
		}
	}
}
