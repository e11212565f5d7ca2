package knowledge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

const treesDir = "../testdata/trees"

// detected is the part of a detection the tree tests compare.
type detected struct {
	BuildSystem  atesor.BuildSystem
	Confidence   float64
	Evidence     string
	Shipped      bool
	BuildDir     string
	Language     string
	Deps         []atesor.Dependency
	HasMain      bool
	MainPath     string
	ModuleDir    string
	HasCGO       bool
	Alternatives []atesor.BuildCandidate
	Makefile     string
}

func project(d *atesor.Detection) detected {
	return detected{d.BuildSystem, d.Confidence, d.Evidence, d.ShippedConfigure, d.BuildDir, d.Language,
		d.Dependencies, d.HasMain, d.MainPath, d.ModuleDir, d.HasCGO, d.Alternatives, d.Makefile}
}

func alt(bs atesor.BuildSystem, ev string, c float64) atesor.BuildCandidate {
	return atesor.BuildCandidate{BuildSystem: bs, Evidence: ev, Confidence: c}
}

func dep(name, ev string) atesor.Dependency { return atesor.Dependency{Name: name, Evidence: ev} }

func TestDetectTrees(t *testing.T) {
	none := []atesor.Dependency{}
	tests := []struct {
		tree string
		want detected
	}{
		{"cmake-basic", detected{BuildSystem: atesor.BuildCMake, Confidence: 0.95, Evidence: "CMakeLists.txt", Language: "C",
			Deps: []atesor.Dependency{dep("zlib", "CMakeLists.txt:4"), dep("pkg-config", "CMakeLists.txt:6"), dep("curl", "CMakeLists.txt:7")}}},
		{"autotools-ac", detected{BuildSystem: atesor.BuildAutotools, Confidence: 0.85, Evidence: "configure.ac", Language: "C",
			Deps: []atesor.Dependency{dep("xml2", "configure.ac:5"), dep("zlib", "configure.ac:6")}}},
		{"configure-autoconf", detected{BuildSystem: atesor.BuildAutotools, Confidence: 0.95, Evidence: "configure", Shipped: true, Language: "C",
			Deps:         []atesor.Dependency{dep("xml2", "configure.ac:5"), dep("zlib", "configure.ac:6")},
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildCMake, "CMakeLists.txt", 0.95), alt(atesor.BuildAutotools, "configure.ac", 0.85)}}},
		{"configure-handwritten", detected{BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "configure", Shipped: true, Language: "C", Deps: none,
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildCMake, "CMakeLists.txt", 0.95), alt(atesor.BuildMake, "Makefile", 0.9)}}},
		{"make-basic", detected{BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "Makefile", Language: "C",
			Deps:         []atesor.Dependency{dep("yaml", "Makefile:4"), dep("zlib", "Makefile:3")},
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildCMake, "build/cmake/CMakeLists.txt", 0.65), alt(atesor.BuildMeson, "build/meson/meson.build", 0.65)}}},
		{"meson-basic", detected{BuildSystem: atesor.BuildMeson, Confidence: 0.95, Evidence: "meson.build", Language: "C",
			Deps: []atesor.Dependency{dep("zlib", "meson.build:2"), dep("pcre2", "meson.build:4")}}},
		{"go-cmd", detected{BuildSystem: atesor.BuildGo, Confidence: 0.95, Evidence: "go.mod", Language: "Go",
			Deps:    []atesor.Dependency{dep("github.com/spf13/cobra", "go.mod:6"), dep("github.com/mattn/go-isatty", "go.mod:10")},
			HasMain: true, MainPath: "cmd/tool", ModuleDir: ".",
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildMake, "Makefile", 0.9)}}},
		{"go-subdir", detected{BuildSystem: atesor.BuildGo, Confidence: 0.85, Evidence: "go/go.mod", BuildDir: "go", Language: "Go",
			Deps:    []atesor.Dependency{dep("sqlite", "go/main.go:4"), dep("zlib", "go/main.go:5")},
			HasMain: true, MainPath: ".", ModuleDir: "go", HasCGO: true}},
		{"cargo-basic", detected{BuildSystem: atesor.BuildCargo, Confidence: 0.95, Evidence: "Cargo.toml", Language: "Rust",
			Deps: []atesor.Dependency{dep("openssl", "Cargo.toml:7"), dep("zlib", "Cargo.toml:10"), dep("pkg-config", "Cargo.toml:18")}}},
		{"cargo-subdir", detected{BuildSystem: atesor.BuildCargo, Confidence: 0.85, Evidence: "rust/Cargo.toml", BuildDir: "rust", Language: "Rust", Deps: none}},
		{"unknown", detected{BuildSystem: atesor.BuildUnknown, Language: "C", Deps: none}},
		// Layouts of real upstream trees, trimmed (see testdata/trees/README.md).
		{"cJSON", detected{BuildSystem: atesor.BuildCMake, Confidence: 0.95, Evidence: "CMakeLists.txt", Language: "C", Deps: none,
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildMake, "Makefile", 0.9)}}},
		{"xxHash", detected{BuildSystem: atesor.BuildMake, Confidence: 0.9, Evidence: "Makefile", Language: "C", Deps: none,
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildCMake, "cmake_unofficial/CMakeLists.txt", 0.65)}}},
		{"libyaml", detected{BuildSystem: atesor.BuildCMake, Confidence: 0.95, Evidence: "CMakeLists.txt", Language: "C", Deps: none,
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildAutotools, "configure.ac", 0.85)}}},
		{"expat", detected{BuildSystem: atesor.BuildCMake, Confidence: 0.65, Evidence: "expat/CMakeLists.txt", BuildDir: "expat", Language: "C",
			Deps:         []atesor.Dependency{dep("bsd", "expat/CMakeLists.txt:12")},
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildAutotools, "expat/configure.ac", 0.55)}}},
		{"pcre2-10.45", detected{BuildSystem: atesor.BuildAutotools, Confidence: 0.95, Evidence: "configure", Shipped: true, Language: "C",
			Deps: []atesor.Dependency{dep("bz2", "CMakeLists.txt:4"), dep("zlib", "CMakeLists.txt:5"),
				dep("readline", "CMakeLists.txt:6"), dep("edit", "CMakeLists.txt:7")},
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildCMake, "CMakeLists.txt", 0.95), alt(atesor.BuildAutotools, "configure.ac", 0.85)}}},
		{"gizmo", detected{BuildSystem: atesor.BuildGo, Confidence: 0.95, Evidence: "go.mod", Language: "Go",
			Deps:    []atesor.Dependency{dep("github.com/spf13/pflag", "go.mod:7")},
			HasMain: true, MainPath: "cmd/gizmo", ModuleDir: "."}},
		{"cargo-workspace", detected{BuildSystem: atesor.BuildCargo, Confidence: 0.95, Evidence: "Cargo.toml", Language: "Rust",
			Deps:         []atesor.Dependency{dep("zlib", "Cargo.toml:7"), dep("openssl", "crates/cli/Cargo.toml:8")},
			Alternatives: []atesor.BuildCandidate{alt(atesor.BuildCargo, "crates/cli/Cargo.toml", 0.85), alt(atesor.BuildCargo, "crates/core/Cargo.toml", 0.85)}}},
		{"meson-subprojects", detected{BuildSystem: atesor.BuildMeson, Confidence: 0.95, Evidence: "meson.build", Language: "C",
			Deps: []atesor.Dependency{dep("zlib", "meson.build:6"), dep("curl", "meson.build:7"), dep("inih", "meson.build:8")}}},
		// Perl distributions: an XS module (its C is the language) and a pure-Perl one.
		{"Crypt-Rijndael", detected{BuildSystem: atesor.BuildPerl, Confidence: 0.9, Evidence: "Makefile.PL", Language: "C", Deps: none}},
		{"perl-pure", detected{BuildSystem: atesor.BuildPerl, Confidence: 0.9, Evidence: "Makefile.PL", Language: "Perl", Deps: none}},
		// R packages: C++ in src/ (its DESCRIPTION's packages as Debian's), its own
		// configure (R CMD INSTALL runs it), and one with no compiled code.
		{"dbscan", detected{BuildSystem: atesor.BuildR, Confidence: 0.9, Evidence: "DESCRIPTION", Language: "C++",
			Deps: []atesor.Dependency{dep("r-cran-generics", "DESCRIPTION Imports"), dep("r-cran-rcpp", "DESCRIPTION Imports")}}},
		{"r-configure", detected{BuildSystem: atesor.BuildR, Confidence: 0.9, Evidence: "DESCRIPTION", Language: "C",
			Deps:         []atesor.Dependency{dep("r-cran-rcpp", "DESCRIPTION LinkingTo"), dep("r-cran-bh", "DESCRIPTION LinkingTo")},
			Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildMake, Evidence: "configure", Confidence: 0.8}}}},
		{"r-pure", detected{BuildSystem: atesor.BuildUnknown, Deps: none}},
		// Platform makefiles only: at the top level, and one level down.
		{"boxshade", detected{BuildSystem: atesor.BuildMake, Confidence: 0.8, Evidence: "makefile.unx", Language: "C", Deps: none, Makefile: "makefile.unx"}},
		{"lutefisk", detected{BuildSystem: atesor.BuildMake, Confidence: 0.5, Evidence: "src/Makefile.linux", BuildDir: "src", Language: "C", Deps: none, Makefile: "Makefile.linux"}},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			d, err := Detect(context.Background(), filepath.Join(treesDir, tt.tree))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, project(d)); diff != "" {
				t.Errorf("Detect(%s) (-want +got):\n%s", tt.tree, diff)
			}
			if d.Confidence < 0 || d.Confidence > 1 {
				t.Errorf("confidence %v out of [0,1]", d.Confidence)
			}
		})
	}
}

