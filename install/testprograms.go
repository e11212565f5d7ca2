package install

import (
	"context"
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// testPrograms reads the build-system metadata that names test programs: ctest's JSON
// test list, meson's test introspection and automake's check_PROGRAMS. It returns the
// sandbox paths the metadata names and which metadata answered.
func testPrograms(ctx context.Context, sb Execer, repoDir, hostTree string) (map[string]bool, []string) {
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
	if dir, err := findBuildDir(ctx, sb, repoDir, "-type f -name CTestTestfile.cmake"); err == nil {
		res, err := sb.Exec(ctx, atesor.Command{Line: "ctest --show-only=json-v1", Dir: path.Join(repoDir, dir), Timeout: 2 * time.Minute})
		if err == nil && res.OK() {
			add("ctest", ctestPrograms([]byte(res.Stdout), repoDir))
		}
	}
	if dir, err := findBuildDir(ctx, sb, repoDir, "-type d -name meson-info"); err == nil {
		res, err := sb.Exec(ctx, atesor.Command{Line: "meson introspect --tests " + shellwords.Quote(dir), Dir: repoDir, Timeout: 2 * time.Minute})
		if err == nil && res.OK() {
			add("meson", mesonTestPrograms([]byte(res.Stdout), repoDir))
		}
	}
	add("automake", automakeTestPrograms(ctx, hostTree, repoDir))
	return progs, from
}

// ctestPrograms returns the programs of ctest's JSON test list (ctest
// --show-only=json-v1): each test command's absolute paths inside the repository.
func ctestPrograms(data []byte, repoDir string) []string {
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

// mesonTestPrograms returns the programs of meson's test introspection (meson
// introspect --tests): each test command's absolute paths inside the repository.
func mesonTestPrograms(data []byte, repoDir string) []string {
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
		if strings.HasPrefix(p, repoDir+"/") && !slices.Contains(out, p) {
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
		for _, name := range checkPrograms(string(data)) {
			out = append(out, path.Join(repoDir, path.Dir(p), name))
		}
		return nil
	})
	return out
}

// checkPrograms returns the program names a Makefile.am lists in check_PROGRAMS
// (conditional and += assignments included, continuation lines joined, $(EXEEXT) and
// variable references dropped).
func checkPrograms(makefileAm string) []string {
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
			if !strings.HasPrefix(w, "/") && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}
