package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// Input is what a replay needs of a port: the recipe (its command block), the source
// and its hash, the patches, and the primary artifacts with their hashes. Read it from
// a recipe file and its report with [ReadInput], or from a recipe-cache entry with
// [InputFromCache].
type Input struct {
	Package      string
	Source       string
	SourceSHA256 string
	SourceCommit string
	Recipe       string
	// Patches are the unified diffs of the port's source changes, applied in order
	// before the commands.
	Patches []string
	// Artifacts are the port's primary artifacts (path and SHA-256).
	Artifacts []atesor.Artifact
	// GoToolchain is the Go toolchain the port ran with (from its report); a fetched
	// release is fetched and used again. Without it a go.mod that needs a newer Go
	// than the suite's is handled as in a port.
	GoToolchain *atesor.GoToolchain
}

// report is the part of a port's <package>_report.json that a replay reads.
type report struct {
	Package      string              `json:"package"`
	Source       string              `json:"source"`
	SourceSHA256 string              `json:"source_sha256,omitempty"`
	SourceCommit string              `json:"source_commit,omitempty"`
	Artifacts    []atesor.Artifact   `json:"artifacts"`
	Patches      *int                `json:"patches,omitempty"`
	GoToolchain  *atesor.GoToolchain `json:"go_toolchain,omitempty"`
}

// ReadInput reads <repo>_recipe.md, the <repo>_report.json next to it and the patches
// in <repo>_patches/, with the source the report names. A recipe folder may come from
// someone else, so the report may name only a source every machine reaches and checks:
// a tarball URL with its SHA-256, or a git URL with its commit. A report that names a
// path on this host (a directory, a local tarball, a file:// repository) is refused
// with [ErrHostSource]: use [ReadInputFrom] with the source named by the user.
func ReadInput(recipePath string) (Input, error) {
	return ReadInputFrom(recipePath, "")
}

// ReadInputFrom is [ReadInput] with the source the user names (a directory, a tarball
// or a URL); "" takes the report's, under the rules of ReadInput. The report's SHA-256
// or commit is still checked against the named source before the replay runs anything.
func ReadInputFrom(recipePath, source string) (Input, error) {
	md, err := os.ReadFile(recipePath)
	if err != nil {
		return Input{}, fmt.Errorf("read the recipe: %w", err)
	}
	prefix := strings.TrimSuffix(recipePath, "_recipe.md")
	if prefix == recipePath {
		return Input{}, fmt.Errorf("recipe %s: a recipe file is named <package>_recipe.md, next to its <package>_report.json", recipePath)
	}
	b, err := os.ReadFile(prefix + "_report.json")
	if err != nil {
		return Input{}, fmt.Errorf("the recipe's report (with the artifact hashes to compare): %w", err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return Input{}, fmt.Errorf("report %s_report.json: %w", prefix, err)
	}
	in := Input{Package: rep.Package, Source: rep.Source, SourceSHA256: rep.SourceSHA256, SourceCommit: rep.SourceCommit,
		Recipe: string(md), Artifacts: atesor.PrimaryArtifacts(rep.Artifacts), GoToolchain: rep.GoToolchain}
	if rep.Package == "" || rep.Source == "" {
		return Input{}, fmt.Errorf("report %s_report.json names no package or source", prefix)
	}
	if source != "" {
		in.Source = source
	} else if err := reportedSourceOK(rep.Source, rep.SourceSHA256, rep.SourceCommit); err != nil {
		return Input{}, fmt.Errorf("report %s_report.json: %w", prefix, err)
	}
	patches, _ := filepath.Glob(prefix + "_patches/*.patch")
	sort.Strings(patches)
	if rep.Patches != nil && *rep.Patches != len(patches) {
		return Input{}, fmt.Errorf("report %s_report.json counts %d patch(es) but %s_patches/ holds %d: the port's patch files are incomplete; restore them from the port's outputs", prefix, *rep.Patches, prefix, len(patches))
	}
	for _, p := range patches {
		d, err := os.ReadFile(p)
		if err != nil {
			return Input{}, fmt.Errorf("read patch: %w", err)
		}
		in.Patches = append(in.Patches, string(d))
	}
	return in, nil
}

// InputFromCache is the replay input of a recipe-cache entry. The cache is the user's
// own (only verified ports enter it), so its source is used as recorded.
func InputFromCache(e atesor.CachedRecipe) Input {
	return Input{Package: e.Package, Source: e.Source, SourceSHA256: e.SourceSHA256, SourceCommit: e.SourceCommit,
		Recipe: e.Recipe, Patches: e.Patches, Artifacts: atesor.PrimaryArtifacts(e.Artifacts)}
}
