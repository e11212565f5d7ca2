package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// tierCall names the calls that put a test in a tier.
var tierCall = map[string]bool{"Short": true, "Long": true}

// testFunc is one Test or Benchmark function of the module.
type testFunc struct {
	pkg, name, pos string
	calls          []string // names of the functions of its package it calls, and e2e.X selectors as "e2e.X"
}

// TestTiersAreDeclaredByCalls checks, across the module, that every test in an
// end-to-end tier has "E2E" in its name (so `go test -run E2E` finds it) and that every
// test named so declares its tier: a test renamed or added without its call is caught
// here, in the unit tier.
func TestTiersAreDeclaredByCalls(t *testing.T) {
	root := moduleRoot(t)
	funcs := map[string]map[string][]string{} // package dir -> function -> callees
	var tests []testFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || n == "deploy") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(p)
		if funcs[dir] == nil {
			funcs[dir] = map[string][]string{}
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Recv != nil {
				continue
			}
			calls := callees(fd.Body, tierImportName(f))
			funcs[dir][fd.Name.Name] = append(funcs[dir][fd.Name.Name], calls...)
			n := fd.Name.Name
			if strings.HasPrefix(n, "Test") || strings.HasPrefix(n, "Benchmark") {
				tests = append(tests, testFunc{pkg: dir, name: n, pos: fset.Position(fd.Pos()).String(), calls: calls})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) < 100 {
		t.Fatalf("found only %d test functions under %s: the walk is wrong", len(tests), root)
	}
	var problems []string
	gated := 0
	for _, tf := range tests {
		tier := reaches(funcs[tf.pkg], tf.calls, map[string]bool{})
		named := strings.Contains(tf.name, "E2E")
		switch {
		case tier && !named:
			problems = append(problems, tf.pos+": "+tf.name+" is in an end-to-end tier but has no E2E in its name, so CI's -run E2E misses it")
		case named && !tier:
			problems = append(problems, tf.pos+": "+tf.name+" is named E2E but calls neither e2e.Short nor e2e.Long (directly or through a helper)")
		}
		if tier {
			gated++
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
	if gated == 0 {
		t.Error("no test declares an end-to-end tier: the call detection is wrong")
	}
}

// reaches reports whether calls, followed through the package's own functions, reach
// e2e.Short or e2e.Long.
func reaches(pkg map[string][]string, calls []string, seen map[string]bool) bool {
	for _, c := range calls {
		if name, ok := strings.CutPrefix(c, "e2e."); ok {
			if tierCall[name] {
				return true
			}
			continue
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		if next, ok := pkg[c]; ok && reaches(pkg, next, seen) {
			return true
		}
	}
	return false
}

// tierImportName returns the name under which f imports this package, or "" when it
// does not.
func tierImportName(f *ast.File) string {
	for _, im := range f.Imports {
		if strings.Trim(im.Path.Value, "`\"") != "github.com/eclipse-atesor/atesor-go/internal/e2e" {
			continue
		}
		if im.Name != nil {
			return im.Name.Name
		}
		return "e2e"
	}
	return ""
}

// callees lists the plain function calls in body, and the calls of this package's
// functions (imported as name) as "e2e.X".
func callees(body *ast.BlockStmt, name string) []string {
	var out []string
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			out = append(out, fn.Name)
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && name != "" && x.Name == name {
				out = append(out, "e2e."+fn.Sel.Name)
			}
		}
		return true
	})
	return out
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func TestReaches(t *testing.T) {
	pkg := map[string][]string{
		"helper":  {"inner"},
		"inner":   {"e2e.Short"},
		"loop":    {"loop"},
		"unit":    {"strings"},
		"longish": {"e2e.Long"},
	}
	tests := []struct {
		calls []string
		want  bool
	}{
		{[]string{"helper"}, true},
		{[]string{"e2e.Long"}, true},
		{[]string{"e2e.Root"}, false},
		{[]string{"loop"}, false},
		{[]string{"unit", "longish"}, true},
		{nil, false},
	}
	for _, tt := range tests {
		if got := reaches(pkg, tt.calls, map[string]bool{}); got != tt.want {
			t.Errorf("reaches(%v) = %v, want %v", tt.calls, got, tt.want)
		}
	}
}
