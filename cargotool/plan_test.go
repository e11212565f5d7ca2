package cargotool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
	"github.com/eclipse-atesor/atesor-go/validate"
)

func testIndex(t *testing.T) *crates.Index {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "Packages"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ix, err := crates.ParseIndex(f)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// writeTree writes files (slash paths relative to the root) into a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const programManifest = `[package]
name = "wordcount"
version = "0.1.0"
edition = "2021"

[dependencies]
itoa = "1"
memchr = { version = "2.5", default-features = false, features = ["std"] }
`

func debian(t *testing.T) atesor.Platform {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDistributionProgram(t *testing.T) {
	root := writeTree(t, map[string]string{
		"rust/Cargo.toml":  programManifest,
		"rust/src/main.rs": "fn main() {}\n",
		"rust/Cargo.lock":  "version = 3\n",
	})
	pkg, err := Read(context.Background(), root, "rust")
	if err != nil {
		t.Fatal(err)
	}
	if got := BuildLine(pkg); got != "cd 'rust' && cargo build --release" {
		t.Errorf("BuildLine = %q", got)
	}
	deps, err := Distribution(testIndex(t), pkg, debian(t), atesor.CratesDistribution)
	if err != nil {
		t.Fatal(err)
	}
	if deps.Source != atesor.CratesDistribution || deps.Mode != atesor.CratesDistribution {
		t.Errorf("source %q mode %q", deps.Source, deps.Mode)
	}
	for _, want := range []string{"librust-itoa-dev", "librust-memchr-dev"} {
		if !strings.Contains(strings.Join(deps.Packages, " "), want) {
			t.Errorf("packages %v lack %s", deps.Packages, want)
		}
	}
	if deps.Config != "rust/.cargo/config.toml" || deps.LockfileSetAside != "rust/Cargo.lock.upstream" {
		t.Errorf("config %q, lock set aside %q", deps.Config, deps.LockfileSetAside)
	}
	if len(deps.Commands) != 3 {
		t.Fatalf("commands %q: want install, config, lock", deps.Commands)
	}
	if !strings.HasPrefix(deps.Commands[0], "apt-get update && apt-get install") || !strings.Contains(deps.Commands[0], "librust-itoa-dev") {
		t.Errorf("install command %q", deps.Commands[0])
	}
	if !strings.Contains(deps.Commands[1], "replace-with") || !strings.HasSuffix(deps.Commands[1], "> .cargo/config.toml") || !strings.HasPrefix(deps.Commands[1], "cd 'rust' && ") {
		t.Errorf("config command %q", deps.Commands[1])
	}
	if deps.Commands[2] != "cd 'rust' && test ! -e Cargo.lock || mv Cargo.lock Cargo.lock.upstream" {
		t.Errorf("lock command %q", deps.Commands[2])
	}
	for _, c := range deps.Commands {
		if err := validate.DenyRules(c); err != nil {
			t.Errorf("the safety rules refuse %q: %v", c, err)
		}
	}
	names := map[string]string{}
	for _, c := range deps.Crates {
		names[c.Name] = c.Version
	}
	if d := cmp.Diff(map[string]string{"itoa": "1.0.14", "memchr": "2.7.4"}, names); d != "" {
		t.Errorf("crates (-want +got):\n%s", d)
	}
	pre := RecipePrerequisite(deps)
	for _, want := range []string{"distribution's packaged crates", "librust-itoa-dev", "Cargo.lock was set aside as rust/Cargo.lock.upstream"} {
		if !strings.Contains(pre, want) {
			t.Errorf("recipe line %q lacks %q", pre, want)
		}
	}
}

func TestDistributionLibrarySetsShippedConfigAside(t *testing.T) {
	root := writeTree(t, map[string]string{
		"Cargo.toml":         "[package]\nname = \"fmtlib\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1.0\"\n",
		"src/lib.rs":         "pub fn f() {}\n",
		".cargo/config.toml": "[build]\nrustflags = [\"-Ctarget-cpu=native\"]\n",
	})
	pkg, err := Read(context.Background(), root, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := BuildLine(pkg); got != "cargo build --release && cargo test --release --no-run" {
		t.Errorf("BuildLine = %q", got)
	}
	deps, err := Distribution(testIndex(t), pkg, debian(t), atesor.CratesAuto)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"mv '.cargo/config.toml' '.cargo/config.toml.upstream'"}
	if len(deps.Commands) != 3 || deps.Commands[1] != want[0] || deps.ConfigSetAside != ".cargo/config.toml.upstream" {
		t.Errorf("commands %q, config set aside %q", deps.Commands, deps.ConfigSetAside)
	}
	if deps.LockfileSetAside != "" {
		t.Errorf("no Cargo.lock, but set aside as %q", deps.LockfileSetAside)
	}
}

func TestDistributionMissing(t *testing.T) {
	tests := []struct {
		name, deps string
		want       []string
	}{
		{"not packaged", "[dependencies]\nitoa = \"1\"\nnotpackaged-xyz = \"0.3\"\n",
			[]string{"notpackaged-xyz", "0.3", "does not package it at all", "--crates registry"}},
		{"other major", "[dependencies]\nitoa = \"2\"\n",
			[]string{"itoa", "2", "1.0.14"}},
		{"dev dependency", "[dependencies]\nitoa = \"1\"\n\n[dev-dependencies]\nquickcheck-xyz = \"1\"\n",
			[]string{"quickcheck-xyz", "lock file over every declared dependency", "--crates registry"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeTree(t, map[string]string{
				"Cargo.toml":  "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n" + tt.deps,
				"src/main.rs": "fn main() {}\n",
			})
			pkg, err := Read(context.Background(), root, "")
			if err != nil {
				t.Fatal(err)
			}
			deps, err := Distribution(testIndex(t), pkg, debian(t), atesor.CratesDistribution)
			var de *DependencyError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v (deps %+v), want a *DependencyError", err, deps)
			}
			for _, w := range tt.want {
				if !strings.Contains(de.Error(), w) {
					t.Errorf("message %q lacks %q", de.Error(), w)
				}
			}
			if deps != nil || len(de.Missing) == 0 {
				t.Errorf("deps %+v, missing %v", deps, de.Missing)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	root := writeTree(t, map[string]string{
		"Cargo.toml":  "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\nrust-version = \"1.70\"\n\n[dependencies]\nnotpackaged-xyz = \"0.3\"\n",
		"src/main.rs": "fn main() {}\n",
		"Cargo.lock":  "version = 3\n",
	})
	pkg, err := Read(context.Background(), root, "")
	if err != nil {
		t.Fatal(err)
	}
	d := Registry(pkg, atesor.CratesRegistry)
	if d.Source != atesor.CratesRegistry || len(d.Commands) != 0 || d.LockfileSetAside != "" || d.RustVersion != "1.70" {
		t.Errorf("registry record %+v", d)
	}
	if got := RecipePrerequisite(d); !strings.Contains(got, "fetched by cargo") || !strings.Contains(got, "Rust 1.70") {
		t.Errorf("recipe line %q", got)
	}
}

func TestReadRefusesLinksOut(t *testing.T) {
	outside := writeTree(t, map[string]string{"Cargo.toml": programManifest})
	root := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "Cargo.toml"), filepath.Join(root, "Cargo.toml")); err != nil {
		t.Fatal(err)
	}
	if pkg, err := Read(context.Background(), root, ""); err == nil {
		t.Fatalf("a Cargo.toml linked to a host file was read: %+v", pkg.Manifest)
	}
}
