package knowledge

import (
	"bytes"
	"cmp"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/module"
)

// Go code written before modules (GOPATH-era code, much of what Debian packages as
// golang-*) has no go.mod: the go command in module mode refuses it ("go.mod file not
// found in current directory or any parent directory"). Debian's dh-golang builds such
// a source under the import path of its Go-Import-Path field; a port gives it a go.mod
// with that path (go mod init), or with the path of the package clause's import comment.

// goPathTree is a tree of Go packages with no go.mod.
type goPathTree struct {
	// evidence is the shallowest Go package file, relative to the root.
	evidence string
	// modulePath is the module path the import comments give, and from where.
	modulePath, from string
	// buildsC is true when the tree has C or C++ sources outside its Go package
	// directories (cgo's sources sit beside the Go files that use them) or a Makefile
	// that sets up GOPATH mode itself: then a Makefile is more than the Go build.
	buildsC bool
}

// cCompiledExt are the extensions of sources a C or C++ build compiles.
var cCompiledExt = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true}

// reMakeGoPath finds a Makefile that builds Go code its own way without modules: it
// sets GOPATH or GO111MODULE, or makes the go.mod itself.
var reMakeGoPath = regexp.MustCompile(`(?m)\b(GOPATH|GO111MODULE)\s*[:?+]?=|\bgo\s+mod\s+init\b`)

// findGoPathTree reports the tree's Go packages when the tree has Go package files
// (outside vendor, testdata, _ and . directories) and no go.mod at all.
func findGoPathTree(t *tree) (goPathTree, bool) {
	var goFiles []string
	goDirs := map[string]bool{}
	var cDirs []string
	for _, e := range t.files {
		if e.dir || skipGoPath(e.rel, "", nil) {
			continue
		}
		switch {
		case path.Base(e.rel) == "go.mod":
			return goPathTree{}, false
		case strings.HasSuffix(e.rel, ".go"):
			goDirs[path.Dir(e.rel)] = true
			if !strings.HasSuffix(e.rel, "_test.go") {
				goFiles = append(goFiles, e.rel)
			}
		case cCompiledExt[strings.ToLower(path.Ext(e.rel))] && !inNoiseDir(e.rel):
			cDirs = append(cDirs, path.Dir(e.rel))
		}
	}
	slices.SortFunc(goFiles, func(a, b string) int {
		return cmp.Or(cmp.Compare(depth(a), depth(b)), cmp.Compare(a, b))
	})
	var g goPathTree
	fset := token.NewFileSet()
	for _, f := range goFiles {
		src, err := t.read(f, maxReadBytes)
		if err != nil {
			continue
		}
		if pf, err := parser.ParseFile(fset, f, src, parser.PackageClauseOnly); err != nil || pf.Name == nil {
			continue
		}
		if g.evidence == "" {
			g.evidence = f
		}
		if g.modulePath != "" {
			break
		}
		if mod, ok := moduleOfImportComment(f, src); ok {
			g.modulePath, g.from = mod, "the import comment of "+f
		}
	}
	if g.evidence == "" {
		return goPathTree{}, false
	}
	for _, d := range cDirs {
		if !goDirs[d] {
			g.buildsC = true
		}
	}
	for _, name := range []string{"GNUmakefile", "Makefile", "makefile"} {
		if t.isFile(name) && reMakeGoPath.MatchString(stripLineComments(t.readString(name), "#")) {
			g.buildsC = true
		}
	}
	return g, true
}

// moduleOfImportComment is the module path of a tree whose file rel (a path relative to
// the tree's root) carries an import comment: the comment's path without the file's
// directory (difflib/difflib.go with import "github.com/pmezard/go-difflib/difflib"
// belongs to github.com/pmezard/go-difflib). A comment whose path does not end in the
// file's directory says nothing about the tree's root.
func moduleOfImportComment(rel string, src []byte) (string, bool) {
	p, ok := ImportComment(src)
	if !ok {
		return "", false
	}
	dir := path.Dir(rel)
	if dir == "." {
		return p, true
	}
	mod, ok := strings.CutSuffix(p, "/"+dir)
	if !ok || module.CheckImportPath(mod) != nil {
		return "", false
	}
	return mod, true
}

// ImportComment returns the path of a Go file's import comment, the GOPATH-era way of
// naming a package's canonical import path on its package clause:
//
//	package errors // import "github.com/pkg/errors"
//	package errors /* import "github.com/pkg/errors" */
//
// Comments and blank lines may come before the package clause, as in any Go file; the
// comment must follow the package name on the clause's line. The path must be a valid
// import path. It reads only the text up to the end of the clause's line.
func ImportComment(src []byte) (string, bool) {
	rest := skipGoPreamble(src)
	kw, ok := bytes.CutPrefix(rest, []byte("package"))
	if !ok || len(kw) == 0 || (kw[0] != ' ' && kw[0] != '\t') {
		return "", false
	}
	kw = bytes.TrimLeft(kw, " \t")
	name := 0
	for name < len(kw) && isGoIdentByte(kw[name]) {
		name++
	}
	if name == 0 || kw[0] >= '0' && kw[0] <= '9' {
		return "", false
	}
	after := kw[name:]
	if len(after) == 0 || (after[0] != ' ' && after[0] != '\t') {
		return "", false
	}
	after = bytes.TrimLeft(after, " \t")
	var text []byte
	switch {
	case bytes.HasPrefix(after, []byte("//")):
		text, _, _ = bytes.Cut(after[2:], []byte("\n"))
	case bytes.HasPrefix(after, []byte("/*")):
		var found bool
		text, _, found = bytes.Cut(after[2:], []byte("*/"))
		if !found || bytes.ContainsRune(text, '\n') {
			return "", false
		}
	default:
		return "", false
	}
	text = bytes.TrimSpace(text)
	q, ok := bytes.CutPrefix(text, []byte("import"))
	if !ok || len(q) == 0 || (q[0] != ' ' && q[0] != '\t') {
		return "", false
	}
	q = bytes.TrimSpace(q)
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	p, err := strconv.Unquote(string(q))
	if err != nil || module.CheckImportPath(p) != nil {
		return "", false
	}
	return p, true
}

// skipGoPreamble skips the white space and comments before a Go file's first token.
func skipGoPreamble(src []byte) []byte {
	for {
		src = bytes.TrimLeft(src, " \t\r\n\ufeff")
		switch {
		case bytes.HasPrefix(src, []byte("//")):
			_, rest, found := bytes.Cut(src, []byte("\n"))
			if !found {
				return nil
			}
			src = rest
		case bytes.HasPrefix(src, []byte("/*")):
			_, rest, found := bytes.Cut(src[2:], []byte("*/"))
			if !found {
				return nil
			}
			src = rest
		default:
			return src
		}
	}
}

// isGoIdentByte reports an ASCII byte of a Go identifier; a package name with other
// letters is rare enough that such a file gives no import comment.
func isGoIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
