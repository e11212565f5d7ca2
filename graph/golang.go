package graph

import (
	"path"
	"slices"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// withGoArtifacts adds the files the default Go plan writes (every command, or a
// library's test binaries) to the expected artifacts, so that a port reports each one
// found or missing; an artifact of the same name already listed is not repeated. The
// list stays within the analysis' cap.
func withGoArtifacts(expected []string, d *atesor.Detection) []string {
	if d == nil || d.BuildSystem != atesor.BuildGo {
		return expected
	}
	for _, a := range d.GoArtifacts {
		if len(expected) >= validate.MaxExpectedArtifacts {
			break
		}
		if !slices.ContainsFunc(expected, func(e string) bool { return path.Base(e) == path.Base(a) }) {
			expected = append(expected, a)
		}
	}
	return expected
}
