package knowledge

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
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

func TestGoCommandsArtifactsAndPortableTags(t *testing.T) {
	tests := []struct {
		name          string
		files         map[string]string
		commands, art []string
		tags          []string
	}{
		{"commands", map[string]string{
			"go.mod":                "module example.com/tool/v2\n", // the root package is also "tool": cmd/tool wins
			"main.go":               "package main\nfunc main(){}\n",
			"cmd/tool/main.go":      "package main\nfunc main(){}\n",
			"cmd/toolctl/main.go":   "package main\nfunc main(){}\n",
			"cmd/srv/v3/main.go":    "package main\nfunc main(){}\n",
			"tools/toolctl/main.go": "package main\nfunc main(){}\n",
			"examples/x/main.go":    "package main\nfunc main(){}\n",
			"gen.go":                "//go:build ignore\n\npackage main\nfunc main(){}\n",
			"lib/gen.go":            "//go:build ignore\n\npackage main\nfunc main(){}\n",
			"lib/lib.go":            "package lib\n",
			"win/main_windows.go":   "package main\nfunc main(){}\n",
		}, []string{"cmd/tool", "cmd/toolctl", "cmd/srv/v3"}, []string{"bin/tool", "bin/toolctl", "bin/srv"}, nil},
		{"library", map[string]string{
			"go.mod":               "module example.com/sum\n",
			"sum.go":               "package sum\n",
			"sum_test.go":          "package sum\n",
			"sum_amd64.go":         "//go:build !purego\n\npackage sum\nfunc add(a, b uint64) uint64\n",
			"sum_amd64.s":          "//go:build !purego && gc\n\nTEXT ·add(SB),4,$0\n",
			"sum_generic.go":       "//go:build (!amd64 && !arm64) || purego || appengine\n\npackage sum\n",
			"fast/fast_arm64.go":   "//go:build !noasm\n\npackage fast\n",
			"fast/fast.go":         "//go:build debug\n\npackage fast\n",
			"old/old_amd64.s":      "// +build !appengine\n\nTEXT ·x(SB),4,$0\n",
			"fast/fast_test.go":    "package fast\n",
			"other/w_windows.go":   "package other\n",
			"other/w_test.go":      "//go:build windows\n\npackage other\n",
			"examples/x/main.go":   "package main\nfunc main(){}\n",
			"internal/u/u_test.go": "package u\n",
		}, nil, []string{"bin/sum.test", "bin/fast.test", "bin/u.test"}, []string{"appengine", "noasm", "purego"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := walkTree(t.Context(), writeTree(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.close()
			g := analyseGo(tr, "")
			if d := cmp.Diff(tt.commands, g.commands); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.art, g.artifacts()); d != "" {
				t.Errorf("artifacts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.tags, g.portableTags); d != "" {
				t.Errorf("portable tags (-want +got):\n%s", d)
			}
		})
	}
}

func TestGoFileBuildsOnRiscv64(t *testing.T) {
	tests := []struct {
		name, src string
		want      bool
	}{
		{"a.go", "package a\n", true},
		{"a_riscv64.go", "package a\n", true},
		{"a_linux_riscv64.go", "package a\n", true},
		{"a_amd64.go", "package a\n", false},
		{"a_darwin.go", "package a\n", false},
		{"a_darwin_riscv64.go", "package a\n", false},
		{"a_test.go", "//go:build ignore\n\npackage a\n", false},
		{"a.go", "// Copyright\n\n//go:build linux && !purego\n\npackage a\n", true},
		{"a.go", "// +build !linux\n\npackage a\n", false},
		{"a.go", "//go:build go1.21 && cgo\npackage a\n", true},
		{"a.go", "package a\n//go:build ignore\n", true},
		{"a.go", "//go:build (\npackage a\n", true},
	}
	for _, tt := range tests {
		if got := goFileBuildsOnRiscv64(tt.name, []byte(tt.src)); got != tt.want {
			t.Errorf("goFileBuildsOnRiscv64(%q, %q) = %t, want %t", tt.name, tt.src, got, tt.want)
		}
	}
}

func TestGoBinaryName(t *testing.T) {
	for _, tt := range []struct{ dir, mod, want string }{
		{".", "tool", "tool"}, {"cmd/x", "tool", "x"}, {"cmd/x/v2", "tool", "x"}, {"v2", "tool", "tool"}, {"", "m", "m"},
	} {
		if got := GoBinaryName(tt.dir, tt.mod); got != tt.want {
			t.Errorf("GoBinaryName(%q, %q) = %q, want %q", tt.dir, tt.mod, got, tt.want)
		}
	}
}

func FuzzGoHeaderConstraint(f *testing.F) {
	f.Add([]byte("//go:build linux && (amd64 || !purego)\n\npackage a\n"))
	f.Add([]byte("// +build a,b !c\n// +build d\n\npackage a\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		x := goHeaderConstraint(src)
		_ = goCustomTags(x)
		_ = goArchSpecific("a.go", x)
		_ = goFileBuildsOnRiscv64("a_riscv64.go", src)
	})
}

// TestGoTestPackagesOfSharedNames: two packages with tests named cloudapi (a client and
// its local test double) make go test -c -o bin/ ./... refuse to write either binary, so
// the default plan compiles the first of each name, listed.
func TestGoTestPackagesOfSharedNames(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		line  string
	}{
		{"shared name", map[string]string{
			"go.mod":                                 "module example.com/sdc\n",
			"cloudapi/api.go":                        "package cloudapi\n",
			"cloudapi/api_test.go":                   "package cloudapi\n",
			"localservices/cloudapi/service.go":      "package cloudapi\n",
			"localservices/cloudapi/service_test.go": "package cloudapi\n",
			"localservices/hook/hook_test.go":        "package hook\n",
			"a b/c_test.go":                          "package c\n",
		}, []string{"a b", "cloudapi", "localservices/hook"},
			"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ './a b' ./cloudapi ./localservices/hook"},
		{"a tested package and two untested mains of one name (pion/turn's examples)", map[string]string{
			"go.mod":                              "module github.com/pion/turn/v2\n",
			"client.go":                           "package turn\n",
			"client_test.go":                      "package turn\n",
			"internal/proto/proto_test.go":        "package proto\n",
			"internal/proto/proto.go":             "package proto\n",
			"examples/turn-client/tcp/main.go":    "package main\nfunc main(){}\n",
			"examples/turn-server/tcp/main.go":    "package main\nfunc main(){}\n",
			"examples/turn-server/simple/main.go": "package main\nfunc main(){}\n",
		}, []string{".", "internal/proto"},
			"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ . ./internal/proto"},
		{"distinct names", map[string]string{
			"go.mod":          "module example.com/sdc\n",
			"api/api_test.go": "package api\n",
			"srv/srv_test.go": "package srv\n",
		}, nil, "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..."},
		{"commands", map[string]string{
			"go.mod":          "module example.com/sdc\n",
			"cmd/sdc/main.go": "package main\nfunc main(){}\n",
			"a/x/x_test.go":   "package x\n",
			"b/x/x_test.go":   "package x\n",
		}, nil, "GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ ./cmd/sdc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := walkTree(t.Context(), writeTree(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.close()
			g := analyseGo(tr, "")
			if d := cmp.Diff(tt.want, g.testPackages()); d != "" {
				t.Errorf("test packages (-want +got):\n%s", d)
			}
			det := &atesor.Detection{GoCommands: g.commands, GoArtifacts: g.artifacts(), GoTestPackages: g.testPackages()}
			if got := goBuildCommand(det); got != tt.line {
				t.Errorf("build command\n got %s\nwant %s", got, tt.line)
			}
		})
	}
}

