package batch

import (
	"fmt"
	"path"
	"strings"
)

// checkPattern rejects an expected-artifact pattern [MatchArtifact] cannot use: empty,
// absolute, with an empty or dot element, or not a valid [path.Match] pattern.
func checkPattern(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return fmt.Errorf("expected artifact %q: want a file name pattern such as libz.so.* or bin/zstd", p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("expected artifact %q: empty, . or .. path element", p)
		}
		if _, err := path.Match(el, ""); err != nil {
			return fmt.Errorf("expected artifact %q: %w", p, err)
		}
	}
	return nil
}

// MatchArtifact reports whether the artifact at sandbox path p matches pattern: a
// pattern of one element (libzstd.so.*) matches the file's name, one of several
// (programs/zstd) the last as many elements of the path, each by [path.Match]. Names
// and not whole paths are matched because where a build puts its outputs (build/,
// .libs/, programs/) differs between build systems and versions, while the names a
// porter expects do not.
func MatchArtifact(pattern, p string) bool {
	want := strings.Split(pattern, "/")
	have := strings.Split(strings.Trim(path.Clean("/"+p), "/"), "/")
	if len(have) < len(want) {
		return false
	}
	have = have[len(have)-len(want):]
	for i, w := range want {
		if ok, err := path.Match(w, have[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// MissingExpected returns the patterns of expected that match none of artifacts (sandbox
// paths), in order.
func MissingExpected(expected, artifacts []string) []string {
	var out []string
	for _, e := range expected {
		found := false
		for _, a := range artifacts {
			if MatchArtifact(e, a) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, e)
		}
	}
	return out
}