func TestDetectErrors(t *testing.T) {
	if _, err := Detect(context.Background(), filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Detect of a missing directory succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	if _, err := Detect(context.Background(), f); err == nil {
		t.Error("Detect of a file succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := genTree(t, 20)
	if _, err := Detect(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Errorf("Detect with a cancelled context: %v, want context.Canceled", err)
	}
}

// writeTree writes files (path -> content) under a new temporary directory.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDetectPrecedence(t *testing.T) {
	cm := "project(x C)\n"
	mk := "all:\n\tcc -o x x.c\n"
	tests := []struct {
		name    string
		files   map[string]string
		want    atesor.BuildSystem
		ev      string
		shipped bool
		dir     string
	}{
		{"cmake beats meson and make", map[string]string{"CMakeLists.txt": cm, "meson.build": "project('x','c')", "Makefile": mk}, atesor.BuildCMake, "CMakeLists.txt", false, ""},
		{"meson beats make", map[string]string{"meson.build": "project('x','c')", "Makefile": mk}, atesor.BuildMeson, "meson.build", false, ""},
		{"make beats configure.ac", map[string]string{"configure.ac": "AC_INIT", "Makefile": mk}, atesor.BuildMake, "Makefile", false, ""},
		{"top Makefile beats build/cmake", map[string]string{"build/cmake/CMakeLists.txt": cm, "GNUmakefile": mk}, atesor.BuildMake, "GNUmakefile", false, ""},
		{"Cargo.toml beats CMake", map[string]string{"Cargo.toml": "[package]\nname='x'\n", "CMakeLists.txt": cm}, atesor.BuildCargo, "Cargo.toml", false, ""},
		{"go.mod beats configure", map[string]string{"go.mod": "module x\n", "configure": "#!/bin/sh\n", "main.go": "package main\nfunc main(){}\n"}, atesor.BuildGo, "go.mod", false, ""},
		{"subdir cmake without top markers", map[string]string{"build/cmake/CMakeLists.txt": cm, "src/x.c": ""}, atesor.BuildCMake, "build/cmake/CMakeLists.txt", false, "build/cmake"},
		{"a deep Makefile with none above it is the build", map[string]string{"libraries/liblmdb/Makefile": mk, "libraries/liblmdb/mdb.c": ""}, atesor.BuildMake, "libraries/liblmdb/Makefile", false, "libraries/liblmdb"},
		{"a deep Makefile under one above is a part", map[string]string{"src/Makefile": mk, "src/lib/Makefile": mk}, atesor.BuildMake, "src/Makefile", false, "src"},
		{"tests cmake is ignored", map[string]string{"tests/CMakeLists.txt": cm, "x.c": ""}, atesor.BuildUnknown, "", false, ""},
		{"Makefile.am only", map[string]string{"Makefile.am": "bin_PROGRAMS = x\n"}, atesor.BuildAutotools, "Makefile.am", false, ""},
		{"configure alone", map[string]string{"configure": "#!/bin/sh\necho hi\n"}, atesor.BuildMake, "configure", true, ""},
		{"configure dir is not a script", map[string]string{"configure/x.sh": "", "Makefile": mk}, atesor.BuildMake, "Makefile", false, ""},
		{"Makefile.PL beats the Makefile it writes", map[string]string{"Makefile.PL": "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'X');\n", "Makefile": mk, "X.xs": ""}, atesor.BuildPerl, "Makefile.PL", false, ""},
		{"Module::Install Makefile.PL", map[string]string{"Makefile.PL": "use inc::Module::Install;\nname 'X';\nWriteAll;\n", "inc/Module/Install.pm": ""}, atesor.BuildPerl, "Makefile.PL", false, ""},
		{"CMake beats Makefile.PL", map[string]string{"CMakeLists.txt": cm, "Makefile.PL": "WriteMakefile(NAME => 'X');\n"}, atesor.BuildCMake, "CMakeLists.txt", false, ""},
		{"Makefile beats a platform makefile", map[string]string{"Makefile": mk, "makefile.unx": mk}, atesor.BuildMake, "Makefile", false, ""},
		{"Makefile.linux beats makefile.gcc", map[string]string{"makefile.gcc": mk, "Makefile.linux": mk, "Makefile.sun": mk}, atesor.BuildMake, "Makefile.linux", false, ""},
		{"a DOS makefile alone is not a build", map[string]string{"makefile.bcc": mk, "x.c": ""}, atesor.BuildUnknown, "", false, ""},
		{"a Perl binding's Makefile.PL is not the build", map[string]string{"perl/Makefile.PL": "WriteMakefile(NAME => 'X');\n", "x.c": ""}, atesor.BuildUnknown, "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Detect(context.Background(), writeTree(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			got := []any{d.BuildSystem, d.Evidence, d.ShippedConfigure, d.BuildDir}
			want := []any{tt.want, tt.ev, tt.shipped, tt.dir}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, a := range d.Alternatives {
				if a.Confidence > d.Confidence && a.BuildSystem != atesor.BuildCMake {
					t.Errorf("alternative %v ranks above the chosen one", a)
				}
			}
		})
	}
}

// TestDetectOwnLibrary checks that a package's own library, named by its build files, is
// not reported as a dependency to install: the tree directory names the project.
func TestDetectOwnLibrary(t *testing.T) {
	tests := []struct {
		dir   string
		files map[string]string
		want  []atesor.Dependency
	}{
		{"libyaml", map[string]string{
			"CMakeLists.txt": "project(yaml C)\nfind_package(PkgConfig)\npkg_check_modules(YAML yaml-0.1)\n",
			"include/yaml.h": "", "src/api.c": ""},
			[]atesor.Dependency{dep("pkg-config", "CMakeLists.txt:2")}},
		{"xxHash-0.8.3", map[string]string{
			"Makefile": "all:\n\t$(CC) cli/xxhsum.c -L. -lxxhash -lz\n", "xxhash.h": "", "xxhash.c": ""},
			[]atesor.Dependency{dep("zlib", "Makefile:2")}},
		// A library of the same name that the tree does not build stays a dependency.
		{"yaml-tools", map[string]string{"Makefile": "all:\n\tcc main.c -lyaml\n", "main.c": ""},
			[]atesor.Dependency{dep("yaml", "Makefile:2")}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			root := filepath.Join(writeTree(t, nil), tt.dir)
			for p, c := range tt.files {
				full := filepath.Join(root, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			d, err := Detect(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, d.Dependencies); diff != "" {
				t.Errorf("dependencies (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectSymlinkOutsideIgnored(t *testing.T) {
	outside := writeTree(t, map[string]string{"CMakeLists.txt": "project(secret C)\nfind_package(OpenSSL)\n"})
	dir := writeTree(t, map[string]string{"Makefile": "all:\n\tcc x.c\n"})
	if err := os.Symlink(filepath.Join(outside, "CMakeLists.txt"), filepath.Join(dir, "CMakeLists.txt")); err != nil {
		t.Skip(err)
	}
	d, err := Detect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.BuildSystem != atesor.BuildMake || len(d.Dependencies) != 0 {
		t.Errorf("a link out of the tree was read: %+v", d)
	}
}
