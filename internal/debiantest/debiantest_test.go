package debiantest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sources = `Package: zlib
Binary: zlib1g
Files:
 0123 42 zlib_1.3.orig.tar.gz
Checksums-Sha256:
 aaaa 42 zlib_1.3.orig.tar.gz
 bbbb 7 zlib_1.3-1.debian.tar.xz
Homepage: https://zlib.invalid
Directory: pool/main/z/zlib

Package: other
Checksums-Sha256:
 cccc 42 zlib_1.3.orig.tar.gz
Directory: pool/main/o/other

Package: lz4
Checksums-Sha256:
 dddd 9 lz4_1.10.orig.tar.gz
`

func TestSourceEntry(t *testing.T) {
	tests := []struct {
		pkg, file, sha, dir string
		wantErr             bool
	}{
		{"zlib", "zlib_1.3.orig.tar.gz", "aaaa", "pool/main/z/zlib", false},
		{"zlib", "zlib_1.3-1.debian.tar.xz", "bbbb", "pool/main/z/zlib", false},
		{"other", "zlib_1.3.orig.tar.gz", "cccc", "pool/main/o/other", false},
		{"lz4", "lz4_1.10.orig.tar.gz", "dddd", "pool/main/l/lz4", false}, // no Directory field
		{"zlib", "0123", "", "", true},                                    // a Files entry is not a checksum
		{"lz4", "zlib_1.3.orig.tar.gz", "", "", true},
		{"", "zlib_1.3.orig.tar.gz", "", "", true},
	}
	for _, tt := range tests {
		sha, dir, err := SourceEntry(strings.NewReader(sources), tt.pkg, tt.file)
		if sha != tt.sha || dir != tt.dir || (err != nil) != tt.wantErr {
			t.Errorf("SourceEntry(%q, %q) = %q, %q, %v; want %q, %q, error %v", tt.pkg, tt.file, sha, dir, err, tt.sha, tt.dir, tt.wantErr)
		}
	}
}

func TestPackageNames(t *testing.T) {
	index := "Package: libyaml-dev\nProvides: libyaml-0-dev (= 1), foo\nVersion: 1\n\nPackage: zlib1g-dev \nProvides: libz-dev\n"
	names, provided, err := PackageNames(strings.NewReader(index))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]bool{"libyaml-dev": true, "zlib1g-dev": true}, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"libyaml-0-dev": true, "foo": true, "libz-dev": true}, provided); d != "" {
		t.Errorf("provided (-want +got):\n%s", d)
	}
}

// FuzzIndexes checks that any index text parses without a panic.
func FuzzIndexes(f *testing.F) {
	f.Add(sources, "zlib", "zlib_1.3.orig.tar.gz")
	f.Add("Package: a\nProvides: b, c (= 1)\n", "a", "b")
	f.Fuzz(func(t *testing.T, index, pkg, file string) {
		if sha, dir, err := SourceEntry(strings.NewReader(index), pkg, file); err == nil && (sha == "" || dir == "") {
			t.Errorf("SourceEntry found %q in %q", sha, dir)
		}
		if _, _, err := PackageNames(strings.NewReader(index)); err != nil && len(index) < 1<<20 {
			t.Error(err)
		}
	})
}
