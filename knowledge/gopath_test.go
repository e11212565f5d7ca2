package knowledge

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestImportComment(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"line comment", "package difflib // import \"github.com/pmezard/go-difflib/difflib\"\n", "github.com/pmezard/go-difflib/difflib"},
		{"block comment", "package spew /* import \"github.com/davecgh/go-spew/spew\" */\n\nimport \"fmt\"\n", "github.com/davecgh/go-spew/spew"},
		{"after doc, license and build constraint", "// Copyright 2013 Dave Collins\n/*\nPackage spew implements\n*/\n// +build !js\n\npackage spew // import \"github.com/davecgh/go-spew/spew\"\n", "github.com/davecgh/go-spew/spew"},
		{"tabs and CRLF", "package\tx\t//\timport\t\"example.org/x\"\r\n", "example.org/x"},
		{"no comment", "package errors\n\nimport \"fmt\"\n", ""},
		{"another comment", "package x // Package x does y\n", ""},
		{"comment on the next line", "package x\n// import \"example.org/x\"\n", ""},
		{"inside a block comment before the clause", "/*\npackage x // import \"example.org/evil\"\n*/\npackage y\n", ""},
		{"not a path", "package x // import \"../../etc\"\n", ""},
		{"shell syntax", "package x // import \"example.org/$(reboot)\"\n", ""},
		{"unquoted", "package x // import example.org/x\n", ""},
		{"trailing text", "package x // import \"example.org/x\" and more\n", ""},
		{"unterminated block", "package x /* import \"example.org/x\"\n*/\n", ""},
		{"package word only", "packagex // import \"example.org/x\"\n", ""},
		{"empty", "", ""},
		{"unterminated preamble", "/* never closed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ImportComment([]byte(tt.src))
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("ImportComment = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func FuzzImportComment(f *testing.F) {
	for _, s := range []string{
		"package difflib // import \"github.com/pmezard/go-difflib/difflib\"\n",
		"/* c */ package x /* import \"a.b/c\" */",
		"// +build go1.13\n\npackage errors\n",
		"package x // import \"a.b/c\\x00\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, ok := ImportComment(src)
		if ok != (p != "") {
			t.Fatalf("ok %v with path %q", ok, p)
		}
		if !ok {
			return
		}
		// A path with no shell syntax (the plan quotes it all the same), no option and
		// no parent directory: what the plan passes to go mod init.
		if strings.ContainsAny(p, " \t\r\n\"'`$;&|<>\\()*?[]{}!#") || strings.HasPrefix(p, "-") || strings.Contains(p, "..") {
			t.Fatalf("unsafe import path %q from %q", p, src)
		}
		if !strings.Contains(string(src), p) {
			t.Fatalf("path %q is not in the source", p)
		}
	})
}

