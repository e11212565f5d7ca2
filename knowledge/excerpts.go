package knowledge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/beneath"
)

// Bounds of ErrorExcerpts.
const (
	excerptMaxFiles     = 3
	excerptMaxRefs      = 3 // referenced lines per file
	excerptContext      = 4 // lines before and after a referenced line
	excerptMaxLineBytes = 200
	excerptBudget       = 6000
	excerptLogTail      = 1 << 20 // only the last MiB of a log is read
	excerptMaxFileBytes = 4 << 20
	excerptSearchFiles  = 50000 // files walked to find a reference by its base name
	excerptMaxLookups   = 200   // distinct references resolved per log
)

var reFileRef = regexp.MustCompile(`((?:[A-Za-z0-9_.+\-]*/)*(?:[A-Za-z0-9_+\-][A-Za-z0-9_.+\-]*\.(?:c|h|cc|cpp|cxx|hpp|hh|hxx|inl|ipp|inc|S|s|asm|go|rs|m|mm|cmake|ac|am|in|mk|build|txt|y|l|mod|work|toml)|Makefile|GNUmakefile|makefile)):([0-9]{1,7})\b`)

// fileRefs is the referenced lines of one resolved file, in order of appearance.
type fileRefs struct {
	rel   string
	lines []int
}

// ErrorExcerpts returns numbered source lines around the file:line references of a build
// log (compiler errors, CMake and make errors, Go and Rust diagnostics), for up to 3 files
// of the repository at root. Paths are resolved inside the repository only: absolute
// sandbox paths are matched by their trailing components, and a path or symbolic link
// that leads out of the repository is refused. The log is untrusted text; the result is
// bounded in size. It returns "" when the log names no readable repository file.
func ErrorExcerpts(log, root string) string {
	if len(log) > excerptLogTail {
		log = log[len(log)-excerptLogTail:]
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return ""
	}
	defer r.Close()
	d, err := beneath.OpenDir(root)
	if err != nil {
		return ""
	}
	defer d.Close()
	res := &resolver{root: r, dir: d}
	var refs []*fileRefs
	seenRef := map[string]bool{}
	for _, loc := range reFileRef.FindAllStringSubmatchIndex(log, -1) {
		if len(refs) == excerptMaxFiles && allFull(refs) {
			break
		}
		if outsideRepoPath(log, loc[2], loc[3]) {
			continue
		}
		file, num := log[loc[2]:loc[3]], log[loc[4]:loc[5]]
		line, err := strconv.Atoi(num)
		if err != nil || line <= 0 {
			continue
		}
		key := file + ":" + num
		if seenRef[key] {
			continue
		}
		seenRef[key] = true
		if len(seenRef) > excerptMaxLookups {
			break
		}
		rel, ok := res.resolve(file)
		if !ok {
			continue
		}
		var fr *fileRefs
		for _, x := range refs {
			if x.rel == rel {
				fr = x
			}
		}
		if fr == nil {
			if len(refs) == excerptMaxFiles {
				continue
			}
			fr = &fileRefs{rel: rel}
			refs = append(refs, fr)
		}
		if len(fr.lines) < excerptMaxRefs && !containsInt(fr.lines, line) {
			fr.lines = append(fr.lines, line)
		}
	}
	var b strings.Builder
	for _, fr := range refs {
		text := excerpt(d, fr)
		if text == "" {
			continue
		}
		if b.Len()+len(text) > excerptBudget {
			if rest := excerptBudget - b.Len(); rest > 200 {
				b.WriteString(cut(text, rest-40))
				b.WriteString("\n")
			}
			break
		}
		b.WriteString(text)
	}
	return b.String()
}

// foreignPathParts mark a log path in the toolchain's or a dependency cache's files
// (system headers, the Go module cache, Cargo's registry, the Rust standard library),
// never in the repository, even when its trailing components match a repository file.
var foreignPathParts = []string{
	"/usr/include/", "/usr/lib/", "/usr/local/", "/usr/share/", "/pkg/mod/", "/.cargo/",
	"/.rustup/", "/rustc/",
}

