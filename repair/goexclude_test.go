package repair

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// goPathBuild is the GOPATH plan's build line of the real run.
const goPathBuild = `export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && cd .gopath/src/github.com/x-cray/logrus-prefixed-formatter && ` +
	`GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./...`

// goModBuild is the default module plan's build line for a library.
const goModBuild = "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..."

// realGoTree reads a tarball's files under testdata/goexclude/<name>.
func realGoTree(t *testing.T, name string) map[string]string {
	t.Helper()
	root := filepath.Join("testdata", "goexclude", name)
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		tree[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func goTreeEnv(plan *atesor.BuildPlan, tree map[string]string, det *atesor.Detection) Env {
	var files []string
	for f := range tree {
		files = append(files, f)
	}
	slices.Sort(files)
	return Env{Plan: plan, Files: files, Detection: det, RepoDir: "/workspace/pkg",
		ReadFile: func(_ context.Context, rel string) ([]byte, error) {
			if s, ok := tree[rel]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}}
}

func goPathPlan() *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go golang-github-sirupsen-logrus-dev"}},
		{Name: knowledge.GoPathPhase, Commands: []string{"mkdir -p .gopath/src/github.com/x-cray && ln -sfn ../../../.. .gopath/src/github.com/x-cray/logrus-prefixed-formatter"}},
		{Name: "build", Commands: []string{goPathBuild}},
	}}
}

// TestGoExcludeReal runs the rule on the real run's log and tarball, through Claims as
// the graph does: examples/ (two package main programs) leaves the GOPATH plan's go
// build and go test, which then name the root package.
func TestGoExcludeReal(t *testing.T) {
	out := readLog(t, "go-exclude-logrus-prefixed-formatter.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Output: out, Phase: "build", Command: goPathBuild}
	if claims := Claims(f, nil); len(claims) == 0 || claims[0] != "go-exclude" {
		t.Fatalf("claims %v, want go-exclude first", claims)
	}
	det := &atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: ".", GoNoModFile: true, HasMain: true, MainPath: "examples",
		GoModulePath: "github.com/x-cray/logrus-prefixed-formatter"}
	tree := realGoTree(t, "logrus-prefixed-formatter")
	// The tarball's top-level files (only their package clauses matter to the rule).
	tree["formatter.go"], tree["formatter_test.go"] = "package prefixed\n", "package prefixed_test\n"
	tree["logrus_prefixed_formatter_suite_test.go"], tree["Makefile"] = "package prefixed_test\n", "test:\n"
	env := goTreeEnv(goPathPlan(), tree, det)
	fix, why := makeGoExclude(t.Context(), f, env)
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	want := strings.Replace(strings.Replace(goPathBuild, "./...", ".", 1), "./...", ".", 1)
	if d := cmp.Diff(want, fix.Plan.Phases[2].Commands[0]); d != "" {
		t.Errorf("build line (-want +got):\n%s", d)
	}
	if d := cmp.Diff(goPathPlan().Phases[:2], fix.Plan.Phases[:2]); d != "" {
		t.Errorf("other phases changed (-want +got):\n%s", d)
	}
	for _, s := range []string{"examples", "2 package main programs, basic.go, themes.go", "go run examples/basic.go", "DH_GOLANG_EXCLUDES"} {
		if !strings.Contains(fix.Analysis, s) {
			t.Errorf("analysis lacks %q: %s", s, fix.Analysis)
		}
	}
	if err := validate.BuildPlan(fix.Plan); err != nil {
		t.Errorf("the fixed plan is refused: %v", err)
	}
	// Idempotent: the fixed plan run on the same error makes no second fix.
	env.Plan = fix.Plan
	f.Command = fix.Plan.Phases[2].Commands[0]
	if again, why := makeGoExclude(t.Context(), f, env); again != nil || why == "" {
		t.Errorf("second fix %+v (%s), want none", again, why)
	}
	f.Command = goPathBuild
	if again, why := makeGoExclude(t.Context(), f, env); again != nil || !strings.Contains(why, "already name their packages") {
		t.Errorf("second fix %+v (%s), want none", again, why)
	}
	// The tests and the install step build the same list.
	if got := knowledge.WithGoPackages("GOTOOLCHAIN=auto go test -vet=off ./...", []string{"."}, []string{"."}); got != "GOTOOLCHAIN=auto go test -vet=off ." {
		t.Errorf("test line %q", got)
	}
	line, ok := knowledge.GoPathInstallLine(det, fix.Plan, "/s/bin")
	if !ok || !strings.HasSuffix(line, " go build -buildvcs=false .") {
		t.Errorf("install line %q (%t): want the library's build of the root package", line, ok)
	}
}