func TestDetectGoWithoutModFile(t *testing.T) {
	goFile := "package x\n"
	tests := []struct {
		name     string
		files    map[string]string
		opts     DetectOptions
		system   atesor.BuildSystem
		evidence string
		noMod    bool
		mod      string
		from     string
		art      []string
	}{
		{"library in a subdirectory with an import comment", map[string]string{
			"README.md":               "difflib\n",
			"difflib/difflib.go":      "// Package difflib is a partial port of Python difflib module.\npackage difflib // import \"github.com/pmezard/go-difflib/difflib\"\n",
			"difflib/difflib_test.go": "package difflib\n",
		}, DetectOptions{}, atesor.BuildGo, "difflib/difflib.go", true, "github.com/pmezard/go-difflib",
			"the import comment of difflib/difflib.go", []string{"bin/difflib.test"}},
		{"the caller's path wins over the comment", map[string]string{
			"a.go":      "package a // import \"example.org/old\"\n",
			"a_test.go": "package a\n",
		}, DetectOptions{GoModulePath: "example.org/new", GoModulePathFrom: "the request"}, atesor.BuildGo, "a.go", true,
			"example.org/new", "the request", []string{"bin/new.test"}},
		{"a comment that does not end in its directory says nothing", map[string]string{
			"sub/a.go": "package a // import \"example.org/elsewhere\"\n",
		}, DetectOptions{}, atesor.BuildGo, "sub/a.go", true, "", "", []string{"bin/sub.a"}}, // no test: the package archive
		{"a program at the root", map[string]string{
			"main.go": "package main // import \"example.org/tool\"\nfunc main() {}\n",
		}, DetectOptions{}, atesor.BuildGo, "main.go", true, "example.org/tool", "the import comment of main.go", []string{"bin/tool"}},
		{"a Makefile that builds C sources outside the Go packages wins", map[string]string{
			"Makefile":     "all:\n\tcc -o tool src/tool.c\n",
			"src/tool.c":   "int main(void){return 0;}\n",
			"go/client.go": goFile,
		}, DetectOptions{}, atesor.BuildMake, "Makefile", false, "", "", nil},
		{"cgo's C sources beside the Go files do not make a C part", map[string]string{
			"Makefile": "test:\n\tgo test example.org/x\n",
			"x.go":     "package x\n\n// #include \"x.h\"\nimport \"C\"\n",
			"x.c":      "int x;\n",
		}, DetectOptions{GoModulePath: "example.org/x"}, atesor.BuildGo, "x.go", true, "example.org/x", "", []string{"bin/x.a"}},
		{"a Makefile that sets up GOPATH itself wins", map[string]string{
			"Makefile": "export GOPATH := $(CURDIR)/_gopath\nall:\n\tgo build ./...\n",
			"x.go":     goFile,
		}, DetectOptions{}, atesor.BuildMake, "Makefile", false, "", "", nil},
		{"CMake wins", map[string]string{
			"CMakeLists.txt": "project(x C)\n",
			"bindings/x.go":  goFile,
		}, DetectOptions{}, atesor.BuildCMake, "CMakeLists.txt", false, "", "", nil},
		{"a go.mod anywhere is a module build", map[string]string{
			"x.go":        goFile,
			"sub/go.mod":  "module example.org/sub\n",
			"sub/main.go": "package main\nfunc main(){}\n",
		}, DetectOptions{}, atesor.BuildGo, "sub/go.mod", false, "", "", []string{"bin/sub"}},
		{"only vendored and test data Go files", map[string]string{
			"Makefile":         "all:\n\tcc -o x x.c\n",
			"vendor/a/a.go":    goFile,
			"testdata/b/b.go":  goFile,
			"_examples/c/c.go": goFile,
			"x.c":              "int main(void){return 0;}\n",
		}, DetectOptions{}, atesor.BuildMake, "Makefile", false, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			det, err := DetectWith(t.Context(), writeTree(t, tt.files), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if det.BuildSystem != tt.system || det.Evidence != tt.evidence || det.GoNoModFile != tt.noMod {
				t.Fatalf("got %s (%s, no go.mod %v), want %s (%s, %v)", det.BuildSystem, det.Evidence, det.GoNoModFile, tt.system, tt.evidence, tt.noMod)
			}
			if det.GoModulePath != tt.mod || (tt.from != "" && det.GoModulePathFrom != tt.from) {
				t.Errorf("module path %q from %q, want %q from %q", det.GoModulePath, det.GoModulePathFrom, tt.mod, tt.from)
			}
			if d := cmp.Diff(tt.art, det.GoArtifacts); d != "" {
				t.Errorf("artifacts (-want +got):\n%s", d)
			}
		})
	}
}

