package knowledge

import (
	"path"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// A Go build of ./... builds every package directory of the tree, and stops when one of
// them cannot be built as a package: an examples directory of several one-file
// programs (each "package main" with its own main, run alone with go run FILE) is the
// usual one. Such a build names its packages one by one instead, the directories left
// out missing from the list ([WithGoPackages]); the tests and the install step then
// build the same list ([GoPlanPackages]).

// goPackageCommands are the go subcommands whose arguments are packages, and whether
// they build tests.
var goPackageCommands = map[string]bool{"build": false, "install": false, "vet": false, "list": false, "test": true}

// goValueFlags are the go command's build flags that take their value as the next word.
var goValueFlags = map[string]bool{"-o": true, "-C": true, "-p": true, "-tags": true, "-ldflags": true, "-gcflags": true,
	"-asmflags": true, "-mod": true, "-modfile": true, "-overlay": true, "-pkgdir": true, "-toolexec": true, "-exec": true,
	"-run": true, "-skip": true, "-timeout": true, "-count": true, "-bench": true, "-coverprofile": true, "-coverpkg": true,
	"-covermode": true, "-cpu": true, "-parallel": true, "-f": true, "-buildmode": true, "-compiler": true, "-installsuffix": true}

// goPackageArg is one package argument of a go command of a line.
type goPackageArg struct {
	test bool // the go command builds tests (go test)
	word shellwords.Word
}

// goPackageArgs returns the package arguments of the go commands of line: the words
// after go build, install, vet, list or test that are not flags or flag values.
func goPackageArgs(line string) []goPackageArg {
	f, err := shellwords.Parse(line)
	if err != nil {
		return nil
	}
	var out []goPackageArg
	for _, c := range shellwords.Commands(f) {
		i := c.Program()
		if i < 0 || c.Name() != "go" || i+1 >= len(c.Words) {
			continue
		}
		test, ok := goPackageCommands[c.Words[i+1].Value]
		if !ok {
			continue
		}
		for j := i + 2; j < len(c.Words); j++ {
			w := c.Words[j]
			if test && (w.Value == "-args" || w.Value == "--args") {
				break // the test binary's arguments follow
			}
			if strings.HasPrefix(w.Value, "-") {
				if goValueFlags[w.Value] {
					j++
				}
				continue
			}
			out = append(out, goPackageArg{test: test, word: w})
		}
	}
	return out
}

// WithGoPackages replaces the ./... pattern of the go commands of line with the package
// lists: build for go build, install, vet and list, test for go test (a directory of
// only _test.go files is a package to go test, and an error to go build). Each list
// entry is a directory relative to the command's directory: "." or "./dir". Other
// patterns and lines are kept.
func WithGoPackages(line string, build, test []string) string {
	var reps []shellwords.Replacement
	for _, a := range goPackageArgs(line) {
		if !a.word.Plain || a.word.Value != "./..." {
			continue
		}
		list := build
		if a.test {
			list = test
		}
		if len(list) == 0 {
			continue
		}
		reps = append(reps, shellwords.Replacement{Start: a.word.Start, End: a.word.End, Text: goPackageWords(list)})
	}
	return shellwords.Apply(line, reps)
}

// goPackageWords is a package list as words of a command line.
func goPackageWords(list []string) string {
	words := make([]string, len(list))
	for i, d := range list {
		words[i] = shellQuoteArg(d)
	}
	return strings.Join(words, " ")
}

// GoPackageDir is the package argument for directory dir of the module ("" or "." is
// the module's root): "." or "./dir".
func GoPackageDir(dir string) string {
	dir = path.Clean("/" + dir)[1:]
	if dir == "" {
		return "."
	}
	return "./" + dir
}

// GoPlanPackages returns the package lists of a plan whose go commands name their
// packages one by one in place of ./... (see [WithGoPackages]): build is the first go
// build's list, test the first go test's. ok is false when a go command of the plan
// still builds a ... pattern or no go test names a list: the plan builds the whole
// tree, and lines built from it keep their ./... (a plan that builds only its commands,
// with no go test, says nothing about which packages the tests cover).
func GoPlanPackages(plan *atesor.BuildPlan) (build, test []string, ok bool) {
	if plan == nil {
		return nil, nil, false
	}
	for _, c := range plan.Commands() {
		var b, t []string
		for _, a := range goPackageArgs(c) {
			if !a.word.Static || strings.Contains(a.word.Value, "...") {
				return nil, nil, false
			}
			if a.word.Value != "." && !strings.HasPrefix(a.word.Value, "./") {
				continue // an import path: not a directory of the tree
			}
			if a.test {
				t = append(t, a.word.Value)
			} else {
				b = append(b, a.word.Value)
			}
		}
		if build == nil && len(b) > 0 {
			build = b
		}
		if test == nil && len(t) > 0 {
			test = t
		}
	}
	return build, test, len(test) > 0
}

// goListHasCommand reports whether a package list holds one of the module's commands
// (Detection.GoCommands, directories relative to the module).
func goListHasCommand(list, commands []string) bool {
	return slices.ContainsFunc(commands, func(c string) bool { return slices.Contains(list, GoPackageDir(c)) })
}