// TestGoExclude is the rule on synthetic trees: which directories qualify, the lists it
// builds, the module mode, and what it refuses.
func TestGoExclude(t *testing.T) {
	mainFile := "package main\n\nfunc main() {}\n"
	lib := "package lib\n\nfunc F() {}\n"
	tree := map[string]string{
		"go.mod":               "module example.org/lib\n",
		"lib.go":               lib,
		"lib_test.go":          "package lib\n",
		"internal/x/x.go":      "package x\n",
		"onlytests/a_test.go":  "package onlytests\n",
		"win/w_windows.go":     "package win\n",
		"ign/i.go":             "//go:build ignore\n\npackage ign\n",
		"cmd/tool/main.go":     mainFile,
		"cmd/gen/a.go":         mainFile,
		"cmd/gen/b.go":         mainFile,
		"examples/one/main.go": mainFile,
		"docs/snippet.go":      "package docs\n",
		"testdata/t.go":        "package broken\n",
		"vendor/v/v.go":        "package v\n",
		".hidden/h.go":         "package h\n",
		"_old/o.go":            "package o\n",
		"nested/go.mod":        "module example.org/lib/nested\n",
		"nested/n.go":          "package n\n",
		"sub/mod/s.go":         "package s\n",
	}
	det := &atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: "."}
	plan := defaultPlan(goModBuild)
	all := []string{".", "./cmd/gen", "./cmd/tool", "./docs", "./examples/one", "./internal/x", "./sub/mod"}
	without := func(list []string, drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(drop, s) })
	}
	withTests := func(list []string) []string {
		out := append(slices.Clone(list), "./onlytests")
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name, out string
		plan      *atesor.BuildPlan
		command   string
		why       string   // in the analysis, or the reason when none
		build     []string // nil: no fix
	}{
		{"several mains in cmd/gen", "# example.org/lib/cmd/gen\ncmd/gen/b.go:3:6: main redeclared in this block\n\tcmd/gen/a.go:3:6: other declaration of main\n",
			plan, goModBuild, "2 package main programs, a.go, b.go", without(all, "./cmd/gen")},
		{"an example with an old API", "# example.org/lib/examples/one\nexamples/one/main.go:3:2: undefined: lib.Old\n",
			plan, goModBuild, "examples/one (the package's examples)", without(all, "./examples/one")},
		{"two directories", "# example.org/lib/docs\n./docs/snippet.go:1:1: x\n# example.org/lib/cmd/gen\ncmd/gen/b.go:3:6: main redeclared in this block\n",
			plan, goModBuild, "docs, cmd/gen cannot be built", without(all, "./docs", "./cmd/gen")},
		{"an absolute path below the tree", "# example.org/lib/docs\n/workspace/pkg/docs/snippet.go:1:1: x\n",
			plan, goModBuild, "docs (the package's docs)", without(all, "./docs")},
		{"the module root", "# example.org/lib\n./lib.go:3:1: syntax error: non-declaration statement outside function body\n",
			plan, goModBuild, "module's root package", nil},
		{"a library package", "# example.org/lib/internal/x\ninternal/x/x.go:3:1: undefined: y\n",
			plan, goModBuild, "a package of the library", nil},
		{"a single main that is a command", "# example.org/lib/cmd/tool\ncmd/tool/main.go:3:1: undefined: y\n",
			plan, goModBuild, "a package of the library", nil},
		{"a dependency's file", "# golang.org/x/sys/unix\n/root/go/pkg/mod/golang.org/x/sys/unix/a.go:3:1: undefined: y\n",
			plan, goModBuild, "outside the tree", nil},
		{"a ../ path", "# other\n../other/a.go:3:1: undefined: y\n", plan, goModBuild, "outside the tree", nil},
		{"no compile error", "go: cannot find main module\n", plan, goModBuild, "no compile error", nil},
		{"a testdata file is no package dir", "# x\ntestdata/t.go:1:1: x\n", plan, goModBuild, "not a package directory", nil},
		{"the failing command names its packages", "# example.org/lib/docs\ndocs/snippet.go:1:1: x\n",
			plan, "go build ./internal/x", "no ./... pattern", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.ClassifyError(tt.out), Message: tt.out, Output: tt.out, Phase: "build", Command: tt.command}
			fix, why := makeGoExclude(t.Context(), f, goTreeEnv(tt.plan, tree, det))
			if tt.build == nil {
				wantFix(t, fix, why, tt.why)
				return
			}
			if !wantFix(t, fix, why, "") {
				return
			}
			if !strings.Contains(fix.Analysis, tt.why) {
				t.Errorf("analysis lacks %q: %s", tt.why, fix.Analysis)
			}
			b, test, ok := knowledge.GoPlanPackages(fix.Plan)
			if !ok {
				t.Fatalf("the fixed plan names no package list: %v", fix.Plan.Commands())
			}
			if d := cmp.Diff(tt.build, b); d != "" {
				t.Errorf("build list (-want +got):\n%s", d)
			}
			if d := cmp.Diff(withTests(tt.build), test); d != "" {
				t.Errorf("test list (-want +got):\n%s", d)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the fixed plan is refused: %v", err)
			}
		})
	}
}

