package verify

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debpkg"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

const (
	libmadDeb  = "libmad0_0.15.1b-11+b1_riscv64.deb"
	libinihDeb = "libinih1_59-1_riscv64.deb"
)

func readTestDeb(t *testing.T, file string) distDeb {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "deb", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := debpkg.Read(f, []string{"symbols"}, debpkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pkg, version, _ := strings.Cut(file, "_")
	return distDeb{Package: pkg, Version: version, Contents: c}
}

// builtLike is a port's defined symbols: the real library of a distribution package
// without the functions named in drop (what a hollow port lacks).
func builtLike(t *testing.T, d distDeb, drop ...string) func(string) bool {
	t.Helper()
	if len(d.Contents.Libraries) == 0 {
		t.Fatalf("%s has no library", d.Package)
	}
	syms, err := definedSymbols(bytes.NewReader(d.Contents.Libraries[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	return func(n string) bool {
		for _, x := range drop {
			if x == n {
				return false
			}
		}
		return syms.Defines(n)
	}
}

func definesFrom(t *testing.T, elfFile string) func(string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "elf", elfFile))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := definedSymbols(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return syms.Defines
}

// TestCompareDistribution compares ports with real Debian riscv64 packages: libmad0
// has no symbols file, so its libmad.so.0's dynamic functions decide; libinih1's symbols
// file decides for libinih.
func TestCompareDistribution(t *testing.T) {
	mad := readTestDeb(t, libmadDeb)
	inih := readTestDeb(t, libinihDeb)
	tests := []struct {
		name        string
		deb         distDeb
		arch        string
		sonames     []string
		defined     func(string) bool
		wantMissing []string
		wantSymbols int
		wantDist    string
		wantNote    string
	}{
		{name: "complete port, dynamic symbols", deb: mad, arch: "riscv64", sonames: []string{"libmad.so.0"},
			defined: builtLike(t, mad), wantSymbols: 39, wantDist: "libmad0 0.15.1b (Debian riscv64, dynamic symbols)"},
		{name: "hollow port, dynamic symbols", deb: mad, arch: "riscv64", sonames: []string{"libmad.so.0"},
			defined: builtLike(t, mad, "mad_synth_frame", "mad_layer_III"), wantSymbols: 39,
			wantMissing: []string{"mad_layer_III", "mad_synth_frame"}, wantDist: "libmad0 0.15.1b (Debian riscv64, dynamic symbols)"},
		{name: "another library entirely", deb: mad, arch: "riscv64", sonames: []string{"libmad.so.0"},
			defined: definesFrom(t, "libriscv64-add.so"), wantSymbols: 39, wantMissing: mustFunctions(t, mad),
			wantDist: "libmad0 0.15.1b (Debian riscv64, dynamic symbols)"},
		{name: "SONAME not built here", deb: mad, arch: "riscv64", sonames: []string{"libmad.so.1"},
			defined: builtLike(t, mad), wantNote: "libmad.so.0 (from libmad0) is not among the libraries built here"},
		{name: "symbols file", deb: inih, arch: "riscv64", sonames: []string{"libinih.so.1"},
			defined: definesFrom(t, "libriscv64-add.so"), wantSymbols: 15,
			wantMissing: []string{"ini_allow_bom", "ini_allow_inline_comments", "ini_allow_multiline", "ini_allow_no_value", "ini_allow_realloc",
				"ini_initial_alloc", "ini_inline_comment_prefixes", "ini_max_line", "ini_parse", "ini_parse_file", "ini_parse_stream",
				"ini_parse_string", "ini_start_comment_prefixes", "ini_stop_on_first_error", "ini_use_stack"},
			wantDist: "libinih1 59 (Debian riscv64, symbols file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ec := &atesor.ExportCheck{}
			sonames := map[string]bool{}
			for _, s := range tt.sonames {
				sonames[s] = true
			}
			version := knowledge.UpstreamVersion(tt.deb.Version)
			compareDistribution([]distDeb{tt.deb}, tt.arch, version, sonames, tt.defined, ec)
			if diff := cmp.Diff(tt.wantMissing, ec.MissingDistribution, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if ec.DistributionSymbols != tt.wantSymbols || ec.Distribution != tt.wantDist {
				t.Errorf("compared %d symbols of %q, want %d of %q", ec.DistributionSymbols, ec.Distribution, tt.wantSymbols, tt.wantDist)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(ec.Notes, "\n"), tt.wantNote) {
				t.Errorf("notes %q lack %q", ec.Notes, tt.wantNote)
			}
		})
	}
}

func mustFunctions(t *testing.T, d distDeb) []string {
	t.Helper()
	syms, err := definedSymbols(bytes.NewReader(d.Contents.Libraries[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	return syms.Functions
}

// TestCompareDistributionCountsEachSymbolOnce: two packages of one library (a t64
// transition's old and new name) count each symbol once.
func TestCompareDistributionCountsEachSymbolOnce(t *testing.T) {
	mad := readTestDeb(t, libmadDeb)
	again := mad
	again.Package = "libmad0t64"
	ec := &atesor.ExportCheck{}
	compareDistribution([]distDeb{mad, again}, "riscv64", "0.15.1b", map[string]bool{"libmad.so.0": true}, builtLike(t, mad, "mad_f_div"), ec)
	if ec.DistributionSymbols != 39 || strings.Join(ec.MissingDistribution, ",") != "mad_f_div" {
		t.Errorf("exports = %+v", ec)
	}
}

// TestCompareDistributionExcusesX86OnlyFunctions: the dynamic functions of an amd64
// build that name an x86 ISA extension are excused; the others count.
func TestCompareDistributionExcusesX86OnlyFunctions(t *testing.T) {
	for name, want := range map[string]bool{
		"crc32_sse42": true, "adler32_avx2": true, "xxh3_sse2_hash": true, "foo_x86_64_init": true, "memcpy_avx512bw": true,
		"ssse3_blend": true, "crc_pclmulqdq": true, "aes_ni_encrypt": true, "mad_synth_frame": false, "classic": false,
		"passed": false, "sse": true, "savx": false, "deflate_fma": true, "format": false,
	} {
		if got := x86Function.MatchString(name); got != want {
			t.Errorf("x86Function(%q) = %v, want %v", name, got, want)
		}
	}
	mad := readTestDeb(t, libmadDeb)
	// The same real library as an amd64 build would be compared: nothing is x86-only.
	ec := &atesor.ExportCheck{}
	compareDistribution([]distDeb{mad}, "amd64", "0.15.1b", map[string]bool{"libmad.so.0": true}, builtLike(t, mad, "mad_f_div"), ec)
	if ec.Excused != 0 || ec.DistributionSymbols != 39 || strings.Join(ec.MissingDistribution, ",") != "mad_f_div" ||
		ec.Distribution != "libmad0 0.15.1b (Debian amd64, dynamic symbols)" {
		t.Errorf("exports = %+v", ec)
	}
}

// fakeArchive serves the real test packages as one architecture's archive.
type fakeArchive struct {
	bins    []knowledge.BinaryPackage
	err     error
	fetched []string
}

func (a *fakeArchive) OfSource(_ context.Context, src string) ([]knowledge.BinaryPackage, error) {
	var out []knowledge.BinaryPackage
	for _, b := range a.bins {
		if b.Source == src {
			out = append(out, b)
		}
	}
	return out, a.err
}

func (a *fakeArchive) Fetch(_ context.Context, p knowledge.BinaryPackage) (string, error) {
	a.fetched = append(a.fetched, p.Package)
	return filepath.Join("..", "testdata", "deb", p.Filename), nil
}

// TestFetchDistributionFallsBackToAmd64: without a riscv64 build of the source's
// version, the amd64 build is compared, and a note says why.
func TestFetchDistributionFallsBackToAmd64(t *testing.T) {
	madBin := func(arch, version string) knowledge.BinaryPackage {
		return knowledge.BinaryPackage{Package: "libmad0", Version: version, Source: "libmad", SourceVersion: version,
			Architecture: arch, Filename: libmadDeb}
	}
	dev := knowledge.BinaryPackage{Package: "libmad0-dev", Version: "0.15.1b-11", Source: "libmad", SourceVersion: "0.15.1b-11", Architecture: "amd64"}
	lib32 := madBin("amd64", "0.15.1b-11")
	lib32.Package = "lib32mad0"
	tests := []struct {
		name     string
		archives map[string]*fakeArchive
		wantArch string
		wantNote string
		wantErr  string
	}{
		{name: "riscv64 build of the version", wantArch: "riscv64", archives: map[string]*fakeArchive{
			"riscv64": {bins: []knowledge.BinaryPackage{madBin("riscv64", "0.15.1b-11+b1")}},
			"amd64":   {bins: []knowledge.BinaryPackage{madBin("amd64", "0.15.1b-11")}}}},
		{name: "riscv64 lags behind", wantArch: "amd64", wantNote: "riscv64 packages of libmad are another version (libmad0 0.15.0-8)",
			archives: map[string]*fakeArchive{
				"riscv64": {bins: []knowledge.BinaryPackage{madBin("riscv64", "0.15.0-8")}},
				"amd64":   {bins: []knowledge.BinaryPackage{dev, lib32, madBin("amd64", "0.15.1b-11")}}}},
		{name: "no riscv64 build at all", wantArch: "amd64", wantNote: "no riscv64 library package built from libmad",
			archives: map[string]*fakeArchive{
				"riscv64": {},
				"amd64":   {bins: []knowledge.BinaryPackage{madBin("amd64", "0.15.1b-11")}}}},
		{name: "riscv64 index unreadable", wantArch: "amd64", wantNote: "riscv64: mirror down",
			archives: map[string]*fakeArchive{
				"riscv64": {err: errors.New("mirror down")},
				"amd64":   {bins: []knowledge.BinaryPackage{madBin("amd64", "0.15.1b-11")}}}},
		{name: "no build of the version anywhere", wantErr: "amd64 packages of libmad are another version",
			archives: map[string]*fakeArchive{
				"riscv64": {bins: []knowledge.BinaryPackage{madBin("riscv64", "0.16-1")}},
				"amd64":   {bins: []knowledge.BinaryPackage{dev, madBin("amd64", "0.16-1")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open := func(arch string) (distArchive, error) { return tt.archives[arch], nil }
			debs, arch, notes, err := fetchDistribution(context.Background(), open, "libmad", "0.15.1b")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if arch != tt.wantArch || len(debs) != 1 || debs[0].Package != "libmad0" || len(debs[0].Contents.Libraries) != 1 {
				t.Fatalf("arch %s, debs %+v", arch, debs)
			}
			if got := strings.Join(notes, "\n"); (tt.wantNote == "") != (got == "") || !strings.Contains(got, tt.wantNote) {
				t.Errorf("notes %q, want %q", got, tt.wantNote)
			}
			if f := tt.archives["amd64"].fetched; arch == "amd64" && strings.Join(f, ",") != "libmad0" {
				t.Errorf("amd64 fetched %v, want libmad0 only (not the -dev package, not the multilib copy)", f)
			}
		})
	}
}

// TestExcuseUndistributed: a function the public headers declare but the
// distribution's own build does not export either (libmad's mad_bit_write, declared in
// bit.h and defined nowhere) is not asked of the port; one the distribution exports is.
func TestExcuseUndistributed(t *testing.T) {
	mad := readTestDeb(t, libmadDeb)
	symbolsDeb := func(text string) distDeb {
		return distDeb{Package: "libx1", Version: "1.0-1", Contents: &debpkg.Contents{Control: map[string][]byte{"symbols": []byte(text)}}}
	}
	tests := []struct {
		name         string
		deb          distDeb
		sonames      []string
		missing      []string
		wantMissing  []string
		wantDeclared int
		wantNote     string
	}{
		{name: "libmad's mad_bit_write", deb: mad, sonames: []string{"libmad.so.0"}, missing: []string{"mad_bit_write", "mad_synth_frame"},
			wantMissing: []string{"mad_synth_frame"}, wantDeclared: 36, wantNote: "libmad0 0.15.1b (Debian riscv64, dynamic symbols) does not export either: mad_bit_write"},
		{name: "architecture-specific in the symbols file", deb: symbolsDeb("libx.so.1 libx1 #MINVER#\n (arch=amd64 i386)x_sse2@Base 1.0\n x_generic@Base 1.0\n"),
			sonames: []string{"libx.so.1"}, missing: []string{"x_generic", "x_sse2"}, wantMissing: []string{"x_generic"}, wantDeclared: 36, wantNote: "x_sse2"},
		{name: "a pattern could match it", deb: symbolsDeb("libx.so.1 libx1 #MINVER#\n (regex)\"^x_\" 1.0\n x_generic@Base 1.0\n"),
			sonames: []string{"libx.so.1"}, missing: []string{"x_generic", "x_other"}, wantMissing: []string{"x_generic", "x_other"}, wantDeclared: 37},
		{name: "nothing compared", deb: mad, sonames: []string{"libother.so.1"}, missing: []string{"mad_bit_write"},
			wantMissing: []string{"mad_bit_write"}, wantDeclared: 37},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sonames := map[string]bool{}
			for _, s := range tt.sonames {
				sonames[s] = true
			}
			ec := &atesor.ExportCheck{Declared: 37, MissingDeclared: tt.missing}
			d := compareDistribution([]distDeb{tt.deb}, "riscv64", knowledge.UpstreamVersion(tt.deb.Version), sonames, func(string) bool { return true }, ec)
			excuseUndistributed(ec, d)
			if diff := cmp.Diff(tt.wantMissing, ec.MissingDeclared, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("missing declared (-want +got):\n%s", diff)
			}
			if ec.Declared != tt.wantDeclared {
				t.Errorf("declared = %d, want %d", ec.Declared, tt.wantDeclared)
			}
			if notes := strings.Join(ec.Notes, "\n"); tt.wantNote != "" && !strings.Contains(notes, tt.wantNote) {
				t.Errorf("notes %q lack %q", notes, tt.wantNote)
			}
		})
	}
}
