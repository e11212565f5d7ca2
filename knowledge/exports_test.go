package knowledge_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// auxOutput is what GCC 14 wrote for a header with a prototype, an old-style
// declaration, a static inline definition, a static declaration, a function taking a
// callback, data, and a macro-renamed function.
const auxOutput = `/* compiled from: . */
/* t.h:3:NC */ extern long int vecsum_add (const long int *, size_t);
/* t.h:4:OC */ extern int old (/* ??? */);
/* t.h:5:NF */ static int helper (int x); /* (x) int x; */
/* t.h:6:NC */ static int hidden (void);
/* t.h:8:NC */ extern int with_cb (cb, int (*) (void));
/* t.h:11:NC */ extern int real_name (void);
/* t.h:12:NC */ extern int (*getfn (int)) (void);
/* t.h:13:NF */ extern int defined_here (void);
/* /usr/include/stdio.h:356:NC */ extern int printf (const char *, ...);
`

func TestParseAuxInfo(t *testing.T) {
	got := knowledge.ParseAuxInfo(auxOutput)
	want := []knowledge.Declaration{
		{File: "t.h", Line: 3, Name: "vecsum_add"},
		{File: "t.h", Line: 4, Name: "old"},
		{File: "t.h", Line: 8, Name: "with_cb"},
		{File: "t.h", Line: 11, Name: "real_name"},
		{File: "t.h", Line: 12, Name: "getfn"},
		{File: "/usr/include/stdio.h", Line: 356, Name: "printf"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
}

// zlibSymbols is the head of Debian's zlib1g symbols file, with entries of each kind
// the format has.
const zlibSymbols = `libz.so.1 zlib1g #MINVER#
| zlib1g-alt #MINVER#
* Build-Depends-Package: zlib1g-dev
 ZLIB_1.2.0@ZLIB_1.2.0 1:1.2.0
 adler32@Base 1:1.1.4
 adler32_combine64@ZLIB_1.2.3.3 1:1.2.3.3
 (arch=amd64 i386)x86_only@Base 1:1.3
 (optional|arch-bits=32)bits32@Base 1:1.3
 (c++)"ns::f(int)@Base" 1.0
 (regex)"^gz.*@Base$" 1.0
# a comment
libother.so.2 libother2 #MINVER#
 other_fn@Base 2.0
`

func TestParseDebianSymbols(t *testing.T) {
	got := knowledge.ParseDebianSymbols(zlibSymbols)
	want := []knowledge.DistLibrary{
		{Soname: "libz.so.1", Package: "zlib1g", Symbols: []knowledge.DistSymbol{
			{Name: "ZLIB_1.2.0"}, {Name: "adler32"}, {Name: "adler32_combine64"},
			{Name: "x86_only", Excused: true}, {Name: "bits32", Excused: true},
			{Name: "ns::f(int)@Base", Pattern: true}, {Name: "^gz.*@Base$", Pattern: true},
		}},
		{Soname: "libother.so.2", Package: "libother2", Symbols: []knowledge.DistSymbol{{Name: "other_fn"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("symbols (-want +got):\n%s", diff)
	}
}

func TestBinariesOfSource(t *testing.T) {
	index := `Package: zlib1g
Source: zlib (1:1.3.dfsg+really1.3.1-1)
Version: 1:1.3.dfsg+really1.3.1-1+b1
Architecture: riscv64
Description: compression library
 a continuation line: with a colon
Filename: pool/main/z/zlib/zlib1g_1.3.dfsg+really1.3.1-1+b1_riscv64.deb
Size: 88104
SHA256: 3b8c0e7a

Package: zlib
Version: 9.9
Architecture: riscv64

Package: zlib1g-dev
Source: zlib
Version: 1:1.3.dfsg+really1.3.1-1+b1
Architecture: riscv64

Package: unrelated
Source: zlibx
Version: 1.0
`
	got, err := knowledge.BinariesOfSource(strings.NewReader(index), "zlib")
	if err != nil {
		t.Fatal(err)
	}
	want := []knowledge.BinaryPackage{
		{Package: "zlib1g", Version: "1:1.3.dfsg+really1.3.1-1+b1", Source: "zlib", SourceVersion: "1:1.3.dfsg+really1.3.1-1", Architecture: "riscv64",
			Filename: "pool/main/z/zlib/zlib1g_1.3.dfsg+really1.3.1-1+b1_riscv64.deb", Size: 88104, SHA256: "3b8c0e7a"},
		{Package: "zlib", Version: "9.9", Source: "zlib", SourceVersion: "9.9", Architecture: "riscv64"},
		{Package: "zlib1g-dev", Version: "1:1.3.dfsg+really1.3.1-1+b1", Source: "zlib", SourceVersion: "1:1.3.dfsg+really1.3.1-1+b1", Architecture: "riscv64"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("binaries (-want +got):\n%s", diff)
	}
}

func TestUpstreamVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1:1.3.dfsg+really1.3.1-1+b1": "1.3.dfsg+really1.3.1",
		"1.10.0-2":                    "1.10.0",
		"2.0":                         "2.0",
		"1:2.0-rc1-3":                 "2.0-rc1",
	} {
		if got := knowledge.UpstreamVersion(in); got != want {
			t.Errorf("UpstreamVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseAuxInfo(f *testing.F) {
	f.Add(auxOutput)
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range knowledge.ParseAuxInfo(s) {
			if d.Name == "" || strings.ContainsAny(d.Name, " (") {
				t.Fatalf("bad name %q", d.Name)
			}
		}
	})
}

func FuzzParseDebianSymbols(f *testing.F) {
	f.Add(zlibSymbols)
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range knowledge.ParseDebianSymbols(s) {
			for _, sym := range l.Symbols {
				if sym.Name == "" {
					t.Fatal("empty symbol name")
				}
			}
		}
	})
}

func FuzzBinariesOfSource(f *testing.F) {
	f.Add("Package: a\nSource: b (1)\nVersion: 2\n\n", "b")
	f.Fuzz(func(t *testing.T, s, src string) {
		_, _ = knowledge.BinariesOfSource(strings.NewReader(s), src)
	})
}
