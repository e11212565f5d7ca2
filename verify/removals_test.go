package verify

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

func TestRemovalsAgainst(t *testing.T) {
	orig := []atesor.SourceFile{
		{Path: "CMakeLists.txt", Lines: 5, Sources: []string{"src/core.c", "src/simd.c"}},
		{Path: "Makefile", Lines: 9, Sources: []string{"gone.c", "main.c", "notafile.c"}},
		{Path: "gone.c", Lines: 30},
		{Path: "main.c", Lines: 12},
		{Path: "src/core.c", Lines: 40},
		{Path: "src/simd.c", Lines: 212},
		{Path: "src/trim.c", Lines: 100},
		{Path: "src/small.c", Lines: 4},
		{Path: "src/empty.c", Lines: 0},
	}
	now := []atesor.SourceFile{
		{Path: "CMakeLists.txt", Lines: 5, Sources: []string{"src/core.c"}},
		{Path: "Makefile", Lines: 9, Sources: []string{"main.c"}},
		{Path: "main.c", Lines: 12},
		{Path: "src/core.c", Lines: 21},
		{Path: "src/simd.c", Lines: 0},
		{Path: "src/trim.c", Lines: 49},
		{Path: "src/small.c", Lines: 1},
		{Path: "src/empty.c", Lines: 0},
	}
	got := removalsAgainst(orig, now)
	want := []atesor.Removal{
		{Kind: atesor.RemovalDropped, File: "src/simd.c", BuildFile: "CMakeLists.txt"},
		{Kind: atesor.RemovalDropped, File: "gone.c", BuildFile: "Makefile"},
		{Kind: atesor.RemovalDeleted, File: "gone.c", Lines: 30},
		{Kind: atesor.RemovalEmptied, File: "src/simd.c", Lines: 212},
		{Kind: atesor.RemovalCut, File: "src/trim.c", Lines: 100, LinesLeft: 49},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("removals (-want +got):\n%s", diff)
	}
	if s := got[3].String(); s != "emptied: src/simd.c (212 lines)" {
		t.Errorf("String() = %q", s)
	}
	if s := got[2].String(); s != "removed: gone.c (30 lines)" {
		t.Errorf("String() = %q", s)
	}
}

func TestMeasureCountsCodeNotBlankLines(t *testing.T) {
	f := measure("src/x.c", []byte("int a;\n\n   \n\tint b;\n"))
	if f.Lines != 2 {
		t.Errorf("lines = %d, want 2", f.Lines)
	}
	// sed -i 's/.*//' leaves only blank lines: emptied.
	if n := nonBlankLines([]byte("\n\n\n")); n != 0 {
		t.Errorf("blank file has %d lines", n)
	}
	b := measure("CMakeLists.txt", []byte("add_library(z src/a.c ./src/b.S)\n# src/a.c again\nset(X foo.h)\n"))
	if diff := cmp.Diff([]string{"src/a.c", "src/b.S"}, b.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}
