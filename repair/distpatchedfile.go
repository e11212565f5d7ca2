package repair

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strings"
)

// The distribution-patched-file rule. distribution-patches is tried last, after every
// rule that guesses (a parallel-make race, a feature to turn off, another build
// system) has had its turn, and an offline run has few attempts. When the error itself
// is in a file one of the distribution's patches changes, that is no guess: Debian's
// maintainers met a failure in that very file and carry the fix (unar's includes of a
// directory its repacked tarball strips, wvstreams' std::tr1 under today's GCC). The
// series is then applied before the guessing rules, as the same fix distribution-patches
// makes, so neither applies it twice.

const distPatchedFileRuleName = "distribution-patched-file"

func distributionPatchedFileRule() Rule {
	return Rule{
		Name: distPatchedFileRuleName,
		Doc: "an error in a file the distribution's patch series changes (unar's includes of a directory its repacked tarball strips): " +
			"apply the series before the rules that guess, as distribution-patches would last",
		Categories: distributionCategories,
		Signatures: []*regexp.Regexp{namedSourceFile},
		Packaged:   true,
		Make: func(ctx context.Context, f Failure, env Env) (*Fix, string) {
			named := namedFiles(f.Message)
			if len(named) == 0 {
				return nil, "the error names no source file"
			}
			return distributionPatchesFix(ctx, f, env, named)
		},
	}
}

// sourceExtensions are the extensions of the source, header and build files compilers
// and build tools name in their errors.
const sourceExtensions = `(?:c|cc|cp|cpp|cxx|c\+\+|C|h|hh|hpp|hxx|H|inl|ipp|tcc|m|mm|y|yy|l|ll|S|s|f|f90|F90|go|rs|am|ac|in|txt|cmake|build|pc|mk)`

// namedSourceFile is an output that names such a file; pathToken and sourceFileName
// pick the names out.
var (
	namedSourceFile = re(`[\w+-]\.` + sourceExtensions + `(?:$|[^\w.+/-])`)
	pathToken       = re(`[\w./+-]+`)
	sourceFileName  = re(`^(?:\.{1,2}/|/)?(?:[\w.+-]+/)*[\w+-][\w.+-]*\.` + sourceExtensions + `$`)
)

// namedFiles are the files the error message names, each once, in order; a file under
// /usr or /tmp is the system's or the compiler's, not the package's.
func namedFiles(msg string) []string {
	var out []string
	for _, tok := range pathToken.FindAllString(msg, -1) {
		name := strings.TrimRight(tok, ".")
		if !sourceFileName.MatchString(name) || strings.HasPrefix(name, "/usr/") || strings.HasPrefix(name, "/tmp/") || slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// namesFile reports which of the named files (its index) is the tree's file (a path
// relative to the tree's root, as a patch names it): the same path, or one that ends
// with the other at a directory boundary, since a compiler prints the name relative to
// the directory it runs in (../lib/x.h from src/, x.c in lib/) or absolute in the
// sandbox.
func namesFile(named []string, file string) (int, bool) {
	for i, n := range named {
		rel := path.Clean(n)
		for strings.HasPrefix(rel, "../") {
			rel = rel[len("../"):]
		}
		rel = strings.TrimPrefix(rel, "/")
		if rel == "" || rel == "." || rel == ".." {
			continue
		}
		if rel == file || strings.HasSuffix(file, "/"+rel) || strings.HasSuffix(rel, "/"+file) {
			return i, true
		}
	}
	return -1, false
}
