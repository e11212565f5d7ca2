package batch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestParseListArtifacts(t *testing.T) {
	list := `debian:libzstd   artifacts: zstd libzstd.so.*   # make c library,program
debian:hey artifacts: cmd/hey
debian:libzstd artifacts: libzstd.a
debian:tree
`
	got, err := ParseList(strings.NewReader(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{Source: "debian:libzstd", Name: "libzstd", Expected: []string{"zstd", "libzstd.so.*", "libzstd.a"}},
		{Source: "debian:hey", Name: "hey", Expected: []string{"cmd/hey"}},
		{Source: "debian:tree", Name: "tree"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	for _, bad := range []string{
		"debian:zstd zstd\n",                     // patterns without the marker
		"debian:zstd artifacts:\n",               // the marker and nothing
		"debian:zstd artifacts: /usr/bin/zstd\n", // absolute
		"debian:zstd artifacts: ../zstd\n",
		"debian:zstd artifacts: lib[z.so\n", // not a pattern
		"debian:zstd artifacts: bin//zstd\n",
	} {
		if _, err := ParseList(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseList(%q) accepted it", bad)
		}
	}
}

func TestMatchArtifact(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"zstd", "/workspace/libzstd/programs/zstd", true},
		{"zstd", "/workspace/libzstd/programs/zstd-frugal", false},
		{"libzstd.so.*", "/workspace/libzstd/lib/libzstd.so.1.5.7", true},
		{"libzstd.so.*", "/workspace/libzstd/lib/libzstd.so", false},
		{"libhiredis.so*", "/workspace/hiredis/libhiredis.so", true},
		{"programs/zstd", "/workspace/libzstd/programs/zstd", true},
		{"bin/zstd", "/workspace/libzstd/programs/zstd", false},
		{"a/b/zstd", "zstd", false},
		{"lib*.a", "/w/x/.libs/libogg.a", true},
		{"*.test", "/w/errors.test", true},
		{"errors.test", "/w/errors.test/../other.test", false}, // the cleaned path's name
	} {
		if got := MatchArtifact(c.pattern, c.path); got != c.want {
			t.Errorf("MatchArtifact(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestSummarizeExpected(t *testing.T) {
	recs := map[string]Record{
		// Verified with everything expected.
		"zstd": {Name: "zstd", Status: atesor.StatusVerified, Verified: true, Expected: []string{"zstd", "libzstd.so.*"},
			Artifacts: []string{"/w/programs/zstd", "/w/lib/libzstd.so.1.5.7"}},
		// Verified without the program a porter expects.
		"lmdb": {Name: "lmdb", Status: atesor.StatusVerified, Verified: true, Expected: []string{"liblmdb.so*", "mdb_stat"},
			Artifacts: []string{"/w/liblmdb.so"}, MissingExpected: MissingExpected([]string{"liblmdb.so*", "mdb_stat"}, []string{"/w/liblmdb.so"})},
		// Failed: not judged.
		"cctz": {Name: "cctz", Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild, Expected: []string{"libcctz.*"}},
		// Verified, nothing expected: not judged.
		"tree": {Name: "tree", Status: atesor.StatusVerified, Verified: true, Artifacts: []string{"/w/tree"}},
	}
	s := Summarize([]string{"zstd", "lmdb", "cctz", "tree"}, recs)
	if s.ExpectedChecked != 2 || s.ExpectedMet != 1 {
		t.Errorf("checked %d met %d, want 2 and 1", s.ExpectedChecked, s.ExpectedMet)
	}
	if d := cmp.Diff(map[string][]string{"lmdb": {"mdb_stat"}}, s.MissingExpected); d != "" {
		t.Errorf("missing (-want +got):\n%s", d)
	}
	md := Markdown(s)
	if !strings.Contains(md, "1 of 2 verified ports with expected artifacts produced all of them") || !strings.Contains(md, "| lmdb | mdb_stat |") {
		t.Errorf("markdown lacks the expected-artifact section:\n%s", md)
	}
}
