package debsrc

import (
	"archive/tar"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const gcc14Patch = `Description: declare what GCC 14 no longer guesses
Author: Debian
---
--- a/src/main.c
+++ b/src/main.c
@@ -1,2 +1,3 @@
+#include <string.h>
 int main(void)
 {
`

func TestParseSeries(t *testing.T) {
	tests := []struct {
		name, text string
		want       []SeriesEntry
		wantErr    string
	}{
		{"plain", "01-gcc14.patch\n02-riscv.patch\n", []SeriesEntry{{"01-gcc14.patch", 1}, {"02-riscv.patch", 1}}, ""},
		{"comments and levels", "# Debian's fixes\n\nfix.diff -p0\nsub/dir/x.patch   # upstream 4f2a\n#disabled.patch\n",
			[]SeriesEntry{{"fix.diff", 0}, {"sub/dir/x.patch", 1}}, ""},
		{"hash inside a name", "c#-names.patch\n", []SeriesEntry{{"c#-names.patch", 1}}, ""},
		{"climbs out", "../../rules\n", nil, "not a name inside"},
		{"absolute", "/etc/passwd\n", nil, "not a name inside"},
		{"unknown option", "x.patch -R\n", nil, "not -pN"},
		{"bad level", "x.patch -pq\n", nil, "not -pN"},
		{"empty", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSeries(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("series (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadPackagingPatches(t *testing.T) {
	rules := "#!/usr/bin/make -f\n%:\n\tdh $@\n"
	tests := []struct {
		name    string
		members map[string]string
		order   []string
		want    []Patch
		wantErr string
	}{
		{"series order, not the tarball's", map[string]string{
			"debian/rules": rules, "debian/patches/series": "b.patch\na.patch -p0\n",
			"debian/patches/a.patch": "A", "debian/patches/b.patch": gcc14Patch},
			[]string{"debian/patches/a.patch", "debian/patches/b.patch", "debian/patches/series", "debian/rules"},
			[]Patch{{"b.patch", 1, gcc14Patch}, {"a.patch", 0, "A"}}, ""},
		{"the vendor series first", map[string]string{
			"debian/rules": rules, "debian/patches/series": "a.patch\n", "debian/patches/debian.series": "b.patch\n",
			"debian/patches/a.patch": "A", "debian/patches/b.patch": "B"},
			[]string{"debian/rules", "debian/patches/series", "debian/patches/debian.series", "debian/patches/a.patch", "debian/patches/b.patch"},
			[]Patch{{"b.patch", 1, "B"}}, ""},
		{"no series", map[string]string{"debian/rules": rules, "debian/patches/a.patch": "A"},
			[]string{"debian/rules", "debian/patches/a.patch"}, nil, ""},
		{"a named patch missing", map[string]string{"debian/rules": rules, "debian/patches/series": "gone.patch\n"},
			[]string{"debian/rules", "debian/patches/series"}, nil, "does not hold"},
		{"a series out of the directory", map[string]string{"debian/rules": rules, "debian/patches/series": "../rules\n"},
			[]string{"debian/rules", "debian/patches/series"}, nil, "not a name inside"},
		{"a patch too large", map[string]string{"debian/rules": rules, "debian/patches/series": "big.patch\n",
			"debian/patches/big.patch": strings.Repeat("+", maxPatchBytes+1)},
			[]string{"debian/rules", "debian/patches/series", "debian/patches/big.patch"}, nil, "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ReadPackaging(context.Background(), bytes.NewReader(packagingTarball(t, tt.members, tt.order, tar.TypeReg)), "x_1-1.debian.tar.gz")
			if err != nil {
				t.Fatal(err)
			}
			if p.Rules != rules {
				t.Errorf("rules %q", p.Rules)
			}
			if tt.wantErr != "" {
				if p.PatchesErr == nil || !strings.Contains(p.PatchesErr.Error(), tt.wantErr) || len(p.Patches) > 0 {
					t.Fatalf("patches %v, err %v, want none and an error saying %q", p.Patches, p.PatchesErr, tt.wantErr)
				}
				return
			}
			if p.PatchesErr != nil {
				t.Fatal(p.PatchesErr)
			}
			if diff := cmp.Diff(tt.want, p.Patches); diff != "" {
				t.Errorf("patches (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseSeries(f *testing.F) {
	f.Add("01.patch\n# c\nx.diff -p0\n")
	f.Add("../x\n")
	f.Add("a -p1 -p2 # t\n\t\n")
	f.Fuzz(func(t *testing.T, text string) {
		entries, err := ParseSeries(text)
		if err != nil {
			return
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name, "/") || e.Name == ".." || strings.HasPrefix(e.Name, "../") || e.Level < 0 || e.Level > 9 {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}
