package batch

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/source"
)

// Item is one package of a batch.
type Item struct {
	// Source is what port takes: a directory, a tarball path or URL, a git URL, or
	// debian:NAME[=VERSION].
	Source string `json:"source"`
	// Name names the package's output directory and record.
	Name string `json:"name"`
	// Expected are the artifacts a porter expects the port to produce, as patterns
	// ([MatchArtifact]): a verified port whose artifacts lack one is reported as such.
	Expected []string `json:"expected,omitempty"`
}

// NewItem makes the item of a source, naming it like port does (a Debian source by its
// package name).
func NewItem(src string) (Item, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return Item{}, fmt.Errorf("batch: empty source")
	}
	if debsrc.IsSpec(src) {
		name, _, err := debsrc.ParseSpec(src)
		if err != nil {
			return Item{}, err
		}
		return Item{Source: src, Name: name}, nil
	}
	return Item{Source: src, Name: source.PackageName(src)}, nil
}

// Items makes the items of sources and rejects two sources with one name (their outputs
// would collide).
func Items(sources []string) ([]Item, error) {
	out := make([]Item, 0, len(sources))
	for _, s := range sources {
		it, err := NewItem(s)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return Unique(out)
}

// Unique drops repeated sources (the same source twice is one package, expecting the
// artifacts of both lines) and rejects two sources with one name, whose outputs would
// collide.
func Unique(items []Item) ([]Item, error) {
	byName := map[string]int{}
	out := make([]Item, 0, len(items))
	for _, it := range items {
		i, ok := byName[it.Name]
		if !ok {
			byName[it.Name] = len(out)
			it.Expected = slices.Clone(it.Expected)
			out = append(out, it)
			continue
		}
		if prev := out[i].Source; prev != it.Source {
			return nil, fmt.Errorf("batch: %s and %s are both named %s: list one of them", prev, it.Source, it.Name)
		}
		for _, e := range it.Expected {
			if !slices.Contains(out[i].Expected, e) {
				out[i].Expected = append(out[i].Expected, e)
			}
		}
	}
	return out, nil
}

// ArtifactsMarker starts the expected artifacts on a list line, after the source.
const ArtifactsMarker = "artifacts:"

// ParseList reads a list file: one source per line, optionally followed by
// "artifacts:" and the patterns of the artifacts the port should produce
// ("debian:libzstd artifacts: zstd libzstd.so.*"); blank lines and everything from a
// "#" that starts a line or follows a space are ignored.
func ParseList(r io.Reader) ([]Item, error) {
	var items []Item
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.Index(line, "#"); i == 0 || i > 0 && (line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		it, err := NewItem(fields[0])
		if err != nil {
			return nil, fmt.Errorf("batch: line %d: %w", n, err)
		}
		if rest := fields[1:]; len(rest) > 0 {
			if rest[0] != ArtifactsMarker {
				return nil, fmt.Errorf("batch: line %d: %q: one source per line (expected artifacts follow %q)", n, strings.TrimSpace(line), ArtifactsMarker)
			}
			if len(rest) == 1 {
				return nil, fmt.Errorf("batch: line %d: %q names no artifact after %q", n, strings.TrimSpace(line), ArtifactsMarker)
			}
			for _, p := range rest[1:] {
				if err := checkPattern(p); err != nil {
					return nil, fmt.Errorf("batch: line %d: %w", n, err)
				}
				it.Expected = append(it.Expected, p)
			}
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("batch: read the list: %w", err)
	}
	return Unique(items)
}

// Shard is part I (0-based) of N of a list.
type Shard struct{ Index, Count int }

// String is I/N, or "" for the whole list.
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// ParseShard parses I/N with 0 <= I < N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	idx, err1 := strconv.Atoi(i)
	cnt, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || cnt < 1 || idx < 0 || idx >= cnt {
		return Shard{}, fmt.Errorf("batch: shard %q: want I/N with 0 <= I < N (for example 0/4)", s)
	}
	return Shard{Index: idx, Count: cnt}, nil
}

// Environment variables ShardFromEnv reads.
const (
	// EnvJobIndex is set by Kubernetes in the pods of an Indexed Job.
	EnvJobIndex = "JOB_COMPLETION_INDEX"
	// EnvShards is the number of shards (the Job's completions).
	EnvShards = "ATESOR_SHARDS"
)

// ShardFromEnv returns the shard of a Kubernetes Indexed Job pod: index
// $JOB_COMPLETION_INDEX of $ATESOR_SHARDS. ok is false when JOB_COMPLETION_INDEX is unset.
func ShardFromEnv(getenv func(string) string) (s Shard, ok bool, err error) {
	idx := getenv(EnvJobIndex)
	if idx == "" {
		return Shard{}, false, nil
	}
	n := getenv(EnvShards)
	if n == "" {
		return Shard{}, true, fmt.Errorf("batch: %s is %s but %s is unset: set it to the Job's completions", EnvJobIndex, idx, EnvShards)
	}
	s, err = ParseShard(idx + "/" + n)
	return s, true, err
}

// Select returns the items of shard s: item k of the list belongs to shard k mod N, so
// the shards differ in size by at most one and a list gives every shard the same items
// on every machine.
func (s Shard) Select(items []Item) []Item {
	if s.Count <= 1 {
		return items
	}
	var out []Item
	for k, it := range items {
		if k%s.Count == s.Index {
			out = append(out, it)
		}
	}
	return out
}
