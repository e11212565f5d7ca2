package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/repair"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// FromCMakeFileAPI names CMake's file API among an install record's
// TestProgramsFrom: the test programs were found in the codemodel of the build
// directory, because ctest lists none (the project builds test programs and never
// registers them with add_test), so no test command runs them either.
const FromCMakeFileAPI = "cmake-file-api"

// The bounds of a file API query. The reply is written by a configure run of the
// package's own CMake code, so it is as untrusted as anything else the build left.
const (
	// cmakeAPITimeout bounds the reconfigure that writes the reply (cmake itself runs
	// emulated).
	cmakeAPITimeout = 5 * time.Minute
	// maxReplyTotal bounds all reply files read together.
	maxReplyTotal = 32 << 20
	// maxAPITargets bounds the targets read.
	maxAPITargets = 2000
)

// replyBound is the most the host reads of one reply file: a real target object is
// a few kilobytes, a large project's codemodel well under a megabyte.
var replyBound = sandbox.Bound{Kind: "CMake file API reply", Max: 8 << 20}

// ReadFunc reads a sandbox file whole, at most b.Max bytes, through the gate
// ([sandbox.ReadBounded]).
type ReadFunc func(ctx context.Context, p string, b sandbox.Bound) ([]byte, error)

// apiDir is the file API's directory inside a build directory.
const apiDir = ".cmake/api/v1"

