package knowledge

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMainRankOrder(t *testing.T) {
	dirs := []string{"examples/hello", "internal/tools/gen", "cmd/other", "server", "test/e2e", ".", "cmd/tool", "cmd/tool/sub"}
	slices.SortFunc(dirs, func(a, b string) int { return mainRank(b, "tool") - mainRank(a, "tool") })
	want := []string{"cmd/tool", ".", "cmd/other", "cmd/tool/sub", "server", "examples/hello", "internal/tools/gen", "test/e2e"}
	if d := cmp.Diff(want, dirs); d != "" {
		t.Errorf("main package ranking (-want +got):\n%s", d)
	}
}

func TestGoModuleBase(t *testing.T) {
	for in, want := range map[string]string{"github.com/a/tool": "tool", "github.com/a/tool/v2": "tool", "example.com/x/": "x", "v1": "v1"} {
		if got := goModuleBase(in); got != want {
			t.Errorf("goModuleBase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGoMainSkipsVendorAndNestedModules(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"go.mod":                "module example.com/lib\n",
		"lib.go":                "package lib\n",
		"vendor/x/main.go":      "package main\nfunc main(){}\n",
		"testdata/m/main.go":    "package main\nfunc main(){}\n",
		"tools/go.mod":          "module example.com/lib/tools\n",
		"tools/gen/main.go":     "package main\nfunc main(){}\n",
		"_old/main.go":          "package main\nfunc main(){}\n",
		"broken/broken.go":      "this is not go",
		"cgo/c.go":              "package cgo\n\n// #cgo LDFLAGS: -lssl -lcrypto\n// #include <openssl/ssl.h>\nimport \"C\"\n",
		"cgo/c_test.go":         "package cgo\nimport \"C\"\n",
		"examples/demo/main.go": "package main\nfunc main(){}\n",
	})
	tr, err := walkTree(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.close()
	g := analyseGo(tr, "")
	if d := cmp.Diff([]string{"examples/demo"}, g.mains); d != "" {
		t.Errorf("mains (-want +got):\n%s", d)
	}
	if !g.hasMain || g.mainPath != "examples/demo" || !g.hasCGO {
		t.Errorf("got %+v", g)
	}
	if d := cmp.Diff([]rawDep{{"ssl", "cgo/c.go:3"}, {"crypto", "cgo/c.go:3"}}, g.cgoDeps, cmp.AllowUnexported(rawDep{})); d != "" {
		t.Errorf("cgo deps (-want +got):\n%s", d)
	}
}
