package memory

import "testing"

// The literal pre-filter must never change a result: whenever the regular expression
// matches, the pre-filter holds.
func checkPrefilter(t *testing.T, p, msg string) {
	t.Helper()
	pt := compilePattern(p)
	if pt == nil {
		return
	}
	want := pt.re.MatchString(msg)
	if got := pt.match(msg, foldString(msg)); got != want {
		t.Fatalf("pattern %q on %q: pre-filtered match %v, regexp %v", p, msg, got, want)
	}
}

func TestPatternPrefilter(t *testing.T) {
	cases := []struct{ p, msg string }{
		{`undefined reference to .__atomic_`, "x: UNDEFINED REFERENCE TO `__ATOMIC_load_16'"},
		{`fatal error: (immintrin|emmintrin)\.h`, "fatal error: EMMINTRIN.h: no such file"},
		{`a|b*`, "zzz"},
		{`(ab)+c`, "ABABC"},
		{`x{2,}y`, "xxY"},
		{`x{0,2}y`, "Y"},
		{`k`, "\u212a"}, // Kelvin sign folds to k
		{`s`, "\u017f"}, // long s folds to s
		{`ſ`, "S"},
		{`No\ package\ 'zlib'`, "no package 'ZLIB' found"},
		{`(?-i:Abc)`, "abc"},
		{`(?-i:Abc)`, "Abc"},
		{`é`, "É"},
		{`\d+ errors`, "3 ERRORS"},
	}
	for _, c := range cases {
		checkPrefilter(t, c.p, c.msg)
	}
	for _, p := range []string{"", "(", `foo(?=bar)`} {
		if compilePattern(p) != nil {
			t.Errorf("compilePattern(%q) should be nil", p)
		}
	}
	for in, want := range map[string]string{
		`No\ package\ 'zlib'`: `No package 'zlib'`,
		`a\\\ b`:              `a\\ b`,
		`\.\d\(`:              `\.\d\(`,
		`x\é`:                 `xé`,
		`end\`:                `end\`,
	} {
		if got := pythonEscapes(in); got != want {
			t.Errorf("pythonEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzPatternPrefilter(f *testing.F) {
	f.Add(`undefined reference to .__atomic_`, "undefined reference to `__atomic_load_16'")
	f.Add(`a(b|c)+d`, "ABCBD")
	f.Add(`k|ſ`, "\u212a")
	f.Fuzz(func(t *testing.T, p, msg string) {
		checkPrefilter(t, p, msg)
	})
}