// TestGoExcludeLimits: a GOPATH build walks nested modules; nothing remaining, a subdirectory
// module and an unreadable tree are refused.
func TestGoExcludeLimits(t *testing.T) {
	mainFile := "package main\n\nfunc main() {}\n"
	out := "# m/examples\nexamples/b.go:3:6: main redeclared in this block\n"
	f := Failure{Message: out, Output: out, Phase: "build", Command: goModBuild}
	det := &atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: "."}

	only := map[string]string{"examples/a.go": mainFile, "examples/b.go": mainFile, "README": "x"}
	fix, why := makeGoExclude(t.Context(), f, goTreeEnv(defaultPlan(goModBuild), only, det))
	wantFix(t, fix, why, "no package directory would remain")

	env := goTreeEnv(defaultPlan(goModBuild), only, det)
	env.ReadFile = nil
	fix, why = makeGoExclude(t.Context(), f, env)
	wantFix(t, fix, why, "cannot be read")

	// A module in a subdirectory: its paths are relative to the module.
	sub := map[string]string{"go/go.mod": "module m\n", "go/m.go": "package m\n", "go/examples/a.go": mainFile, "go/examples/b.go": mainFile}
	subDet := &atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: "go"}
	line := "cd go && " + goModBuild
	f.Command = line
	fix, why = makeGoExclude(t.Context(), f, goTreeEnv(defaultPlan(line), sub, subDet))
	if wantFix(t, fix, why, "") {
		if b, _, _ := knowledge.GoPlanPackages(fix.Plan); !slices.Equal(b, []string{"."}) {
			t.Errorf("build list %v, want the module root", b)
		}
	}

	// GOPATH mode ignores go.mod files: a nested module is one of the packages.
	gp := map[string]string{"p.go": "package p\n", "nested/go.mod": "module x\n", "nested/n.go": "package n\n",
		"examples/a.go": mainFile, "examples/b.go": mainFile}
	f.Command = goPathBuild
	fix, why = makeGoExclude(t.Context(), f, goTreeEnv(goPathPlan(), gp, det))
	if wantFix(t, fix, why, "") {
		if b, _, _ := knowledge.GoPlanPackages(fix.Plan); !slices.Equal(b, []string{".", "./nested"}) {
			t.Errorf("GOPATH build list %v, want the root and nested", b)
		}
	}
}

// TestGoCompileDirs reads the directories of the go command's compile errors.
func TestGoCompileDirs(t *testing.T) {
	out := "# a/examples\nexamples/themes.go:8:5: log redeclared in this block\n\texamples/basic.go:8:5: other declaration of log\n" +
		"./x.go:1:2: bad\r\n/w/t/sub/y.go:3: bad too\n/elsewhere/z.go:1:1: no\n../up.go:1:1: no\nnot an error.go: x\n"
	dirs, first, outside := goCompileDirs(out, "/w/t")
	if d := cmp.Diff([]string{"examples", ".", "sub"}, dirs); d != "" {
		t.Errorf("dirs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"/elsewhere/z.go", "../up.go"}, outside); d != "" {
		t.Errorf("outside (-want +got):\n%s", d)
	}
	if first["examples"] != "examples/themes.go:8: log redeclared in this block" || first["."] != "x.go:1: bad" {
		t.Errorf("first errors %q", first)
	}
}

func FuzzGoCompileDirs(f *testing.F) {
	f.Add(readLog(f, "go-exclude-logrus-prefixed-formatter.log"), "/w")
	f.Add("/w/a/b.go:1:1: x\n../c.go:2: y\n", "/w/")
	f.Fuzz(func(t *testing.T, out, tree string) {
		dirs, first, outside := goCompileDirs(out, tree)
		for _, d := range dirs {
			if strings.HasPrefix(d, "../") || d == ".." || strings.HasPrefix(d, "/") {
				t.Fatalf("directory %q outside the command's directory", d)
			}
			if first[d] == "" {
				t.Fatalf("no first error for %q", d)
			}
		}
		_ = outside
		_ = goMainFile([]byte(out))
	})
}
