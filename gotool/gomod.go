package gotool

import (
	"fmt"
	"go/version"
	"path"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/eclipse-atesor/atesor-go"
)

// goModVersions are the go and toolchain lines of a go.mod ("1.27.3", "go1.27.3").
type goModVersions struct {
	Go, Toolchain string
}

// parseGoMod reads the go and toolchain directives of a go.mod with the go command's
// parser, strictly, as the go command reads the main module's go.mod: a repeated
// directive, a version the go command would refuse or a statement it does not know is
// an error (the build would fail on the same go.mod with the same message).
func parseGoMod(data []byte) (goModVersions, error) {
	var v goModVersions
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return v, fmt.Errorf("%w (usage: go 1.23.0; toolchain go1.23.0 or default)", err)
	}
	if f.Go != nil {
		v.Go = f.Go.Version
	}
	if f.Toolchain != nil {
		v.Toolchain = f.Toolchain.Name
	}
	return v, nil
}

// toolchainVersion is the Go version of a toolchain name: go1.27.3-custom and
// go1.27.3+auto are go1.27.3; "default" and other names have none ("").
func toolchainVersion(name string) string {
	if !strings.HasPrefix(name, "go1") {
		return ""
	}
	if i := strings.IndexAny(name, "-+"); i >= 0 {
		name = name[:i]
	}
	if !version.IsValid(name) {
		return ""
	}
	return name
}

// required is the Go release the module asks for: the newer of its go line and its
// toolchain line, as the go command chooses when it switches. A go line that is a
// language version (1.27) names the first release of it (go1.27.0) from Go 1.21 on,
// as the go command does. "" when the go.mod has no go line.
func (v goModVersions) required() string {
	if v.Go == "" {
		return ""
	}
	req := "go" + v.Go
	if version.Lang(req) == req && version.Compare(req, "go1.21") >= 0 {
		req += ".0"
	}
	if t := toolchainVersion(v.Toolchain); t != "" && version.Compare(t, req) > 0 {
		req = t
	}
	return req
}

// needsNewerGo reports whether a module requiring req cannot be built by the suite's
// Go (suite == "": the sandbox has no Go at all).
func needsNewerGo(req, suite string) bool {
	if req == "" {
		return false
	}
	return suite == "" || version.Compare(req, suite) > 0
}

// ModPath is the sandbox path of the go.mod a build uses: in the module directory the
// detection found, else in its build directory, else at the repository's top. The
// directory is cleaned as an absolute path first, so it never leaves repoDir.
func ModPath(repoDir string, d *atesor.Detection) string {
	dir := "."
	if d != nil {
		switch {
		case d.ModuleDir != "":
			dir = d.ModuleDir
		case d.BuildDir != "":
			dir = d.BuildDir
		}
	}
	return path.Join(repoDir, path.Clean("/"+dir), "go.mod")
}
