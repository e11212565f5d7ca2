package verify

import "regexp"

// A fix can make a build pass without porting anything: a new main() that replaces the
// program, or a build file that no longer compiles the package. Such files are stubs:
// the fix step records them as written and [Port] refuses a port with any.

var (
	entryPoint  = regexp.MustCompile(`(?m)^\s*(int|void)\s+main\s*\(|^func main\(\)|^\s*fn main\(\)`)
	compileRule = regexp.MustCompile(`(?i)\$\(CC\)|\$\(CXX\)|\bgcc\b|\bcc\b|\.c\b|\.o\b|add_library|add_executable|library\(|executable\(|\[lib\]|\[\[bin\]\]`)
	sourceFile  = regexp.MustCompile(`\.(c|cc|cpp|cxx|go|rs)$`)
	buildFile   = regexp.MustCompile(`(^|/)(Makefile|GNUmakefile|makefile|CMakeLists\.txt|meson\.build|Cargo\.toml)$`)
)

// IsStub reports whether a file a fix writes at path p with content is one a fix must
// not write: a new (isNew) C, C++, Go or Rust source file that defines an entry point,
// or a build file (Makefile, CMakeLists.txt, meson.build, Cargo.toml) that compiles
// nothing.
func IsStub(p, content string, isNew bool) bool {
	switch {
	case sourceFile.MatchString(p):
		return isNew && entryPoint.MatchString(content)
	case buildFile.MatchString(p):
		return !compileRule.MatchString(content)
	}
	return false
}
