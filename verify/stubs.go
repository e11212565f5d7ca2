package verify

import (
	"regexp"

	"github.com/eclipse-atesor/atesor-go/repair"
)

// A fix can make a build pass without porting anything: a new main() that replaces the
// program, or a build file that no longer compiles the package. Such files are stubs:
// the fix step records them as written and [Port] refuses a port with any.

var (
	entryPoint = regexp.MustCompile(`(?m)^\s*(int|void)\s+main\s*\(|^func main\(\)|^\s*fn main\(\)`)
	// meson's library() and executable() are whole words: CMake's find_library()
	// compiles nothing.
	compileRule = regexp.MustCompile(`(?i)\$\(CC\)|\$\(CXX\)|\bgcc\b|\bcc\b|\.c\b|\.o\b|add_library|add_executable|(?:^|[^\w])(?:library|executable)\(|\[lib\]|\[\[bin\]\]`)
	sourceFile  = regexp.MustCompile(`\.(c|cc|cpp|cxx|go|rs)$`)
	buildFile   = regexp.MustCompile(`(^|/)(Makefile|GNUmakefile|makefile|CMakeLists\.txt|meson\.build|Cargo\.toml)$`)
	// noCompileTarget is a CMake target that compiles nothing: an interface, imported
	// or alias library or executable.
	noCompileTarget = regexp.MustCompile(`(?i)\badd_(?:library|executable)\s*\(\s*[^\s)]+\s+(?:(?:STATIC|SHARED|MODULE|OBJECT|UNKNOWN|GLOBAL)\s+)*(?:INTERFACE|IMPORTED|ALIAS)\b`)
)

// IsStub reports whether a file a fix writes at path p with content is one a fix must
// not write: a new (isNew) C, C++, Go or Rust source file that defines an entry point,
// or a build file (Makefile, CMakeLists.txt, meson.build, Cargo.toml) that compiles
// nothing (a CMake target that is an interface, imported or alias one compiles
// nothing). A new CMakeLists.txt that only imports the distribution's copy of a test
// framework for a vendored directory the source lacks ([repair.IsFrameworkImport]), or
// the distribution's copy of a stripped vendored library ([repair.IsLibraryImport]), is
// no stub: the package's own build files still compile it.
func IsStub(p, content string, isNew bool) bool {
	switch {
	case sourceFile.MatchString(p):
		return isNew && entryPoint.MatchString(content)
	case buildFile.MatchString(p):
		if repair.IsFrameworkImport(p, content, isNew) || repair.IsLibraryImport(p, content, isNew) {
			return false
		}
		return !compileRule.MatchString(noCompileTarget.ReplaceAllString(content, ""))
	}
	return false
}