// TestDetectGoPathErrors is the real tree of a Debian Go source with no go.mod whose
// Makefile only runs go test and linters: before, make was chosen and its go test
// stopped at "go.mod file not found".
func TestDetectGoPathErrors(t *testing.T) {
	dir := filepath.Join("testdata", "gopath", "errors")
	det, err := Detect(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if det.BuildSystem != atesor.BuildGo || !det.GoNoModFile || det.Evidence != "errors.go" || det.GoModulePath != "" {
		t.Fatalf("got %+v", det)
	}
	if len(det.Alternatives) == 0 || det.Alternatives[0].BuildSystem != atesor.BuildMake {
		t.Errorf("alternatives %+v, want the Makefile first", det.Alternatives)
	}
	deb, _ := Profile("debian")
	if _, _, err := DefaultPlan(det, deb); !errors.Is(err, ErrNoGoModulePath) {
		t.Errorf("plan without a module path: err %v, want ErrNoGoModulePath", err)
	}
	if !strings.Contains(ErrNoGoModulePath.Error(), "--go-module") {
		t.Errorf("the error does not say what to pass: %v", ErrNoGoModulePath)
	}

	det, err = DetectWith(t.Context(), dir, DetectOptions{GoModulePath: "github.com/pkg/errors",
		GoModulePathFrom: "the Go-Import-Path of debian golang-github-pkg-errors 0.9.1-3"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"bin/errors.test"}, det.GoArtifacts); d != "" {
		t.Errorf("artifacts (-want +got):\n%s", d)
	}
	plan, tests, err := DefaultPlan(det, deb)
	if err != nil {
		t.Fatal(err)
	}
	want := []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y golang-go"}},
		{Name: GoModPhase, Commands: []string{"test -f go.mod || GOTOOLCHAIN=auto go mod init github.com/pkg/errors"}},
		{Name: "build", Commands: []string{"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -vet=off -buildvcs=false -c -o bin/ ./..."}},
	}
	if d := cmp.Diff(want, plan.Phases); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"GOTOOLCHAIN=auto go test -vet=off ./..."}, tests); d != "" {
		t.Errorf("tests (-want +got):\n%s", d)
	}
	if !strings.Contains(plan.Reasoning, "golang-github-pkg-errors") {
		t.Errorf("reasoning does not say where the path came from: %s", plan.Reasoning)
	}
	for _, c := range plan.Commands() {
		if unsafePlan.MatchString(c) {
			t.Errorf("unsafe plan command %q", c)
		}
	}

	det.GoModulePath = "example.org/x; reboot"
	if _, _, err := DefaultPlan(det, deb); err == nil {
		t.Error("a module path with shell syntax made a plan")
	}
}

// TestGoPathExternalImports: imports outside the standard library and the module
// (tests' included) are listed with the first file naming each, and the plan refuses to
// build what no go.mod can require, naming them.
func TestGoPathExternalImports(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"diff.go":           "package diff // import \"example.org/diff\"\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n\t\"example.org/diff/internal/lcs\"\n\t\"github.com/pkg/errors\"\n)\n",
		"diff_test.go":      "package diff\n\nimport (\n\t\"testing\"\n\t\"github.com/davecgh/go-spew/spew\"\n\t\"github.com/pkg/errors\"\n)\n",
		"internal/lcs/a.go": "package lcs\n\nimport \"C\"\n",
		"vendor/x/x.go":     "package x\n\nimport \"example.net/vendored\"\n",
	})
	det, err := Detect(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []atesor.Dependency{{Name: "github.com/pkg/errors", Evidence: "diff.go"}, {Name: "github.com/davecgh/go-spew/spew", Evidence: "diff_test.go"}}
	if d := cmp.Diff(want, det.GoExternalImports); d != "" {
		t.Fatalf("external imports (-want +got):\n%s", d)
	}
	deb, _ := Profile("debian")
	_, _, err = DefaultPlan(det, deb)
	var ie *GoImportsError
	if !errors.As(err, &ie) || !errors.Is(err, ErrGoImportsWithoutModule) {
		t.Fatalf("err %v, want a GoImportsError", err)
	}
	for _, s := range []string{"github.com/pkg/errors (diff.go)", "github.com/davecgh/go-spew/spew (diff_test.go)", "go mod tidy"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not say %q: %v", s, err)
		}
	}

	// A tree with a go.mod lists none: its requirements are the go command's.
	dir = writeTree(t, map[string]string{"go.mod": "module example.org/diff\n", "diff.go": "package diff\n\nimport \"github.com/pkg/errors\"\n"})
	if det, err = Detect(t.Context(), dir); err != nil || det.GoExternalImports != nil {
		t.Errorf("module tree: %v, %v", det.GoExternalImports, err)
	}
}
