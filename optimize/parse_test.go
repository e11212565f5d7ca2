package optimize

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestSummarize(t *testing.T) {
	s := time.Second
	tests := []struct {
		in               []time.Duration
		median, min, max time.Duration
	}{
		{nil, 0, 0, 0},
		{[]time.Duration{3 * s}, 3 * s, 3 * s, 3 * s},
		{[]time.Duration{5 * s, 1 * s, 3 * s, 2 * s, 4 * s}, 3 * s, s, 5 * s},
		{[]time.Duration{4 * s, 1 * s, 3 * s, 2 * s}, 2500 * time.Millisecond, s, 4 * s},
	}
	for _, tt := range tests {
		got := Summarize(tt.in)
		if got.Median != tt.median || got.Min != tt.min || got.Max != tt.max || !slices.Equal(got.Durations, tt.in) {
			t.Errorf("Summarize(%v) = %+v", tt.in, got)
		}
	}
}

func TestBenchmarkFlag(t *testing.T) {
	tests := []struct{ name, help, want string }{
		{"lz4", lz4Help, "-b"},
		{"xxhsum", "Usage: xxhsum [options] [files]\n  -b         Run benchmark\n  -i#        Number of times to run the benchmark (default: 3)\n", "-b"},
		{"long option", "  --benchmark=N   run the built-in benchmark\n", "--benchmark"},
		{"comma list", "  -B, --bench     benchmark mode\n", "-B"},
		{"mentioned without a flag", "This tool has no benchmark.\n", ""},
		{"other flag first", "  -v   verbose benchmark output\n", ""},
		{"none", "usage: gzip [-cdfhk] [file ...]\n", ""},
	}
	for _, tt := range tests {
		if got := BenchmarkFlag(tt.help); got != tt.want {
			t.Errorf("%s: BenchmarkFlag = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseExports(t *testing.T) {
	nm := "0000000000001a2c T compress\n0000000000001b00 T uncompress@@ZLIB_1.2.9\n                 U memcpy\n0000000000002000 T _init\n0000000000003000 D z_errmsg\n0000000000001a2c T compress\n"
	if got := ParseExports(nm); !slices.Equal(got, []string{"compress", "uncompress"}) {
		t.Errorf("ParseExports = %v", got)
	}
}

func TestChecker(t *testing.T) {
	runs := []string{
		"1#Synthetic 50%     :  10000000 ->\r 1#Synthetic 50%     :  10000000 ->  4756415 (2.102), 281.4 MB/s , 1541.1 MB/s\n",
		"1#Synthetic 50%     :  10000000 ->  4756415 (2.102), 279.0 MB/s , 1502.7 MB/s\n",
	}
	c := NewChecker(CheckShape, runs)
	if !strings.Contains(c.Want(), "4756415") || strings.Contains(c.Want(), "281.4") {
		t.Errorf("template %q", c.Want())
	}
	if !c.Equal("1#Synthetic 50%  : 10000000 -> 4756415 (2.102), 999.9 MB/s , 1.0 MB/s\n") {
		t.Error("a run with other speeds must check equal")
	}
	if c.Equal("1#Synthetic 50%  : 10000000 -> 4756416 (2.102), 281.4 MB/s , 1541.1 MB/s\n") {
		t.Error("a run with another compressed size must not check equal")
	}
	// lz4 -b without a terminal: a spinner before the name, turned by time.
	spin := NewChecker(CheckShape, []string{"1#\n|-Lorem ipsum : 10000000 ->\r", "1#\n|-Lorem ipsum : 10000000 ->\r"})
	if !spin.Equal("1#\n=-Lorem ipsum : 10000000 ->\r") || spin.Equal("1#\n=-Lorem ipsum : 10000001 ->\r") {
		t.Errorf("spinner check, template %q", spin.Want())
	}
	if c.Equal("") {
		t.Error("an empty output must not check equal")
	}
	// lz4 1.10's real -b output without a terminal: the results on stdout, redrawn with
	// carriage returns and finished by "\r 1#" over the last drawing; the progress on
	// stderr. The compressed size must be part of the check, the speeds must not.
	lz4 := func(size string, c, d string) string {
		return " /-Lorem ipsum       :  10000000 ->   " + size + " (2.132), " + c + " MB/s\r =-Lorem ipsum       :  10000000 ->   " + size + " (2.132), " + c + " MB/s, " + d + " MB/s\r 1#\n" +
			"\r                                                                               \r |-Lorem ipsum       :  10000000 ->\r"
	}
	real := NewChecker(CheckShape, []string{lz4("4690337", " 57.4", "2188.2"), lz4("4690337", "130.4", "1010.9"), lz4("4690337", "104.0", "2920.2")})
	if !strings.Contains(real.Want(), "4690337") || real.Mode != CheckShape {
		t.Errorf("lz4 template %q (mode %v) lacks the compressed size", real.Want(), real.Mode)
	}
	if !real.Equal(lz4("4690337", " 99.9", "1234.5")) || real.Equal(lz4("4690338", "130.4", "1010.9")) {
		t.Errorf("lz4 check, template %q", real.Want())
	}
	if got := real.MedianFigures([]string{lz4("4690337", " 57.4", "2188.2"), lz4("4690337", "130.4", "1010.9"), lz4("4690337", "104.0", "2920.2")}); !slices.Equal(got, []string{"104.0 MB/s", "2188.2 MB/s"}) {
		t.Errorf("lz4 figures %q", got)
	}
	m := NewChecker(CheckMarker, []string{"warming up\nATESOR-CHECK 1234\n"})
	if !m.Equal("ATESOR-CHECK 1234\n") || m.Equal("ATESOR-CHECK 1235\n") || m.Equal("no marker\n") {
		t.Error("marker check")
	}
	d := NewChecker(CheckDigest, []string{"abc"})
	if !d.Equal("abc") || d.Equal("abd") {
		t.Error("digest check")
	}
	if !NewChecker(CheckExit, nil).Equal("anything") {
		t.Error("exit check")
	}
}

func TestFindSwitches(t *testing.T) {
	tree := fstest.MapFS{
		"configure": {Data: []byte(`
  --enable-FEATURE[=ARG]  include FEATURE
  --enable-rvv            build the RVV kernels
  --disable-simd          do not use SIMD (on by default)
  --enable-neon           ARM NEON
  --enable-debug          debugging`)},
		"CMakeLists.txt": {Data: []byte(`option(WITH_RVV "Use the RISC-V vector extension" OFF)
option(WITH_SIMD "SIMD" ON)
option(BUILD_TESTS "tests" ON)
option(ENABLE_SSE2 "x86" OFF)`)},
		"meson_options.txt": {Data: []byte(`option('rvv', type: 'feature', value: 'auto')
option('vector_opt', type: 'boolean', value: false)
option('docs', type: 'boolean', value: false)`)},
	}
	var got []string
	for _, s := range FindSwitches(tree) {
		got = append(got, s.Arg)
		if !s.Vector {
			t.Errorf("%s: not marked as a vector switch", s.Arg)
		}
	}
	want := []string{"--enable-rvv", "-DWITH_RVV=ON", "-Drvv=enabled", "-Dvector_opt=true"}
	if !slices.Equal(got, want) {
		t.Errorf("switches %v, want %v", got, want)
	}
}

func TestWithConfigureArgs(t *testing.T) {
	args := []string{"-DWITH_RVV=ON"}
	tests := []struct {
		line, want string
		ok         bool
	}{
		{"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release", "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DWITH_RVV=ON", true},
		{"cmake --build build -j2", "cmake --build build -j2", false},
		{"mkdir -p build && cmake .. && make", "mkdir -p build && cmake .. -DWITH_RVV=ON && make", true},
		{"./configure --prefix=/usr", "./configure --prefix=/usr -DWITH_RVV=ON", true},
		{"meson setup build", "meson setup build -DWITH_RVV=ON", true},
		{"meson compile -C build", "meson compile -C build", false},
		{"make -j2", "make -j2", false},
	}
	for _, tt := range tests {
		got, ok := withConfigureArgs(tt.line, args)
		if got != tt.want || ok != tt.ok {
			t.Errorf("withConfigureArgs(%q) = %q, %t", tt.line, got, ok)
		}
	}
}

func TestModuleAndCrate(t *testing.T) {
	tree := fstest.MapFS{
		"go.mod":     {Data: []byte("// comment\nmodule github.com/google/uuid\n\ngo 1.21\n")},
		"Cargo.toml": {Data: []byte("[workspace]\nmembers = []\n\n[package]\nversion = \"1.0\"\nname = \"my-crate\"\n")},
	}
	if got := ModulePath(tree); got != "github.com/google/uuid" {
		t.Errorf("ModulePath = %q", got)
	}
	if got := CrateName(tree); got != "my-crate" {
		t.Errorf("CrateName = %q", got)
	}
}

func FuzzBenchmarkFlag(f *testing.F) {
	f.Add(lz4Help)
	f.Add("  -B, --bench=N  benchmark\n")
	f.Fuzz(func(t *testing.T, help string) {
		flag := BenchmarkFlag(help)
		if flag != "" && (!strings.HasPrefix(flag, "-") || strings.ContainsAny(flag, " \t\n'\"$;|&")) {
			t.Fatalf("flag %q is not a plain option", flag)
		}
	})
}

func FuzzParseExports(f *testing.F) {
	f.Add("0000 T compress\n0000 U memcpy\n")
	f.Fuzz(func(t *testing.T, nm string) {
		for _, n := range ParseExports(nm) {
			if n == "" || strings.ContainsAny(n, " \t\n@") {
				t.Fatalf("export %q", n)
			}
		}
	})
}

func FuzzChecker(f *testing.F) {
	f.Add("a 1 2\nb 3\r b 4\n", "a 1 5\nb 4\n")
	f.Add(" =-x : 10 -> 5 (2.0), 30.5 MB/s\r 1#\n", " =-x : 10 -> 5 (2.0), 99.1 MB/s\r 1#\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		c := NewChecker(CheckShape, []string{a, b})
		if !c.Equal(a) || !c.Equal(b) {
			t.Fatalf("a baseline run must check equal to its own template %q", c.Want())
		}
		// The figures are the masked fields: as many for each baseline run.
		fa, fb := c.Figures(a), c.Figures(b)
		if c.Mode == CheckShape && len(fa) != len(fb) {
			t.Fatalf("figures %q and %q of the template %q", fa, fb, c.Want())
		}
		if m := c.MedianFigures([]string{a, b}); m != nil && len(m) != len(fa) {
			t.Fatalf("median figures %q, run figures %q", m, fa)
		}
	})
}

func FuzzFindSwitches(f *testing.F) {
	f.Add("--enable-rvv x", "option(WITH_RVV \"v\" OFF)", "option('rvv', type: 'feature', value: 'auto')")
	f.Fuzz(func(t *testing.T, conf, cmake, meson string) {
		tree := fstest.MapFS{"configure": {Data: []byte(conf)}, "CMakeLists.txt": {Data: []byte(cmake)}, "meson_options.txt": {Data: []byte(meson)}}
		for _, s := range FindSwitches(tree) {
			if strings.ContainsAny(s.Arg, " \t\n'\"$;|&") {
				t.Fatalf("switch argument %q is not one shell word", s.Arg)
			}
		}
	})
}
