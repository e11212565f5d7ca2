package deb822

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `Package: zlib
Binary: zlib1g, zlib1g-dev,
 lib32z1
Version: 1:1.3.dfsg+really1.3.1-1
# a comment line
Checksums-Sha256:
 aa 12 zlib_1.3.orig.tar.gz
 bb 34 zlib_1.3-1.debian.tar.xz
Description: compression
 first
 .
 second

no colon here
 stray continuation
package: hello
VERSION: 2.10-3



Package: last
`

func TestRead(t *testing.T) {
	var got []Paragraph
	if err := Read(strings.NewReader(sample), func(p Paragraph) bool { got = append(got, p); return true }); err != nil {
		t.Fatal(err)
	}
	want := []Paragraph{
		{"package": "zlib", "binary": "zlib1g, zlib1g-dev,\nlib32z1", "version": "1:1.3.dfsg+really1.3.1-1",
			"checksums-sha256": "\naa 12 zlib_1.3.orig.tar.gz\nbb 34 zlib_1.3-1.debian.tar.xz", "description": "compression\nfirst\n\nsecond"},
		{"package": "hello", "version": "2.10-3"},
		{"package": "last"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paragraphs (-want +got):\n%s", diff)
	}
	if got[0].Get("Checksums-SHA256") == "" || got[1].Get("Version") != "2.10-3" {
		t.Error("Get is not case-insensitive")
	}
	if diff := cmp.Diff([]string{"aa 12 zlib_1.3.orig.tar.gz", "bb 34 zlib_1.3-1.debian.tar.xz"}, got[0].Lines("Checksums-Sha256")); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
	if got[1].Lines("Version") != nil {
		t.Error("a one-line field has continuation lines")
	}
}

func TestReadKeepAndStop(t *testing.T) {
	var got []Paragraph
	err := Read(strings.NewReader(sample), func(p Paragraph) bool { got = append(got, p); return len(got) < 2 }, "Package", "binary")
	if err != nil {
		t.Fatal(err)
	}
	want := []Paragraph{{"package": "zlib", "binary": "zlib1g, zlib1g-dev,\nlib32z1"}, {"package": "hello"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paragraphs (-want +got):\n%s", diff)
	}
}

func TestReadLineTooLong(t *testing.T) {
	long := "Package: x\nDepends: " + strings.Repeat("a", MaxLine+1) + "\n"
	if err := Read(strings.NewReader(long), func(Paragraph) bool { return true }); err == nil {
		t.Fatal("a line longer than MaxLine was read")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(sample)
	f.Add("A:\n :\n\n\t.\nB: c")
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		err := Read(strings.NewReader(s), func(p Paragraph) bool {
			n++
			if len(p) == 0 {
				t.Fatal("an empty paragraph was delivered")
			}
			for k := range p {
				if k != strings.ToLower(k) || k == "" || strings.ContainsAny(k, "\n") {
					t.Fatalf("field name %q", k)
				}
			}
			return true
		})
		if err != nil && len(s) < MaxLine {
			t.Fatalf("Read(%q): %v", s, err)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "Package: p%d\nVersion: 1.%d-1\nMaintainer: Someone <s@example.org>\nBuild-Depends: debhelper-compat (= 13), zlib1g-dev, libssl-dev\nChecksums-Sha256:\n aa 1 p%d.orig.tar.gz\n bb 2 p%d.debian.tar.xz\nDirectory: pool/main/p/p%d\n\n", i, i, i, i, i)
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	for _, keep := range [][]string{nil, {"Package", "Version"}} {
		b.Run(fmt.Sprintf("keep=%d", len(keep)), func(b *testing.B) {
			for range b.N {
				if err := Read(strings.NewReader(data), func(Paragraph) bool { return true }, keep...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
