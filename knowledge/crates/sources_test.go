package crates

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestPatchCratesIO(t *testing.T) {
	m := readTOML(t, map[string]string{
		"Cargo.toml": `[package]
name = "p"
[dependencies]
itoa = "1"
md5 = "0.7"
forked = { version = "2", package = "serde" }
[patch.crates-io]
md5 = { path = "third_party/md5" }
serde = { git = "https://example.invalid/serde" }
`,
		"third_party/md5/Cargo.toml": "[package]\nname = \"md5\"\n[dependencies]\nlibc = \"0.2\"\n",
	})
	if d := findDep(m, "Cargo.toml", "md5", KindNormal, ""); d != nil {
		t.Errorf("the patched md5 is a registry dependency: %+v", d)
	}
	if d := findDep(m, "third_party/md5/Cargo.toml", "libc", KindNormal, ""); d == nil {
		t.Error("the patch's own dependencies are not read")
	}
	if slices.Contains(m.Members, "third_party/md5") {
		t.Errorf("a patch became a member: %v", m.Members)
	}
	if len(m.Git) != 1 || m.Git[0].Name != "serde" || m.Git[0].URL != "https://example.invalid/serde" {
		t.Errorf("git = %+v", m.Git)
	}
	res, err := excerpt(t).Resolve(m, RISCV64, false)
	var me *MissingError
	if !errors.As(err, &me) || len(me.Missing) != 1 || me.Missing[0].Git == "" {
		t.Fatalf("error %v", err)
	}
	if want := []string{"librust-itoa-dev", "librust-libc-dev"}; !slices.Equal(res.Packages, want) {
		t.Errorf("packages %v, want %v", res.Packages, want)
	}
	fsys := fstest.MapFS{"Cargo.toml": {Data: []byte("[package]\nname = \"p\"\n[patch.crates-io]\nx = { path = \"../x\" }\n")}}
	if _, err := ReadManifestFS(fsys); err == nil || !strings.Contains(err.Error(), "outside the package root") {
		t.Errorf("a patch outside the tree: %v", err)
	}
}

func vendoredTree() fstest.MapFS {
	return fstest.MapFS{
		"Cargo.toml": {Data: []byte(`[package]
name = "p"
[dependencies]
itoa = "1.0.9"
memchr = { version = "2.5", features = ["std"] }
up = { git = "https://example.invalid/up" }
[target.'cfg(windows)'.dependencies]
windows-sys = "0.59"
[dev-dependencies]
proptest = "1"
`)},
		".cargo/config.toml": {Data: []byte(`[source.crates-io]
replace-with = "vendored-sources"

[source."git+https://example.invalid/up"]
git = "https://example.invalid/up"
replace-with = "vendored-sources"

[source.vendored-sources]
directory = "vendor"
`)},
		"vendor/itoa/Cargo.toml":           {Data: []byte("[package]\nname = \"itoa\"\nversion = \"1.0.11\"\n")},
		"vendor/itoa/.cargo-checksum.json": {Data: []byte("{}")},
		"vendor/memchr-2.4.1/Cargo.toml":   {Data: []byte("[package]\nname = \"memchr\"\nversion = \"2.4.1\"\n")},
		"vendor/memchr/Cargo.toml":         {Data: []byte("[package]\nname = \"memchr\"\nversion = \"2.7.4\"\n")},
		"vendor/up/Cargo.toml":             {Data: []byte("[package]\nname = \"up\"\nversion = \"0.1.0\"\n")},
		"vendor/not-a-crate/README":        {Data: []byte("x")},
		"vendor/broken/Cargo.toml":         {Data: []byte("[package")},
		"vendor/windows-sys/Cargo.toml":    {Data: []byte("[package]\nname = \"windows-sys\"\nversion = \"0.52.0\"\n")},
	}
}

func TestVendoredCrates(t *testing.T) {
	m, err := ReadManifestFS(vendoredTree())
	if err != nil {
		t.Fatal(err)
	}
	if m.Vendor != "vendor" {
		t.Fatalf("vendor %q", m.Vendor)
	}
	res, err := m.ResolveVendored(RISCV64, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 0 {
		t.Errorf("a vendored package installs %v", res.Packages)
	}
	// Against the distribution (the package's configuration set aside) the same
	// manifest needs packages, and lacks the git crate.
	var dme *MissingError
	if dres, err := excerpt(t).Resolve(m, RISCV64, true); !errors.As(err, &dme) || !slices.Contains(dres.Packages, "librust-itoa-dev") {
		t.Errorf("the distribution's resolution: %+v %v", dres, err)
	}
	var got []string
	for _, c := range res.Crates {
		got = append(got, c.Name+"@"+c.Version+"="+c.Package)
	}
	if want := []string{"itoa@1.0.11=", "memchr@2.7.4=", "up@0.1.0="}; !slices.Equal(got, want) {
		t.Errorf("crates %v, want %v", got, want)
	}
	if keys := missingKeys(res.Missing); !slices.Equal(keys, []string{"proptest:dev", "windows-sys:normal:lock"}) {
		t.Errorf("missing %v", keys)
	}
	if s := res.Missing[1].String(); !strings.Contains(s, "vendored in vendor have only 0.52.0") {
		t.Errorf("message %q", s)
	}
	if s := res.Missing[0].String(); !strings.Contains(s, "not among the crates vendored in vendor") {
		t.Errorf("message %q", s)
	}

	// A requirement the vendored copy does not meet fails like a missing package.
	tree := vendoredTree()
	tree["Cargo.toml"] = &fstest.MapFile{Data: []byte("[package]\nname = \"p\"\n[dependencies]\nitoa = \"1.0.12\"\n")}
	m, err = ReadManifestFS(tree)
	if err != nil {
		t.Fatal(err)
	}
	var me *MissingError
	if _, err := m.ResolveVendored(RISCV64, false); !errors.As(err, &me) || me.Missing[0].Vendor != "vendor" {
		t.Errorf("error %v", err)
	}

	// Through a read function the vendor directory cannot be listed.
	read := func(rel string) ([]byte, error) { return fs.ReadFile(vendoredTree(), rel) }
	if _, err := ReadManifest(read); err == nil || !strings.Contains(err.Error(), "ReadManifestFS") {
		t.Errorf("vendor through ReadManifest: %v", err)
	}
	// A directory elsewhere is named, not read; the distribution resolves.
	tree = vendoredTree()
	tree[".cargo/config.toml"] = &fstest.MapFile{Data: []byte("[source.crates-io]\nreplace-with = \"d\"\n[source.d]\ndirectory = \"/opt/crates\"\n")}
	m, err = ReadManifestFS(tree)
	if err != nil || m.Vendor != "/opt/crates" || m.vendored != nil {
		t.Errorf("vendor %q %v %v", m.Vendor, m.vendored, err)
	}
	if _, err := m.ResolveVendored(RISCV64, false); err == nil || !strings.Contains(err.Error(), "vendors no crates") {
		t.Errorf("ResolveVendored outside the tree: %v", err)
	}
	// The old name of the configuration file is read too; a broken one is an error.
	tree = vendoredTree()
	tree[".cargo/config"], tree[".cargo/config.toml"] = tree[".cargo/config.toml"], nil
	delete(tree, ".cargo/config.toml")
	if m, err := ReadManifestFS(tree); err != nil || m.Vendor != "vendor" {
		t.Errorf(".cargo/config: %v %v", m, err)
	}
	tree[".cargo/config"] = &fstest.MapFile{Data: []byte("[source")}
	if _, err := ReadManifestFS(tree); err == nil {
		t.Error("a broken .cargo/config reads")
	}
}
