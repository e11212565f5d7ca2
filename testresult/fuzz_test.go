package testresult

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary output to every parser: no panic, and counts that add up.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("1..3\nok 1\nnot ok 2 # TODO\n")
	f.Add("100% tests passed, 0 tests failed out of 0\n")
	f.Add("# TOTAL: 99999999999999999999\n# FAIL: 3\n")
	f.Fuzz(func(t *testing.T, out string) {
		r := Parse(out)
		if r.Counts == nil {
			if r.Note != NoteUnknown {
				t.Fatalf("no counts without the unknown note: %+v", r)
			}
			return
		}
		c := r.Counts
		if c.Ran < 0 || c.Passed < 0 || c.Failed < 0 || c.Skipped < 0 {
			t.Fatalf("negative counts: %+v", c)
		}
		if c.Passed+c.Failed != c.Ran {
			t.Fatalf("passed %d + failed %d != ran %d", c.Passed, c.Failed, c.Ran)
		}
		if len(c.FailedTests) > MaxFailedNames {
			t.Fatalf("%d failed names", len(c.FailedTests))
		}
		if r.NoTests && c.Ran != 0 {
			t.Fatalf("no tests, but %d ran", c.Ran)
		}
		for _, n := range c.FailedTests {
			if n == "" || strings.Contains(n, "\n") {
				t.Fatalf("bad failed name %q", n)
			}
		}
	})
}

// FuzzCMakeTestOptions: option names returned are CMake identifiers.
func FuzzCMakeTestOptions(f *testing.F) {
	f.Add("option(BUILD_TESTING \"x\" OFF)\ninclude(CTest)\n")
	f.Add("option(FOO_TESTS)\n")
	f.Fuzz(func(t *testing.T, lists string) {
		for _, o := range CMakeTestOptions(lists) {
			for _, c := range o {
				if !(c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
					t.Fatalf("option %q is not an identifier", o)
				}
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	out := strings.Repeat(read(b, "go-json-mixed.txt"), 50)
	b.ReportAllocs()
	for b.Loop() {
		Parse(out)
	}
}