// TestGoArchivePackages: a library module with no main package and no test that builds
// on riscv64 (xanzy/ssh-agent 0.3.2: its one package's files build on every OS but
// Windows, and the tarball has no test) gets its packages' archives written to bin/,
// the first of each name; a module with a test or a main package gets none.
func TestGoArchivePackages(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		arts  []string
		line  string
	}{
		{"xanzy/ssh-agent", map[string]string{
			"go.mod":              "module github.com/xanzy/ssh-agent\n",
			"sshagent.go":         "//go:build !windows\n// +build !windows\n\npackage sshagent\n",
			"sshagent_windows.go": "//go:build windows\n\npackage sshagent\n",
			"pageant_windows.go":  "package sshagent\n",
		}, []string{"."}, []string{"bin/ssh-agent.a"},
			"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ssh-agent.a ."},
		{"Windows-only tests, two packages of one name", map[string]string{
			"go.mod":              "module example.com/lib/v2\n",
			"lib.go":              "package lib\n",
			"lib_windows_test.go": "package lib\n",
			"a/x/x.go":            "package x\n",
			"b/x/x.go":            "package x\n",
			"a b/c.go":            "package c\n",
		}, []string{".", "a b", "a/x"}, []string{"bin/lib.a", "bin/a b.a", "bin/x.a"},
			"GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go build -buildvcs=false -o bin/lib.a . && " +
				"GOTOOLCHAIN=auto go build -buildvcs=false -o 'bin/a b.a' ./'a b' && GOTOOLCHAIN=auto go build -buildvcs=false -o bin/x.a ./a/x"},
		{"a test", map[string]string{
			"go.mod":      "module example.com/lib\n",
			"lib.go":      "package lib\n",
			"lib_test.go": "package lib\n",
		}, nil, []string{"bin/lib.test"}, "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./..."},
		{"an example program", map[string]string{
			"go.mod":           "module example.com/lib\n",
			"lib.go":           "package lib\n",
			"examples/main.go": "package main\nfunc main(){}\n",
		}, nil, nil, "GOTOOLCHAIN=auto go build -buildvcs=false -o bin/ ./examples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := walkTree(t.Context(), writeTree(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.close()
			g := analyseGo(tr, "")
			if d := cmp.Diff(tt.want, g.archivePackages()); d != "" {
				t.Errorf("archive packages (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.arts, g.artifacts()); d != "" {
				t.Errorf("artifacts (-want +got):\n%s", d)
			}
			det := &atesor.Detection{GoCommands: g.commands, GoArtifacts: g.artifacts(), GoTestPackages: g.testPackages(), GoArchivePackages: g.archivePackages(),
				HasMain: g.hasMain, MainPath: g.mainPath}
			if got := goBuildCommand(det); got != tt.line {
				t.Errorf("build command\n got %s\nwant %s", got, tt.line)
			}
		})
	}
}
