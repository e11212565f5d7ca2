package crates

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func excerpt(t testing.TB) *Index {
	t.Helper()
	f, err := os.Open("testdata/Packages")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ix, err := ParseIndex(f)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestParseIndex(t *testing.T) {
	ix := excerpt(t)
	tests := []struct {
		crate string
		want  []string
	}{
		{"itoa", []string{"1.0.14"}},
		{"syn", []string{"2.0.98", "1.0.109"}},
		{"clap", []string{"4.5.23", "2.34.0"}},
		{"unicode-width", []string{"0.2.0", "0.1.14"}},
		{"unicode_width", []string{"0.2.0", "0.1.14"}},
		{"md-5", []string{"0.10.6"}},
		{"rand_core", []string{"0.6.4"}},
		// Version 0.4.0~really0.2.4+0.4.9-1 installs crate version 0.2.4.
		{"oxrdf", []string{"0.2.4"}},
		// Entries without whole-version names: the Version field says it.
		{"web-sys", []string{"0.3.64"}},
		{"mdbook", []string{"0.4.48"}},
		{"hickory-resolver", []string{"0.24.4"}},
		{"hello", nil},
		{"rustc", nil},
	}
	for _, tt := range tests {
		if got := ix.Versions(tt.crate); !slices.Equal(got, tt.want) {
			t.Errorf("Versions(%s) = %v, want %v", tt.crate, got, tt.want)
		}
	}
	e := ix.crates["rand-core"]["0.6.4"]
	if e == nil || e.pkg != "librust-rand-core-dev" || e.features["std"] != "librust-rand-core+std-dev" || e.features["default"] != "librust-rand-core-dev" {
		t.Errorf("rand-core 0.6.4 = %+v", e)
	}
	if e := ix.crates["web-sys"]["0.3.64"]; e == nil || e.pkg != "librust-web-sys-dev" || e.features["audiobuffer"] != "librust-web-sys-dev" {
		t.Errorf("web-sys 0.3.64 = %+v", e)
	}
	if e := ix.crates["hickory-resolver"]["0.24.4"]; e == nil || e.features["dns-over-https"] != "librust-hickory-resolver-dev" {
		t.Errorf("hickory-resolver 0.24.4 = %+v", e)
	}
	if e := ix.crates["syn"]["1.0.109"]; e == nil || e.pkg != "librust-syn-1-dev" || e.features["full"] != "librust-syn-1-dev" {
		t.Errorf("syn 1.0.109 = %+v", e)
	}
}

func TestRustc(t *testing.T) {
	if got := excerpt(t).Rustc(); got != "1.85.1" {
		t.Errorf("Rustc() = %q", got)
	}
	for _, tt := range []struct {
		need, have string
		want       bool
	}{
		{"1.82", "1.85.1", true}, {"1.85.1", "1.85.1", true}, {"1.86", "1.85.1", false}, {"1.85.2", "1.85", false}, {"2", "1.99.0", false},
	} {
		if got, err := RustVersionMet(tt.need, tt.have); err != nil || got != tt.want {
			t.Errorf("RustVersionMet(%q, %q) = %v, %v", tt.need, tt.have, got, err)
		}
	}
	if _, err := RustVersionMet("1.x", "1.85"); err == nil {
		t.Error("a bad rust-version compares")
	}
}

func TestParseIndexOdd(t *testing.T) {
	text := `Package: librust-foo-dev
Version: 2:1.2.3+dfsg-1+b1

Package: librust-bar-dev
Provides: librust-bar-0.3.1-dev (= 0.3.1-2), librust-bar-0.3.1+serde-dev (= 0.3.1-2),
 librust-bar+std-dev, bogus, librust--dev, librust-bar-x.y.z-dev
Version: 0.3.1-2

Package: librust-orphan+feature-dev
Provides: librust-orphan-1.0.0+feature-dev (= 1.0.0-1)

Package: librust-a-1-dev
Provides: librust-a-1.0.0-dev
Package: not-a-separator-line

Package: librust-b-2-dev
Version: 2.5.1-1
Provides: librust-b-2+x-dev (= 2.5.1-1), librust-b-3+y-dev, librust-c+z-dev

Package: librust-md-5-dev
Version: 0.10.6-1
`
	ix, err := ParseIndex(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Versions("foo"); !slices.Equal(got, []string{"1.2.3"}) {
		t.Errorf("foo (no whole-version name, Version field) = %v", got)
	}
	if got := ix.Versions("bar"); !slices.Equal(got, []string{"0.3.1"}) || ix.crates["bar"]["0.3.1"].features["serde"] != "librust-bar-dev" {
		t.Errorf("bar = %v %+v", got, ix.crates["bar"])
	}
	// A series package without whole-version names: the crate is b, its 2 series
	// features are kept, another series' and another crate's are not.
	if e := ix.crates["b"]["2.5.1"]; e == nil || e.pkg != "librust-b-2-dev" || e.features["x"] == "" || e.features["y"] != "" || ix.crates["c"] != nil {
		t.Errorf("b = %+v, c = %+v", ix.crates["b"], ix.crates["c"])
	}
	if got := ix.Versions("md-5"); !slices.Equal(got, []string{"0.10.6"}) {
		t.Errorf("md-5 = %v", got)
	}
	// A feature package whose crate package the index lacks offers nothing.
	if got := ix.Versions("orphan"); len(got) != 0 {
		t.Errorf("orphan = %v", got)
	}
}

func TestCrateVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1.0.14-1": "1.0.14", "0.8.5+dfsg-2": "0.8.5", "2:1.2.3-1+b1": "1.2.3", "0.8.5-1+b2": "0.8.5",
		"3.0.6~dfsg-1": "3.0.6", "1.0.0": "1.0.0", "25.01+dfsg-1~deb13u2": "25.01",
	} {
		if got := CrateVersion(in); got != want {
			t.Errorf("CrateVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseIndex(f *testing.F) {
	data, err := os.ReadFile("testdata/Packages")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:4096])
	f.Add([]byte("Package: librust-x-dev\nProvides: librust-x-1.2.3+a-dev (= 1), librust-x-1.2.3-dev\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := ParseIndex(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		for c := range ix.crates {
			vs := ix.Versions(c)
			for i := 1; i < len(vs); i++ {
				a, _ := ParseVersion(vs[i-1])
				b, _ := ParseVersion(vs[i])
				if a.Compare(b) <= 0 {
					t.Fatalf("%s: versions %v not highest first", c, vs)
				}
			}
		}
	})
}