// outsideRepoPath reports whether the path at log[start:end] belongs to the toolchain or a
// dependency cache. The path is taken back to the start of its word, since the reference
// pattern does not match every path character (golang.org/x/sys@v0.30.0/unix/...).
func outsideRepoPath(log string, start, end int) bool {
	i := start
	for i > 0 && !strings.ContainsRune(" \t\r\n'\"`(<[=,", rune(log[i-1])) {
		i--
	}
	if strings.Contains(log[i:start], "@") {
		return true // module@version: a Go module cache path
	}
	word := "/" + log[i:end]
	for _, p := range foreignPathParts {
		if strings.Contains(word, p) {
			return true
		}
	}
	return false
}

func allFull(refs []*fileRefs) bool {
	for _, r := range refs {
		if len(r.lines) < excerptMaxRefs {
			return false
		}
	}
	return true
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// resolver maps log paths to repository files.
type resolver struct {
	root  *os.Root            // walks and stats
	dir   *beneath.Dir        // reads: regular files only
	index map[string][]string // base name -> repository paths, built on first use
}

// resolve returns the repository path a log path names, or false. It tries the path
// itself, then drops leading components (absolute sandbox paths, ../ from a build
// directory, a versioned top directory), then a unique file of that base name.
func (r *resolver) resolve(p string) (string, bool) {
	p = strings.TrimPrefix(p, "./")
	parts := strings.Split(path.Clean("/" + p)[1:], "/")
	for i := 0; i < len(parts) && i < 12; i++ {
		cand := strings.Join(parts[i:], "/")
		if r.isFile(cand) {
			return cand, true
		}
	}
	base := parts[len(parts)-1]
	if r.index == nil {
		r.buildIndex()
	}
	var match []string
	for _, c := range r.index[base] {
		if strings.HasSuffix("/"+p, "/"+c) || strings.HasSuffix("/"+c, "/"+strings.Join(parts, "/")) {
			match = append(match, c)
		}
	}
	if len(match) == 1 {
		return match[0], true
	}
	return "", false
}

func (r *resolver) isFile(rel string) bool {
	if rel == "" || rel == "." || strings.HasPrefix(rel, "../") || rel == ".." {
		return false
	}
	fi, err := r.root.Stat(rel) // os.Root refuses paths and links that leave the root
	return err == nil && fi.Mode().IsRegular()
}

func (r *resolver) buildIndex() {
	r.index = map[string][]string{}
	n := 0
	_ = fs.WalkDir(r.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if skipDirs[d.Name()] && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		n++
		if n > excerptSearchFiles {
			return fs.SkipAll
		}
		if d.Type().IsRegular() {
			r.index[d.Name()] = append(r.index[d.Name()], p)
		}
		return nil
	})
}

// excerpt renders the numbered lines around the referenced lines of one file.
func excerpt(dir *beneath.Dir, fr *fileRefs) string {
	// A regular file only (a FIFO is refused before it is opened), its first
	// excerptMaxFileBytes read.
	f, err := dir.Open(context.Background(), fr.rel, beneath.FollowInside, beneath.Bound{Kind: "source file", Max: -1})
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f.Section(), excerptMaxFileBytes))
	if err != nil || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return "" // unreadable or binary
	}
	want := map[int]bool{}
	marked := map[int]bool{}
	for _, l := range fr.lines {
		marked[l] = true
		for i := l - excerptContext; i <= l+excerptContext; i++ {
			if i > 0 {
				want[i] = true
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s (error at line %s) ---\n", fr.rel, joinInts(fr.lines))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), excerptMaxFileBytes)
	n, prev, wrote := 0, 0, false
	for sc.Scan() {
		n++
		if !want[n] {
			continue
		}
		if prev != 0 && n != prev+1 {
			b.WriteString("  ...\n")
		}
		prev = n
		line := strings.ToValidUTF8(sc.Text(), "?")
		if len(line) > excerptMaxLineBytes {
			line = strings.ToValidUTF8(line[:excerptMaxLineBytes], "") + " [...]"
		}
		mark := " "
		if marked[n] {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s%5d | %s\n", mark, n, line)
		wrote = true
	}
	if !wrote {
		return ""
	}
	return b.String()
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
