package debpkg_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/internal/debpkg"
)

var controlNames = []string{"symbols", "shlibs"}

// TestReadRealPackages reads two packages from Debian's archive: one with a symbols
// file, one without (its library is kept instead).
func TestReadRealPackages(t *testing.T) {
	tests := []struct {
		file        string
		wantControl []string
		wantLibs    []string
		symbolsHead string
	}{
		{file: "libinih1_59-1_riscv64.deb", wantControl: []string{"shlibs", "symbols"},
			wantLibs: []string{"usr/lib/riscv64-linux-gnu/libinih.so.58"}, symbolsHead: "libinih.so.1 libinih1 #MINVER#"},
		{file: "libmad0_0.15.1b-11+b1_riscv64.deb", wantControl: []string{"shlibs"},
			wantLibs: []string{"usr/lib/riscv64-linux-gnu/libmad.so.0.2.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("../../testdata/deb/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c, err := debpkg.Read(f, controlNames, debpkg.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range []string{"shlibs", "symbols"} {
				if _, ok := c.Control[n]; ok {
					names = append(names, n)
				}
			}
			if diff := cmp.Diff(tt.wantControl, names); diff != "" {
				t.Errorf("control files (-want +got):\n%s", diff)
			}
			var libs []string
			for _, l := range c.Libraries {
				libs = append(libs, l.Path)
				if !bytes.HasPrefix(l.Data, []byte("\x7fELF")) {
					t.Errorf("%s is not ELF", l.Path)
				}
			}
			if diff := cmp.Diff(tt.wantLibs, libs); diff != "" {
				t.Errorf("libraries (-want +got):\n%s", diff)
			}
			if tt.symbolsHead != "" && !strings.HasPrefix(string(c.Control["symbols"]), tt.symbolsHead) {
				t.Errorf("symbols starts %q", cutText(c.Control["symbols"]))
			}
		})
	}
}

func cutText(b []byte) string {
	if len(b) > 60 {
		b = b[:60]
	}
	return string(b)
}

type member struct {
	name string
	data []byte
}

func arFile(members ...member) []byte {
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	for _, m := range members {
		fmt.Fprintf(&b, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", m.name, "0", "0", "0", "100644", len(m.data))
		b.Write(m.data)
		if len(m.data)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

type entry struct {
	name string
	data string
	typ  byte
}

func tarball(t *testing.T, gz bool, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	var tw *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&b)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(&b)
	}
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: typ}
		if typ == tar.TypeReg {
			h.Size = int64(len(e.data))
		} else {
			h.Linkname = e.data
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.data)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestReadSynthetic covers the compressions and the choices of what is kept.
func TestReadSynthetic(t *testing.T) {
	elfLib := "\x7fELF fake library body"
	control := tarball(t, true, entry{name: "./control", data: "Package: libx1\n"}, entry{name: "./symbols", data: "libx.so.1 libx1 #MINVER#\n x@Base 1\n"},
		entry{name: "./sub/symbols", data: "not the package's"})
	data := tarball(t, false,
		entry{name: "./usr/lib/libx.so.1.0", data: elfLib},
		entry{name: "./usr/lib/libx.so.1", data: "libx.so.1.0", typ: tar.TypeSymlink},
		entry{name: "./usr/lib/libnotelf.so.2", data: "GROUP ( libc.so.6 )"},
		entry{name: "./usr/share/doc/libx1/readme.so", data: "\x7fELF but not a library name"},
		entry{name: "./usr/lib/libbig.so.3", data: "\x7fELF" + strings.Repeat("x", 200)},
	)
	deb := arFile(member{"debian-binary", []byte("2.0\n")}, member{"control.tar.gz", control}, member{"data.tar", data})
	c, err := debpkg.Read(bytes.NewReader(deb), []string{"symbols", "control"}, debpkg.Limits{Library: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.Control["symbols"]); !strings.HasPrefix(got, "libx.so.1 libx1") {
		t.Errorf("symbols = %q", got)
	}
	if _, ok := c.Control["control"]; !ok {
		t.Error("control file not kept")
	}
	want := []debpkg.File{{Path: "usr/lib/libx.so.1.0", Data: []byte(elfLib)}}
	if diff := cmp.Diff(want, c.Libraries); diff != "" {
		t.Errorf("libraries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"usr/lib/libbig.so.3"}, c.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestReadRejects(t *testing.T) {
	good := func(ctl, dat member) []byte { return arFile(member{"debian-binary", []byte("2.0\n")}, ctl, dat) }
	ctl := member{"control.tar", tarball(t, false, entry{name: "./control", data: "Package: x\n"})}
	dat := member{"data.tar", tarball(t, false)}
	real, err := os.ReadFile("../../testdata/deb/libmad0_0.15.1b-11+b1_riscv64.deb")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"not ar", []byte("PK\x03\x04 a zip"), debpkg.ErrNotDeb},
		{"empty archive", []byte("!<arch>\n"), debpkg.ErrNotDeb},
		{"no data member", arFile(member{"debian-binary", []byte("2.0\n")}, ctl), debpkg.ErrNotDeb},
		{"wrong first member", arFile(ctl, dat), debpkg.ErrNotDeb},
		{"zstd", good(ctl, member{"data.tar.zst", []byte("(\xb5/\xfd")}), debpkg.ErrUnsupportedCompression},
		{"truncated real package", real[:len(real)/2], nil},
		{"damaged header", append([]byte("!<arch>\ndebian-binary   0           0     0     100644  4         X\n"), "2.0\n"...), debpkg.ErrNotDeb},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := debpkg.Read(bytes.NewReader(tt.data), controlNames, debpkg.Limits{})
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestReadDecompressedLimit: a member that decompresses past the bound is an error.
func TestReadDecompressedLimit(t *testing.T) {
	dat := tarball(t, true, entry{name: "./usr/share/big", data: strings.Repeat("0", 1<<20)})
	deb := arFile(member{"debian-binary", []byte("2.0\n")}, member{"control.tar", tarball(t, false)}, member{"data.tar.gz", dat})
	if _, err := debpkg.Read(bytes.NewReader(deb), nil, debpkg.Limits{Decompressed: 64 << 10}); err == nil {
		t.Fatal("a member decompressing past the limit was read")
	}
	if _, err := debpkg.Read(bytes.NewReader(deb), nil, debpkg.Limits{}); err != nil {
		t.Fatalf("within the default limit: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"libinih1_59-1_riscv64.deb"} {
		if b, err := os.ReadFile("../../testdata/deb/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("!<arch>\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = debpkg.Read(bytes.NewReader(data), controlNames, debpkg.Limits{Decompressed: 16 << 20})
	})
}
