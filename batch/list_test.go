package batch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseList(t *testing.T) {
	list := `# packages to port
debian:zlib
debian:lz4=1.10.0   # pinned
https://example.invalid/xxhash-0.8.2.tar.gz
./src/cjson#frag

debian:zlib
`
	got, err := ParseList(strings.NewReader(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{{Source: "debian:zlib", Name: "zlib"}, {Source: "debian:lz4=1.10.0", Name: "lz4"},
		{Source: "https://example.invalid/xxhash-0.8.2.tar.gz", Name: "xxhash"}, {Source: "./src/cjson#frag", Name: "cjson-frag"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	for _, bad := range []string{"debian:zlib debian:lz4\n", "debian:Zlib\n", "debian:zlib\n/tmp/zlib\n"} {
		if _, err := ParseList(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseList(%q) accepted it", bad)
		}
	}
}

func TestShards(t *testing.T) {
	var items []Item
	for _, n := range strings.Fields("a b c d e f g") {
		items = append(items, Item{Source: n, Name: n})
	}
	seen := map[string]int{}
	for i := range 3 {
		part := Shard{i, 3}.Select(items)
		if len(part) < 2 || len(part) > 3 {
			t.Errorf("shard %d has %d items", i, len(part))
		}
		for _, it := range part {
			seen[it.Name]++
		}
	}
	if len(seen) != len(items) {
		t.Errorf("shards cover %v", seen)
	}
	for _, n := range seen {
		if n != 1 {
			t.Errorf("an item in two shards: %v", seen)
		}
	}
	if d := cmp.Diff(items, (Shard{}).Select(items)); d != "" {
		t.Error(d)
	}

	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/2", Shard{0, 2}, true}, {"1/2", Shard{1, 2}, true}, {" 3/10 ", Shard{3, 10}, true},
		{"2/2", Shard{}, false}, {"-1/2", Shard{}, false}, {"1/0", Shard{}, false}, {"1", Shard{}, false}, {"a/b", Shard{}, false},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseShard(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, ok, err := ShardFromEnv(env(map[string]string{EnvJobIndex: "2", EnvShards: "4"}))
	if !ok || err != nil || s != (Shard{2, 4}) {
		t.Errorf("indexed job: %v %v %v", s, ok, err)
	}
	if _, ok, err := ShardFromEnv(env(nil)); ok || err != nil {
		t.Errorf("no job: %v %v", ok, err)
	}
	if _, ok, err := ShardFromEnv(env(map[string]string{EnvJobIndex: "2"})); !ok || err == nil || !strings.Contains(err.Error(), EnvShards) {
		t.Errorf("no count: %v %v", ok, err)
	}
	if _, _, err := ShardFromEnv(env(map[string]string{EnvJobIndex: "4", EnvShards: "4"})); err == nil {
		t.Error("index out of range accepted")
	}
}

// FuzzParseList checks that any list parses without a panic into items with safe
// names.
func FuzzParseList(f *testing.F) {
	f.Add("debian:zlib\n# c\n/x/y.tar.gz\n")
	f.Add("../../etc\n")
	f.Add("debian:libzstd artifacts: zstd libzstd.so.* # make\n")
	f.Fuzz(func(t *testing.T, list string) {
		items, err := ParseList(strings.NewReader(list))
		if err != nil {
			return
		}
		for _, it := range items {
			if it.Name == "" || strings.ContainsAny(it.Name, "/\\") || it.Name == ".." || it.Name == "." {
				t.Errorf("unsafe name %q from %q", it.Name, it.Source)
			}
			for _, e := range it.Expected {
				if checkPattern(e) != nil {
					t.Errorf("unusable pattern %q accepted", e)
				}
			}
		}
	})
}
