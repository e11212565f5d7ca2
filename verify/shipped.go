package verify

import (
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// A source may ship ELF files (prebuilt tools, test fixtures, vendored libraries).
// They prove nothing about the build, so they are recorded before it runs, by path and
// hash, and left out of what it produced. The record's form, "path@sha256", is read
// and written only here.

// ShippedELFs records the artifacts found in the source before the build (see
// [Produced]), one "path@sha256" entry each.
func ShippedELFs(arts []atesor.Artifact) []string {
	var out []string
	for _, a := range arts {
		out = append(out, a.Path+"@"+a.SHA256)
	}
	return out
}

// Produced returns the artifacts of arts the build produced: not one the source
// shipped at the same path with the same content (shipped as [ShippedELFs] recorded
// it), nor one for which skip is true (nil: none). It also returns the hashes of the
// shipped files, by which a copy of a shipped file elsewhere (an installed one) is
// recognised.
func Produced(arts []atesor.Artifact, shipped []string, skip func(path string) bool) (built []atesor.Artifact, shippedSHA map[string]bool) {
	byEntry, shippedSHA := map[string]bool{}, map[string]bool{}
	for _, e := range shipped {
		byEntry[e] = true
		shippedSHA[e[strings.LastIndexByte(e, '@')+1:]] = true
	}
	for _, a := range arts {
		if byEntry[a.Path+"@"+a.SHA256] || (skip != nil && skip(a.Path)) {
			continue
		}
		built = append(built, a)
	}
	return built, shippedSHA
}