// replyName is a reply file's name as CMake writes it: a plain name, no directory.
var replyName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,200}\.json$`)

// cmakeAPIPrograms asks CMake's file API of the build directory the build configured
// (the shallowest one with a CMakeCache.txt that the source did not ship) for its
// targets, and returns the sandbox paths of the package's test programs: executables
// whose compiled sources are the package's own and all lie in its test directories.
// why says what stopped the query when it returns none.
func cmakeAPIPrograms(ctx context.Context, sb Execer, read ReadFunc, repoDir, hostTree string) (progs []string, why string) {
	dir, err := findBuildDir(ctx, sb, repoDir, "-type f -name CMakeCache.txt")
	if err != nil {
		return nil, err.Error()
	}
	if shipped(ctx, hostTree, path.Join(dir, "CMakeCache.txt")) {
		return nil, "the CMake build directory " + dir + " came with the source"
	}
	buildDir := path.Join(repoDir, dir)
	// The old reply goes first, so that only what this configure writes is read; the
	// shared query file asks for the codemodel.
	line := "rm -rf " + apiDir + "/reply && mkdir -p " + apiDir + "/query && : > " + apiDir + "/query/codemodel-v2 && cmake ."
	res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: buildDir, Timeout: cmakeAPITimeout})
	if err != nil {
		return nil, "reconfigure for the file API: " + err.Error()
	}
	if !res.OK() {
		return nil, fmt.Sprintf("reconfigure for the file API: exit %d: %s", res.ExitCode, excerpt.Tail(strings.TrimSpace(res.Output), 300))
	}
	res, err = sb.Exec(ctx, atesor.Command{Line: "find " + apiDir + "/reply -maxdepth 1 -type f -name 'index-*.json'", Dir: buildDir, Timeout: time.Minute})
	if err != nil || !res.OK() {
		return nil, "the file API wrote no reply"
	}
	index := latestIndex(res.Stdout)
	if index == "" {
		return nil, "the file API wrote no reply index"
	}
	r := &replyReader{ctx: ctx, read: read, dir: buildDir + "/" + apiDir + "/reply"}
	progs, err = r.testPrograms(index, repoDir, buildDir)
	if err != nil {
		return nil, err.Error()
	}
	return progs, ""
}

// shipped reports whether the source copy holds rel: a build directory the package
// shipped is not one the build configured.
func shipped(ctx context.Context, hostTree, rel string) bool {
	if hostTree == "" {
		return false
	}
	_, err := fs.Stat(sandbox.TreeFS(ctx, hostTree, sandbox.BoundMetadata), rel)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// latestIndex picks the reply index among find's lines: CMake's current one is the
// name that sorts last. Names that are not plain reply names are ignored.
func latestIndex(findOut string) string {
	best := ""
	for _, l := range strings.Split(findOut, "\n") {
		name := path.Base(strings.TrimSpace(l))
		if strings.HasPrefix(name, "index-") && replyName.MatchString(name) && name > best {
			best = name
		}
	}
	return best
}

// replyReader reads the files of one reply directory under a total bound.
type replyReader struct {
	ctx  context.Context
	read ReadFunc
	dir  string
	used int64
}

// file reads the reply file name (a plain name inside the reply directory).
func (r *replyReader) file(name string) ([]byte, error) {
	if !replyName.MatchString(name) {
		return nil, fmt.Errorf("the file API reply names a file %q outside its directory", excerpt.Head(name, 80))
	}
	data, err := r.read(r.ctx, r.dir+"/"+name, replyBound)
	if err != nil {
		return nil, fmt.Errorf("read the file API reply: %w", err)
	}
	r.used += int64(len(data))
	if r.used > maxReplyTotal {
		return nil, fmt.Errorf("the file API reply is larger than %d MiB", maxReplyTotal>>20)
	}
	return data, nil
}

// testPrograms reads the index, the codemodel it names and every target object, and
// returns the test programs' artifact paths, sorted.
func (r *replyReader) testPrograms(index, repoDir, buildDir string) ([]string, error) {
	data, err := r.file(index)
	if err != nil {
		return nil, err
	}
	cmFile, err := parseReplyIndex(data)
	if err != nil {
		return nil, err
	}
	if data, err = r.file(cmFile); err != nil {
		return nil, err
	}
	cm, err := parseCodemodel(data, repoDir)
	if err != nil {
		return nil, err
	}
	if cm.build != buildDir {
		return nil, fmt.Errorf("the codemodel's build directory %s is not the one queried (%s)", excerpt.Head(cm.build, 200), buildDir)
	}
	var out []string
	for _, tf := range cm.targets {
		if data, err = r.file(tf); err != nil {
			return nil, err
		}
		for _, p := range targetTestPrograms(data, cm, repoDir) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// parseReplyIndex returns the codemodel's file named by a reply index
// (index-*.json): reply["codemodel-v2"].jsonFile.
func parseReplyIndex(data []byte) (string, error) {
	var doc struct {
		Reply map[string]json.RawMessage `json:"reply"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("the file API reply index is not JSON: %w", err)
	}
	var cm struct {
		Kind     string `json:"kind"`
		JSONFile string `json:"jsonFile"`
		Error    string `json:"error"`
	}
	raw, ok := doc.Reply["codemodel-v2"]
	if !ok || json.Unmarshal(raw, &cm) != nil {
		return "", errors.New("the file API reply index has no codemodel-v2 reply")
	}
	if cm.Error != "" {
		return "", fmt.Errorf("the file API answered the codemodel query with an error: %s", excerpt.Head(cm.Error, 200))
	}
	if cm.Kind != "codemodel" || !replyName.MatchString(cm.JSONFile) {
		return "", errors.New("the file API reply index names no codemodel file")
	}
	return cm.JSONFile, nil
}

// codemodel is what the targets are judged against: the top-level source and build
// directories (absolute, clean, inside the repository) and the target objects' files.
type codemodel struct {
	source, build string
	targets       []string
}

