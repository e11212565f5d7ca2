package repair

import (
	"context"
	"path"
	"regexp"
	"strings"
)

// A makefile often sets its flags in a file it includes: pd-lib-builder's
// Makefile.pdlibbuilder, which every Pure Data library's Makefile includes through
// $(PDLIBBUILDER_DIR), assigns CFLAGS outright. What the plan's make reads is the
// makefile and what it includes, so the rules that ask whether a makefile sets a
// variable read the included files too: the literal names and those whose variables
// the including makefile assigns plainly, relative to make's directory, a bounded number
// deep.

const (
	maxIncludeDepth = 3
	maxIncludeFiles = 16
)

var (
	makeIncludeLine = regexp.MustCompile(`(?m)^[ \t]*-?s?include[ \t]+([^\n#]+)`)
	// plainAssign is a makefile variable assigned a value without functions.
	plainAssign = regexp.MustCompile(`(?m)^[ \t]*(?:override[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*(?:\?=|:=|::=|=)[ \t]*([^\n#$]*?)[ \t]*$`)
	makeVarRef  = regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]`)
)

// withIncludes returns text followed by the makefiles it includes (read from dir
// through read), breadth first, at most maxIncludeFiles files and maxIncludeDepth deep.
func withIncludes(ctx context.Context, read func(context.Context, string) ([]byte, error), dir string, text []byte) [][]byte {
	out := [][]byte{text}
	seen := map[string]bool{}
	level := [][]byte{text}
	for depth := 0; depth < maxIncludeDepth && len(level) > 0; depth++ {
		var next [][]byte
		for _, mk := range level {
			for _, name := range includedFiles(string(mk)) {
				p := path.Join(dir, name)
				if seen[p] || len(out) > maxIncludeFiles || !localName(p) {
					continue
				}
				seen[p] = true
				if b, err := read(ctx, p); err == nil {
					out = append(out, b)
					next = append(next, b)
				}
			}
		}
		level = next
	}
	return out
}

// includedFiles are the file names of a makefile's include lines, its plainly assigned
// variables expanded; a name still holding a reference or a glob is left out.
func includedFiles(mk string) []string {
	vars := map[string]string{}
	for _, m := range plainAssign.FindAllStringSubmatch(mk, -1) {
		if _, ok := vars[m[1]]; !ok {
			vars[m[1]] = m[2]
		}
	}
	var out []string
	for _, m := range makeIncludeLine.FindAllStringSubmatch(mk, -1) {
		for _, w := range strings.Fields(m[1]) {
			w = makeVarRef.ReplaceAllStringFunc(w, func(ref string) string {
				if v, ok := vars[makeVarRef.FindStringSubmatch(ref)[1]]; ok {
					return v
				}
				return ref
			})
			if strings.ContainsAny(w, "$*?[") {
				continue
			}
			out = append(out, path.Clean(w))
		}
	}
	return out
}
