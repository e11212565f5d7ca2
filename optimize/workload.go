package optimize

import (
	"io/fs"
	"path"
	"regexp"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/eclipse-atesor/atesor-go"
)

// Workload is what performance mode times: a command run in a variant's package
// directory, and how its output is checked.
type Workload struct {
	// Source is where it came from (atesor.WorkloadProgram, ...).
	Source string
	// Command is the command line, run in the package directory of each variant.
	Command string
	Mode    CheckMode
	// Harness is the agent's harness, written into each variant and built by Prepare.
	Harness *atesor.Harness
	// Prepare builds the harness in a variant's directory after the variant's build.
	Prepare string
}

var (
	benchWord = regexp.MustCompile(`(?i)bench`)
	plainFlag = regexp.MustCompile(`^--?[A-Za-z][A-Za-z0-9-]*$`)
)

// BenchmarkFlag finds a program's own benchmark flag in its help text: the option on a
// line that mentions a benchmark: -b, -B or a long option naming a benchmark (--bench,
// --benchmark); a trailing # or =ARG is dropped. It returns "" when the help lists none.
func BenchmarkFlag(help string) string {
	for _, line := range strings.Split(help, "\n") {
		if !benchWord.MatchString(line) {
			continue
		}
		for _, f := range strings.Fields(strings.ReplaceAll(line, ",", " ")) {
			if !strings.HasPrefix(f, "-") || f == "-" || f == "--" {
				continue
			}
			flag := strings.TrimRight(f, "#:.")
			if i := strings.IndexAny(flag, "=[<#"); i > 0 {
				flag = flag[:i]
			}
			if plainFlag.MatchString(flag) && (flag == "-b" || flag == "-B" || benchWord.MatchString(flag)) {
				return flag
			}
			break // the line's first option is not a benchmark flag
		}
	}
	return ""
}

// benchTarget returns the make target of a package benchmark (bench, benchmark,
// benchmarks) in its top-level Makefile, or "".
func benchTarget(tree fs.FS) string {
	for _, mk := range []string{"Makefile", "GNUmakefile", "makefile"} {
		b, err := fs.ReadFile(tree, mk)
		if err != nil {
			continue
		}
		for _, t := range []string{"bench", "benchmark", "benchmarks"} {
			if regexp.MustCompile(`(?m)^` + t + `\s*:`).Match(b) {
				return t
			}
		}
	}
	return ""
}

// relProgram is a program's path relative to the package directory (./programs/lz4).
func relProgram(repoDir, p string) string {
	if strings.HasPrefix(p, repoDir+"/") {
		return "./" + strings.TrimPrefix(p, repoDir+"/")
	}
	return p
}

// harnessWorkload is the command that builds and the command that runs a harness in a
// package directory, for library lib (a repository-relative path) and package module
// (Go) or crate (Rust).
func harnessWorkload(h *atesor.Harness, lib string) (prepare, run string) {
	const bin = "./.atesor-bench"
	switch HarnessLanguage(h.Language) {
	case "c", "cpp":
		cc, flags := "cc", "$CFLAGS"
		if HarnessLanguage(h.Language) == "cpp" {
			cc, flags = "c++", "$CXXFLAGS"
		}
		dir := path.Dir(lib)
		link := shQuote(lib)
		if strings.Contains(path.Base(lib), ".so") {
			link += " -Wl,-rpath," + shQuote("$PWD/"+dir)
		}
		prepare = cc + " -O2 " + flags + " -I. -Iinclude -Ilib -Isrc -I" + shQuote(dir) + " -o " + bin + " " + shQuote(h.Filename) + " " + link + " $LDFLAGS -lm"
		return prepare, bin
	case "go":
		d := path.Dir(h.Filename)
		return "", "go test -run '^$' -bench '^BenchmarkAtesor$' -benchtime 1x -count 1 ./" + d
	case "rust":
		name := strings.TrimSuffix(path.Base(h.Filename), ".rs")
		return "cargo build --release --example " + name, "cargo run --release --example " + name
	}
	return "", ""
}

func shQuote(s string) string {
	if strings.HasPrefix(s, "$PWD/") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var (
	crateName = regexp.MustCompile(`(?ms)^\[package\][^\[]*?^name\s*=\s*"([^"]+)"`)
)

// ModulePath returns the Go module path of the tree's go.mod, or "".
func ModulePath(tree fs.FS) string {
	b, err := fs.ReadFile(tree, "go.mod")
	if err != nil {
		return ""
	}
	return modfile.ModulePath(b)
}

// CrateName returns the package name of the tree's Cargo.toml, or "".
func CrateName(tree fs.FS) string {
	b, err := fs.ReadFile(tree, "Cargo.toml")
	if err != nil {
		return ""
	}
	if m := crateName.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}