// parseCodemodel reads a codemodel-v2 object: its paths, which must lie inside the
// repository (or be it), and the target files of every configuration, deduplicated
// and bounded.
func parseCodemodel(data []byte, repoDir string) (codemodel, error) {
	var doc struct {
		Paths struct {
			Source string `json:"source"`
			Build  string `json:"build"`
		} `json:"paths"`
		Configurations []struct {
			Targets []struct {
				JSONFile string `json:"jsonFile"`
			} `json:"targets"`
		} `json:"configurations"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return codemodel{}, fmt.Errorf("the file API codemodel is not JSON: %w", err)
	}
	cm := codemodel{source: path.Clean(doc.Paths.Source), build: path.Clean(doc.Paths.Build)}
	for _, p := range []string{cm.source, cm.build} {
		if !path.IsAbs(doc.Paths.Source) || !path.IsAbs(doc.Paths.Build) || (p != repoDir && !inRepo(repoDir, p)) {
			return codemodel{}, fmt.Errorf("the file API codemodel's directory %q is outside the repository", excerpt.Head(p, 200))
		}
	}
	for _, c := range doc.Configurations {
		for _, t := range c.Targets {
			if !replyName.MatchString(t.JSONFile) || slices.Contains(cm.targets, t.JSONFile) {
				continue
			}
			if len(cm.targets) == maxAPITargets {
				return codemodel{}, fmt.Errorf("the file API codemodel names more than %d targets", maxAPITargets)
			}
			cm.targets = append(cm.targets, t.JSONFile)
		}
	}
	return cm, nil
}

// apiTarget is the part of a codemodel-v2 target object the choice reads.
type apiTarget struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Imported  bool   `json:"imported"`
	Artifacts []struct {
		Path string `json:"path"`
	} `json:"artifacts"`
	Sources []struct {
		Path              string `json:"path"`
		CompileGroupIndex *int   `json:"compileGroupIndex"`
		IsGenerated       bool   `json:"isGenerated"`
	} `json:"sources"`
}

// targetTestPrograms returns the artifacts of a target object that is one of the
// package's test programs (see [testTarget]), resolved against the build directory;
// an artifact path outside the repository is dropped.
func targetTestPrograms(data []byte, cm codemodel, repoDir string) []string {
	var t apiTarget
	if json.Unmarshal(data, &t) != nil {
		return nil
	}
	if ok, _ := testTarget(t, cm, repoDir); !ok {
		return nil
	}
	var out []string
	for _, a := range t.Artifacts {
		if p, ok := resolve(cm.build, a.Path); ok && inRepo(repoDir, p) && !InStage(repoDir, p) {
			out = append(out, p)
		}
	}
	return out
}

// testTarget decides whether a target is one of the package's test programs: an
// executable, not imported, at least one of whose compiled sources is the package's
// own (not generated, inside the source tree, outside the build directory), every
// such source lying in a test directory of the package and none in a vendored
// project's. Sources that are not compiled (headers listed for IDEs) do not count:
// a test lists the library's headers it tests. why says why a target is not one.
func testTarget(t apiTarget, cm codemodel, repoDir string) (ok bool, why string) {
	if t.Type != "EXECUTABLE" || t.Imported {
		return false, "not a built executable"
	}
	own := 0
	for _, s := range t.Sources {
		if s.CompileGroupIndex == nil || s.IsGenerated {
			continue
		}
		p, ok := resolve(cm.source, s.Path)
		switch {
		case !ok || !inRepo(repoDir, p):
			return false, "a source outside the repository"
		case p == cm.build || strings.HasPrefix(p, cm.build+"/") || InStage(repoDir, p):
			return false, "a source in the build directory"
		case vendored(repoDir, p):
			return false, "a source of a vendored project"
		case !inTestDir(repoDir, p):
			return false, "a source outside the test directories"
		}
		own++
	}
	if own == 0 {
		return false, "no compiled source of the package's own"
	}
	return true, ""
}

// resolve makes a reply path absolute against base (paths in the reply are relative
// to the top-level source or build directory unless absolute) and cleans it; false
// for an empty path or one with a control character.
func resolve(base, p string) (string, bool) {
	if p == "" || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", false
	}
	if !path.IsAbs(p) {
		p = base + "/" + p
	}
	return path.Clean(p), true
}

// inRepo reports whether the clean absolute path p lies below the repository.
func inRepo(repoDir, p string) bool {
	return strings.HasPrefix(p, repoDir+"/")
}

// inTestDir reports whether a source below the repository lies in one of its test
// directories: a directory between the repository and the file that the repair
// rules' purpose words call tests (test/, tests/, unittests/, ...).
func inTestDir(repoDir, p string) bool {
	rel := strings.TrimPrefix(p, repoDir+"/")
	for _, d := range strings.Split(path.Dir(rel), "/") {
		if d != "." && repair.Purpose(d) == repair.PurposeTests {
			return true
		}
	}
	return false
}
