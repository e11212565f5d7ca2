package graph

import (
	"context"
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// testPrograms reads the build-system metadata that names test programs: ctest's JSON
// test list, meson's test introspection and automake's check_PROGRAMS. It returns the
// sandbox paths the metadata names and which metadata answered.
func (r *run) testPrograms(ctx context.Context, s *atesor.State) (map[string]bool, []string) {
	progs := map[string]bool{}
	var from []string
	add := func(name string, paths []string) {
		if len(paths) == 0 {
			return
		}
		from = append(from, name)
		for _, p := range paths {
			progs[p] = true
		}
	}
	if dir, err := r.findBuildDir(ctx, s, "-type f -name CTestTestfile.cmake"); err == nil {
		res, err := r.sb.Exec(ctx, atesor.Command{Line: "ctest --show-only=json-v1", Dir: path.Join(s.RepoDir, dir), Timeout: 2 * time.Minute})
		if err == nil && res.OK() {
			add("ctest", CTestPrograms([]byte(res.Stdout), s.RepoDir))
		}
	}
	if dir, err := r.findBuildDir(ctx, s, "-type d -name meson-info"); err == nil {
		res, err := r.sb.Exec(ctx, atesor.Command{Line: "meson introspect --tests " + shellQuote(dir), Dir: s.RepoDir, Timeout: 2 * time.Minute})
		if err == nil && res.OK() {
			add("meson", MesonTestPrograms([]byte(res.Stdout), s.RepoDir))
		}
	}
	add("automake", automakeTestPrograms(ctx, r.hostTree, s.RepoDir))
	return progs, from
}

// CTestPrograms returns the programs of ctest's JSON test list (ctest
// --show-only=json-v1): each test command's absolute paths inside the repository.
func CTestPrograms(data []byte, repoDir string) []string {
	var doc struct {
		Tests []struct {
			Command []string `json:"command"`
		} `json:"tests"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	for _, t := range doc.Tests {
		out = appendRepoPaths(out, t.Command, repoDir)
	}
	return out
}

// MesonTestPrograms returns the programs of meson's test introspection (meson
// introspect --tests): each test command's absolute paths inside the repository.
func MesonTestPrograms(data []byte, repoDir string) []string {
	var tests []struct {
		Cmd []string `json:"cmd"`
	}
	if json.Unmarshal(data, &tests) != nil {
		return nil
	}
	var out []string
	for _, t := range tests {
		out = appendRepoPaths(out, t.Cmd, repoDir)
	}
	return out
}

func appendRepoPaths(out, words []string, repoDir string) []string {
	for _, w := range words {
		if !strings.HasPrefix(w, repoDir+"/") {
			continue
		}
		p := path.Clean(w)
		if strings.HasPrefix(p, repoDir+"/") && !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// automakeTestPrograms reads check_PROGRAMS from every Makefile.am of the host tree and
// returns where an in-tree build puts those programs. The tree is the source's copy,
// which the package wrote: its files are read through the gate (a Makefile.am that is a
// link to /dev/zero or a FIFO is refused, not read without end).
func automakeTestPrograms(ctx context.Context, hostTree, repoDir string) []string {
	if hostTree == "" {
		return nil
	}
	fsys := sandbox.TreeFS(ctx, hostTree, sandbox.BoundMetadata)
	var out []string
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == stageDirName) {
			return fs.SkipDir
		}
		if d.IsDir() || d.Name() != "Makefile.am" || !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		for _, name := range CheckPrograms(string(data)) {
			out = append(out, path.Join(repoDir, path.Dir(p), name))
		}
		return nil
	})
	return out
}

// CheckPrograms returns the program names a Makefile.am lists in check_PROGRAMS
// (conditional and += assignments included, continuation lines joined, $(EXEEXT) and
// variable references dropped).
func CheckPrograms(makefileAm string) []string {
	text := strings.ReplaceAll(makefileAm, "\\\r\n", " ")
	text = strings.ReplaceAll(text, "\\\n", " ")
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(name, "+"), ":"))
		if name != "check_PROGRAMS" {
			continue
		}
		for _, w := range strings.Fields(value) {
			w = strings.ReplaceAll(w, "$(EXEEXT)", "")
			if w == "" || strings.ContainsAny(w, "$()@") || strings.Contains(w, "..") {
				continue
			}
			w = path.Clean(w)
			if !strings.HasPrefix(w, "/") && !contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}
